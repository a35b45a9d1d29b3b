// Corrupted variants of a builder ROM: each is refused with invalid-rom naming the field that is
// wrong, or (for the oddities real ROMs have) parsed with the problem reported.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReMcpError } from '../../../src/core/errors.js';
import { bufferSource, parseNdsRom } from '../../../src/formats/nds/index.js';
import { parseRawFnt } from '../../../src/formats/nds/raw/fnt.js';
import { buildRom, type RomLayout } from '../../kit/rom-builder.js';
import { fixHeaderCrcs, getU32, putU16, putU32 } from '../../kit/rom-builder-parts.js';
import { fullSpec } from './specs.js';

const base = buildRom(fullSpec);

function findBytes(bytes: Uint8Array, needle: number[], from: number, to: number): number {
  for (let i = from; i + needle.length <= to; i++) if (needle.every((b, k) => bytes[i + k] === b)) return i;
  throw new Error('needle not found');
}

const CASES: Array<[string, string, (b: Uint8Array, l: RomLayout) => Uint8Array | undefined]> = [
  ['file shorter than a header', 'fileSize', (b) => b.slice(0, 0x100)],
  [
    'ARM9 offset past the end under an undefined unit code',
    'arm9RomOffset',
    (b) => {
      b[0x12] = 7;
      putU32(b, 0x20, b.length + 0x1000);
      return b;
    },
  ],
  [
    'ARM9 offset past the end',
    'arm9RomOffset',
    (b) => {
      putU32(b, 0x20, b.length + 0x1000);
      return undefined;
    },
  ],
  [
    'ARM9 offset inside the header',
    'arm9RomOffset',
    (b) => {
      putU32(b, 0x20, 0x100);
      return undefined;
    },
  ],
  [
    'ARM7 size past the end',
    'arm7Size',
    (b) => {
      putU32(b, 0x3c, 0x7fffffff);
      return undefined;
    },
  ],
  [
    'ARM9 RAM range wraps',
    'arm9RamAddress',
    (b) => {
      putU32(b, 0x28, 0xffffff00);
      return undefined;
    },
  ],
  [
    'FAT size not whole entries',
    'fatSize',
    (b) => {
      putU32(b, 0x4c, getU32(b, 0x4c) - 1);
      return undefined;
    },
  ],
  [
    'FAT past the end',
    'fatOffset',
    (b) => {
      putU32(b, 0x48, b.length - 8);
      return undefined;
    },
  ],
  [
    'overlay table size not whole records',
    'arm9OverlayTableSize',
    (b) => {
      putU32(b, 0x54, 33);
      return undefined;
    },
  ],
  [
    'FAT entry reversed',
    'fat',
    (b, l) => {
      putU32(b, l.fat.start + 4, 0);
      return undefined;
    },
  ],
  [
    'FAT entry past the end',
    'fat',
    (b, l) => {
      putU32(b, l.fat.start + 4, b.length + 1);
      return undefined;
    },
  ],
  [
    'FNT sub-table outside',
    'fnt',
    (b, l) => {
      putU32(b, l.fnt.start, l.fnt.end - l.fnt.start + 10);
      return undefined;
    },
  ],
  [
    'FNT directory count zero',
    'fnt',
    (b, l) => {
      putU16(b, l.fnt.start + 6, 0);
      return undefined;
    },
  ],
  [
    'FNT cycle (a directory contains itself)',
    'fnt',
    (b, l) => {
      const at = findBytes(b, [0x85, ...new TextEncoder().encode('level')], l.fnt.start, l.fnt.end);
      const data = l.directories.find((d) => d.path === 'data')!.id;
      putU16(b, at + 6, data);
      return b;
    },
  ],
  [
    'FNT names a file the FAT lacks',
    'fnt',
    (b, l) => {
      putU16(b, l.fnt.start + 4, l.files.length);
      return undefined;
    },
  ],
  [
    'overlay names a missing file',
    'arm9OverlayTable',
    (b, l) => {
      putU32(b, l.arm9OverlayTable.start + 24, 9999);
      return undefined;
    },
  ],
  [
    'overlay RAM wraps',
    'arm7OverlayTable',
    (b, l) => {
      putU32(b, l.arm7OverlayTable.start + 4, 0xfffff000);
      putU32(b, l.arm7OverlayTable.start + 8, 0x2000);
      return undefined;
    },
  ],
];

for (const [name, field, mutate] of CASES) {
  test(`refused: ${name} -> ${field}`, () => {
    const copy = base.bytes.slice();
    const bytes = mutate(copy, base.layout) ?? copy;
    if (bytes.length >= 0x200) fixHeaderCrcs(bytes);
    assert.throws(
      () => parseNdsRom(bufferSource(bytes)),
      (e: unknown) => {
        assert.ok(e instanceof ReMcpError, String(e));
        assert.equal(e.code, 'invalid-rom');
        assert.equal(e.details?.field, field, e.message);
        return true;
      },
    );
  });
}

test('reported, not refused: bad header CRC, junk 0x88, unknown banner version, garbage DSi fields on an NDS unit, undefined unit code', () => {
  const bytes = base.bytes.slice();
  bytes[0x12] = 7;
  putU32(bytes, 0x88, 0x0004d0b8);
  putU16(bytes, base.layout.banner!.start, 0x7777);
  putU32(bytes, 0x1c0, 0xffffffff);
  bytes[0x15e] = (bytes[0x15e]! + 1) & 0xff;
  const m = parseNdsRom(bufferSource(bytes));
  assert.equal(m.header.headerCrc.ok, false);
  assert.equal(m.header.arm9ParamsOffsetField, 0x0004d0b8);
  assert.equal(m.banner, null);
  assert.equal(m.dsi, null);
  assert.ok(m.issues.some((i) => i.includes('CRC')));
  assert.ok(m.issues.some((i) => i.includes('banner')));
  assert.equal(m.header.unitCode, 7);
  assert.ok(m.issues.some((i) => i.startsWith('unit code 0x7 ')));
});

test('refused: an FNT whose nested names build a path over MAX_PATH_LENGTH -> fnt (no unbounded path strings)', () => {
  // A chain of directories with 120-character names: 10 levels already pass 1,024 characters, and
  // 4,000 levels in 650 KB of FNT once built gigabytes of path text.
  const dirs = 10;
  const name = new Array(120).fill(0x61);
  const subs: number[][] = [];
  for (let d = 0; d < dirs; d++) {
    const s =
      d < dirs - 1 ? [0x80 | name.length, ...name, (0xf001 + d) & 0xff, (0xf001 + d) >> 8] : [1, 0x66];
    subs.push([...s, 0]);
  }
  const bytes = new Uint8Array(dirs * 8 + subs.reduce((n, s) => n + s.length, 0));
  let at = dirs * 8;
  for (let d = 0; d < dirs; d++) {
    putU32(bytes, d * 8, at);
    putU16(bytes, d * 8 + 4, 0);
    putU16(bytes, d * 8 + 6, d === 0 ? dirs : 0xf000 + d - 1);
    bytes.set(subs[d]!, at);
    at += subs[d]!.length;
  }
  assert.throws(
    () => parseRawFnt(bytes, 1),
    (e: unknown) =>
      e instanceof ReMcpError &&
      e.code === 'invalid-rom' &&
      e.details?.field === 'fnt' &&
      /path/.test(e.message),
  );
  // The same tree with short names parses.
  const short = parseRawFnt(
    (() => {
      const b = new Uint8Array(dirs * 8 + dirs * 5 + 3);
      let p = dirs * 8;
      for (let d = 0; d < dirs; d++) {
        putU32(b, d * 8, p);
        putU16(b, d * 8 + 6, d === 0 ? dirs : 0xf000 + d - 1);
        const s = d < dirs - 1 ? [0x81, 0x64, (0xf001 + d) & 0xff, (0xf001 + d) >> 8, 0] : [1, 0x66, 0];
        b.set(s, p);
        p += s.length;
      }
      return b.subarray(0, p);
    })(),
    1,
  );
  assert.equal(short.paths.get(0), `${'d/'.repeat(dirs - 1)}f`);
});
