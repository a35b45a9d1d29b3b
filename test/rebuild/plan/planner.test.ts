// The planner on its own (src/rebuild/plan/), with no workspace or service in between: every operation
// kind planned on a small synthetic ROM (what lands where, what the header and tables become), every
// refusal with its code and message, and the pure pieces (FNT path insertion, conflicts, old bytes,
// capacity codes) on hand-made inputs.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { isReMcpError } from '../../../src/core/errors.js';
import { blzDecode } from '../../../src/formats/blz/index.js';
import { crc16Modbus } from '../../../src/formats/crc16.js';
import { bufferSource, type NdsRomModel, parseNdsRom } from '../../../src/formats/nds/index.js';
import { parseRawFat } from '../../../src/formats/nds/raw/fat.js';
import { type FntDirectoryRecord, parseRawFnt } from '../../../src/formats/nds/raw/fnt.js';
import { parseRawHeader, sealHeaderCrcs } from '../../../src/formats/nds/raw/header.js';
import { parseRawOverlayTable } from '../../../src/formats/nds/raw/overlay-table.js';
import { manifestSchema } from '../../../src/rebuild/manifest.js';
import { addFntPath } from '../../../src/rebuild/plan/add-file.js';
import { capacityFor } from '../../../src/rebuild/plan/header.js';
import {
  APPEND_ALIGN,
  ENGINE,
  type LoadedArtifact,
  type Plan,
  planRebuild,
} from '../../../src/rebuild/plan/index.js';
import { checkConflicts } from '../../../src/rebuild/plan/layout.js';
import { oldPayload } from '../../../src/rebuild/plan/old-bytes.js';
import { buildRom } from '../../kit/rom-builder.js';

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const fill = (n: number, b: number) => new Uint8Array(n).fill(b);
const align = (n: number) => Math.ceil(n / APPEND_ALIGN) * APPEND_ALIGN;
const addr = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

/**
 * File IDs: 0..1 the ARM9 overlays, 2 the ARM7 overlay, 3 data/one.bin, 4 data/also.bin (the same
 * bytes as 3), 5 data/sub/two.txt, 6 zlast/z.bin (the last ID: zlast/ may take a new file).
 */
function makeRom(secureCrcRight: boolean): Uint8Array {
  const { bytes } = buildRom({
    arm9: { code: new Uint8Array(0x1000).map((_, i) => (i * 7) & 0xff) },
    arm7: { code: fill(0x200, 0x71) },
    arm9Overlays: [
      {
        id: 0,
        ramAddress: 0x02100000,
        data: fill(0x100, 0xa0),
        bssSize: 0x100,
        staticInit: { start: 0x02100040, end: 0x02100048 },
      },
      {
        id: 1,
        ramAddress: 0x02100000,
        data: new Uint8Array(0x800).map((_, i) => (i >> 4) & 0xff),
        compress: true,
        bssSize: 0x100,
      },
    ],
    arm7Overlays: [{ id: 0, ramAddress: 0x03800000, data: fill(0x40, 0xb1) }],
    files: [
      { path: 'data/one.bin', data: fill(0x123, 1) },
      { path: 'data/sub/two.txt', data: new TextEncoder().encode('hello two') },
      { path: 'data/also.bin', sameAs: 'data/one.bin' },
      { path: 'zlast/z.bin', data: fill(0x20, 3) },
    ],
    // Trailing data past the used size: the source (over 0x8000 bytes, the whole secure area) is kept.
    appended: fill(0x1000, 0xee),
  });
  if (secureCrcRight) {
    const crc = crc16Modbus(bytes.subarray(0x4000, 0x8000));
    bytes[0x6c] = crc & 0xff;
    bytes[0x6d] = crc >> 8;
    sealHeaderCrcs(bytes);
  }
  return bytes;
}

interface Rom {
  bytes: Uint8Array;
  model: NdsRomModel;
  sha256: string;
  /** The stored bytes of a file by path. */
  file(path: string): Uint8Array;
}

function romOf(bytes: Uint8Array): Rom {
  const model = parseNdsRom(bufferSource(bytes));
  return {
    bytes,
    model,
    sha256: sha(bytes),
    file: (path) => {
      const f = model.files.find((x) => x.path === path)!;
      return bytes.subarray(f.start, f.end);
    },
  };
}

// STALE stores a secure-area CRC that is not its secure area's (the kit writes 0); SEALED stores the right one.
const STALE = romOf(makeRom(false));
const SEALED = romOf(makeRom(true));

/** The artifacts of one manifest, by workspace path. */
class Artifacts extends Map<string, LoadedArtifact> {
  add(name: string, bytes: Uint8Array) {
    const a = { path: `art/${name}`, sha256: sha(bytes), bytes };
    this.set(a.path, a);
    return { artifact: a.path, artifactSha256: a.sha256 };
  }
}

function plan(
  rom: Rom,
  operations: unknown[],
  artifacts: Artifacts = new Artifacts(),
  options: { formatVersion?: 1 | 2; size?: number } = {},
): Promise<Plan> {
  const manifest = manifestSchema.parse({
    formatVersion: options.formatVersion ?? 2,
    source: { sha256: rom.sha256, size: options.size ?? rom.bytes.length },
    operations,
  });
  const read = (offset: number, length: number) => rom.bytes.subarray(offset, offset + length);
  return planRebuild(rom.model, read, rom.bytes.length, rom.sha256, manifest, artifacts);
}

/** The output the plan describes: the source, then every piece laid over it (zeros between). */
function outputOf(rom: Rom, p: Plan): Uint8Array {
  const out = new Uint8Array(p.resolved.output.size);
  out.set(rom.bytes);
  for (const piece of p.pieces) out.set(piece.bytes, piece.offset);
  return out;
}

/** Every plan's invariants: sorted, non-overlapping pieces; owned prefix inside the source. */
function checkInvariants(rom: Rom, p: Plan) {
  for (let i = 1; i < p.pieces.length; i++) {
    const a = p.pieces[i - 1]!;
    const b = p.pieces[i]!;
    assert.ok(a.offset + a.bytes.length <= b.offset, `pieces ${a.owner} and ${b.owner} overlap`);
  }
  for (const o of p.ownedPrefix) assert.ok(o.end <= rom.bytes.length, `${o.owner} lies inside the source`);
  assert.equal(p.resolved.engine, ENGINE);
  assert.match(p.resolved.buildId, /^[0-9a-f]{16}$/);
  assert.equal(p.resolved.fat.length, parseRawFat(tableBytes(rom, p, 'fat')).length);
}

/** A table's bytes in the output (rebuilt when the plan lists it, else the source's). */
function tableBytes(rom: Rom, p: Plan, table: 'fat' | 'fnt' | 'arm9-overlay-table'): Uint8Array {
  const t = p.resolved.tables.find((x) => x.table === table);
  if (t) return outputOf(rom, p).subarray(Number(t.start), Number(t.end));
  const key = { fat: 'fat', fnt: 'fnt', 'arm9-overlay-table': 'arm9OverlayTable' } as const;
  const r = rom.model.header[key[table]];
  return rom.bytes.subarray(r.start, r.end);
}

/** Bytes no compressor can shrink: SHA-256 in counter mode. */
const noise = (n: number) =>
  Uint8Array.from(
    { length: n },
    (_, i) =>
      createHash('sha256')
        .update(`${i >> 5}`)
        .digest()[i & 31]!,
  );

const fieldsOf = (p: Plan) => p.resolved.headerRewrite.map((f) => f.field).sort();

interface PlannedCase {
  name: string;
  rom: Rom;
  formatVersion?: 1 | 2;
  ops: (a: Artifacts, rom: Rom) => unknown[];
  check: (p: Plan, rom: Rom, a: Artifacts) => void;
}

const arm9 = STALE.model.arm9;
const sourceEnd = STALE.bytes.length;

const PLANNED: PlannedCase[] = [
  {
    name: 'patch: ARM9 bytes in place; a stale secure-area CRC leaves the header as it was',
    rom: STALE,
    formatVersion: 1,
    ops: (_a, rom) => [
      {
        op: 'patch',
        id: 'p',
        component: { kind: 'arm9' },
        offset: '0x10',
        original: hex(rom.bytes.subarray(arm9.rom.start + 0x10, arm9.rom.start + 0x14)),
        replacement: 'deadbeef',
        runtimeAddress: addr(arm9.ramAddress + 0x10),
        componentSha256: sha(rom.bytes.subarray(arm9.rom.start, arm9.rom.end)),
      },
    ],
    check: (p) => {
      const at = arm9.rom.start + 0x10;
      assert.deepEqual(
        p.pieces.map((x) => [x.offset, hex(x.bytes), x.owner]),
        [[at, 'deadbeef', 'p']],
      );
      assert.deepEqual(p.ownedPrefix, [{ start: at, end: at + 4, owner: 'p' }]);
      const op = p.resolved.operations[0]!;
      assert.deepEqual(
        [op.output, op.replaced, op.length],
        [{ start: addr(at), end: addr(at + 4) }, { start: addr(at), end: addr(at + 4) }, 4],
      );
      assert.equal(op.afterSha256, sha(Uint8Array.from([0xde, 0xad, 0xbe, 0xef])));
      assert.equal(op.component, 'arm9');
      assert.deepEqual(p.resolved.headerRewrite, []);
      assert.deepEqual(p.resolved.tables, []);
      assert.equal(p.resolved.output.size, sourceEnd);
      assert.equal(p.resolved.formatVersion, 1);
    },
  },
  {
    name: 'patch: an edit of the secure area whose CRC was right reseals it in the header',
    rom: SEALED,
    ops: (_a, rom) => [
      {
        op: 'patch',
        id: 'p',
        component: { kind: 'arm9' },
        offset: '0x20',
        original: hex(rom.bytes.subarray(arm9.rom.start + 0x20, arm9.rom.start + 0x22)),
        replacement: '0102',
      },
    ],
    check: (p, rom) => {
      assert.deepEqual(fieldsOf(p), ['headerCrc', 'secureAreaCrc']);
      const out = outputOf(rom, p);
      const h = parseRawHeader(out.subarray(0, 0x200));
      assert.equal(h.secureAreaCrc, crc16Modbus(out.subarray(0x4000, 0x8000)));
      assert.notEqual(h.secureAreaCrc, crc16Modbus(rom.bytes.subarray(0x4000, 0x8000)));
      assert.equal(h.headerCrcStored, h.headerCrcComputed);
      assert.deepEqual(
        p.ownedPrefix.map((o) => o.owner),
        ['rebuild:header', 'p'],
      );
      assert.equal(p.resolved.output.size, rom.bytes.length, 'nothing appended');
    },
  },
  {
    name: 'replace-component: an exact-size file replaced in place',
    rom: STALE,
    formatVersion: 1,
    ops: (a, rom) => [
      {
        op: 'replace-component',
        id: 'r',
        component: { kind: 'path', path: 'zlast/z.bin' },
        ...a.add('z', fill(0x20, 0x5a)),
        componentSha256: sha(rom.file('zlast/z.bin')),
      },
    ],
    check: (p, rom) => {
      const f = rom.model.files[6]!;
      assert.deepEqual(
        p.pieces.map((x) => [x.offset, x.bytes.length, x.owner]),
        [[f.start, 0x20, 'r']],
      );
      const op = p.resolved.operations[0]!;
      assert.deepEqual(op.replaced, { start: addr(f.start), end: addr(f.end) });
      assert.equal(op.beforeSha256, sha(rom.file('zlast/z.bin')));
      assert.equal(op.fileId, 6);
      assert.equal(op.path, 'zlast/z.bin');
    },
  },
  {
    name: 'replace-file: a larger file appended, its old bytes zeroed, FAT rebuilt, header repointed',
    rom: STALE,
    ops: (a, rom) => [
      {
        op: 'replace-file',
        id: 'grow',
        component: { kind: 'path', path: 'data/sub/two.txt' },
        ...a.add(
          'two',
          new Uint8Array(0x345).map((_, i) => i & 0xff),
        ),
        componentSha256: sha(rom.file('data/sub/two.txt')),
      },
    ],
    check: (p, rom) => {
      const old = rom.model.files[5]!;
      const start = align(sourceEnd);
      const fatAt = align(start + 0x345);
      assert.deepEqual(
        p.pieces.map((x) => [x.offset, x.bytes.length, x.owner]),
        [
          [0, 0x200, 'rebuild:header'],
          [old.start, old.end - old.start, 'grow'],
          [start, 0x345, 'grow'],
          [fatAt, rom.model.files.length * 8, 'rebuild:fat'],
        ],
      );
      assert.ok(
        p.pieces[1]!.bytes.every((b) => b === 0),
        'the old bytes are zeroed',
      );
      assert.deepEqual(p.resolved.operations[0]!.oldBytes, {
        start: addr(old.start),
        end: addr(old.end),
        zeroed: true,
        keptBecause: undefined,
      });
      assert.deepEqual(p.resolved.fat[5], { start: addr(start), end: addr(start + 0x345) });
      assert.deepEqual(p.resolved.fat[3], {
        start: addr(rom.model.files[3]!.start),
        end: addr(rom.model.files[3]!.end),
      });
      assert.deepEqual(fieldsOf(p), ['fatOffset', 'headerCrc', 'usedRomSize']);
      const h = parseRawHeader(outputOf(rom, p).subarray(0, 0x200));
      assert.deepEqual(h.fat, { offset: fatAt, size: rom.model.files.length * 8 });
      assert.equal(h.usedRomSize, p.resolved.output.size);
      assert.equal(p.resolved.output.size, fatAt + rom.model.files.length * 8);
      assert.equal(p.resolved.deviceCapacity, capacityFor(p.resolved.output.size));
      assert.deepEqual(parseRawFat(tableBytes(rom, p, 'fat'))[5], { start, end: start + 0x345 });
    },
  },
  {
    name: 'replace-file: old bytes another FAT entry still names are kept, and the plan says why',
    rom: STALE,
    ops: (a, rom) => [
      {
        op: 'replace-file',
        id: 'one',
        component: { kind: 'path', path: 'data/one.bin' },
        ...a.add('one', fill(8, 9)),
        componentSha256: sha(rom.file('data/one.bin')),
      },
    ],
    check: (p, rom) => {
      const old = rom.model.files[3]!;
      assert.deepEqual(p.resolved.operations[0]!.oldBytes, {
        start: addr(old.start),
        end: addr(old.end),
        zeroed: false,
        keptBecause: 'file 4 overlaps it',
      });
      assert.ok(!p.ownedPrefix.some((o) => o.owner === 'one'), 'nothing in the prefix is zeroed');
      assert.deepEqual(p.resolved.fat[4], { start: addr(old.start), end: addr(old.end) });
    },
  },
  {
    name: 'replace-overlay: a shorter plain image moves the difference into BSS',
    rom: STALE,
    ops: (a, rom) => [
      {
        op: 'replace-overlay',
        id: 'ov',
        overlay: { processor: 'arm9', id: 0 },
        ...a.add('ov0', fill(0xc0, 0xee)),
        componentSha256: sha(rom.bytes.subarray(rom.model.files[0]!.start, rom.model.files[0]!.end)),
      },
    ],
    check: (p, rom) => {
      assert.deepEqual(p.resolved.overlayRecords, [
        {
          processor: 'arm9',
          id: 0,
          tableIndex: 0,
          compressedSize: 0,
          flags: 0,
          ramSize: 0xc0,
          bssSize: 0x140,
        },
      ]);
      assert.deepEqual(
        p.resolved.tables.map((t) => t.table),
        ['arm9-overlay-table', 'fat'],
      );
      const entry = parseRawOverlayTable(tableBytes(rom, p, 'arm9-overlay-table'))[0]!;
      assert.deepEqual([entry.ramSize, entry.bssSize, entry.fileId], [0xc0, 0x140, 0]);
      const start = align(sourceEnd);
      assert.deepEqual(p.resolved.fat[0], { start: addr(start), end: addr(start + 0xc0) });
      assert.deepEqual(fieldsOf(p), ['arm9OverlayTableOffset', 'fatOffset', 'headerCrc', 'usedRomSize']);
      const op = p.resolved.operations[0]!;
      assert.equal(op.decodedSha256, op.afterSha256, 'stored plain: the stored bytes are the image');
    },
  },
  {
    name: 'replace-overlay: a compressed overlay is BLZ-encoded; the stored bytes decode to the image',
    rom: STALE,
    ops: (a, rom) => [
      {
        op: 'replace-overlay',
        id: 'ov',
        overlay: { processor: 'arm9', id: 1 },
        ...a.add(
          'ov1',
          new Uint8Array(0x800).map((_, i) => (i >> 5) & 0xff),
        ),
        componentSha256: sha(rom.bytes.subarray(rom.model.files[1]!.start, rom.model.files[1]!.end)),
      },
    ],
    check: (p, rom, a) => {
      const stored = p.pieces.find((x) => x.owner === 'ov' && x.offset >= sourceEnd)!;
      const image = a.get('art/ov1')!.bytes;
      assert.ok(stored.bytes.length < image.length, 'compressed');
      assert.deepEqual(blzDecode(stored.bytes).subarray(0, image.length), image);
      const rec = p.resolved.overlayRecords[0]!;
      assert.deepEqual(
        [rec.flags & 1, rec.compressedSize, rec.ramSize, rec.bssSize],
        [1, stored.bytes.length, 0x800, 0x100],
      );
      const op = p.resolved.operations[0]!;
      assert.equal(op.afterSha256, sha(stored.bytes));
      assert.equal(op.decodedSha256, sha(image));
      assert.equal(op.oldBytes?.zeroed, true);
      assert.equal(rom.model.overlays.arm9[1]!.compressed, true);
    },
  },
  {
    name: 'replace-overlay: an image BLZ cannot shrink is stored plain with the compressed flag cleared',
    rom: STALE,
    ops: (a, rom) => [
      {
        op: 'replace-overlay',
        id: 'ov',
        overlay: { processor: 'arm9', id: 1 },
        ...a.add('noise', noise(0x100)),
        componentSha256: sha(rom.bytes.subarray(rom.model.files[1]!.start, rom.model.files[1]!.end)),
      },
    ],
    check: (p, _rom, a) => {
      const rec = p.resolved.overlayRecords[0]!;
      assert.deepEqual([rec.flags & 1, rec.compressedSize, rec.ramSize, rec.bssSize], [0, 0, 0x100, 0x800]);
      const stored = p.pieces.find((x) => x.owner === 'ov' && x.offset >= sourceEnd)!;
      assert.deepEqual(stored.bytes, a.get('art/noise')!.bytes);
    },
  },
  {
    name: 'add-file: a new file in new directories takes the next file ID; FNT and FAT rebuilt',
    rom: STALE,
    ops: (a) => [{ op: 'add-file', id: 'add', path: 'newdir/deeper/n.bin', ...a.add('n', fill(0x30, 0x4e)) }],
    check: (p, rom) => {
      const id = rom.model.files.length;
      const op = p.resolved.operations[0]!;
      assert.deepEqual([op.fileId, op.component, op.beforeSha256], [id, `file ${id}`, null]);
      assert.deepEqual(
        p.resolved.tables.map((t) => t.table),
        ['fnt', 'fat'],
      );
      const fnt = parseRawFnt(tableBytes(rom, p, 'fnt'), id + 1);
      assert.equal(fnt.paths.get(id), 'newdir/deeper/n.bin');
      for (const f of rom.model.files) assert.equal(fnt.paths.get(f.fileId), f.path ?? undefined);
      assert.deepEqual(fnt.issues, []);
      const start = align(sourceEnd);
      assert.deepEqual(p.resolved.fat[id], { start: addr(start), end: addr(start + 0x30) });
      assert.equal(p.resolved.fat.length, id + 1);
      assert.deepEqual(fieldsOf(p), [
        'fatOffset',
        'fatSize',
        'fntOffset',
        'fntSize',
        'headerCrc',
        'usedRomSize',
      ]);
    },
  },
  {
    name: 'add-file: a directory whose files end at the last ID takes one more',
    rom: STALE,
    ops: (a) => [{ op: 'add-file', id: 'add', path: 'zlast/y.bin', ...a.add('y', fill(4, 1)) }],
    check: (p, rom) => {
      const fnt = parseRawFnt(tableBytes(rom, p, 'fnt'), rom.model.files.length + 1);
      assert.equal(fnt.paths.get(rom.model.files.length), 'zlast/y.bin');
      assert.equal(fnt.paths.get(6), 'zlast/z.bin');
    },
  },
  {
    name: 'several operations: payloads appended in manifest order, then the tables',
    rom: STALE,
    ops: (a, rom) => [
      { op: 'add-file', id: 'first', path: 'q/a.bin', ...a.add('qa', fill(0x210, 1)) },
      {
        op: 'replace-file',
        id: 'second',
        component: { kind: 'file', fileId: 6 },
        ...a.add('z2', fill(3, 2)),
        componentSha256: sha(rom.file('zlast/z.bin')),
      },
      {
        op: 'patch',
        id: 'third',
        component: { kind: 'arm7' },
        offset: 0,
        original: '71717171',
        replacement: '00000000',
      },
    ],
    check: (p, rom) => {
      const a0 = align(sourceEnd);
      const a1 = align(a0 + 0x210);
      const appended = p.pieces.filter((x) => x.offset >= sourceEnd);
      assert.deepEqual(
        appended.map((x) => [x.offset, x.owner]),
        [
          [a0, 'first'],
          [a1, 'second'],
          [align(a1 + 3), 'rebuild:fnt'],
          [Number(p.resolved.tables[1]!.start), 'rebuild:fat'],
        ],
      );
      assert.deepEqual(
        p.ownedPrefix.map((o) => o.owner),
        ['rebuild:header', 'third', 'second'],
      );
      assert.deepEqual(p.resolved.fat[6], { start: addr(a1), end: addr(a1 + 3) });
      assert.equal(rom.model.arm7.rom.start, p.ownedPrefix[1]!.start);
    },
  },
];

for (const c of PLANNED) {
  test(`planned: ${c.name}`, async () => {
    const a = new Artifacts();
    const p = await plan(c.rom, c.ops(a, c.rom), a, { formatVersion: c.formatVersion });
    checkInvariants(c.rom, p);
    c.check(p, c.rom, a);
    // Planning is deterministic: the same manifest plans to the same bytes and build ID.
    const again = await plan(c.rom, c.ops(a, c.rom), a, { formatVersion: c.formatVersion });
    assert.equal(again.resolved.buildId, p.resolved.buildId);
    assert.deepEqual(outputOf(c.rom, again), outputOf(c.rom, p));
  });
}

interface RefusedCase {
  name: string;
  ops: (a: Artifacts, rom: Rom) => unknown[];
  code: string;
  message: RegExp;
  formatVersion?: 1 | 2;
  size?: number;
  /** Artifacts named but not loaded. */
  drop?: string;
}

const arm9Patch = (id: string, offset: number, original: string, replacement: string, extra = {}) => ({
  op: 'patch',
  id,
  component: { kind: 'arm9' },
  offset,
  original,
  replacement,
  ...extra,
});
const arm9At = (offset: number, n: number) =>
  hex(STALE.bytes.subarray(arm9.rom.start + offset, arm9.rom.start + offset + n));
const replaceFile = (a: Artifacts, id: string, path: string, bytes: Uint8Array) => ({
  op: 'replace-file',
  id,
  component: { kind: 'path', path },
  ...a.add(`${id}-${path}`, bytes),
  componentSha256: sha(STALE.file(path)),
});
const overlayGuard = (fileId: number) =>
  sha(STALE.bytes.subarray(STALE.model.files[fileId]!.start, STALE.model.files[fileId]!.end));
const replaceOverlay = (a: Artifacts, id: string, ov: number, bytes: Uint8Array) => ({
  op: 'replace-overlay',
  id,
  overlay: { processor: 'arm9', id: ov },
  ...a.add(`${id}-${ov}`, bytes),
  componentSha256: overlayGuard(ov),
});

const REFUSED: RefusedCase[] = [
  {
    name: 'a manifest for another source',
    ops: () => [arm9Patch('p', 0, arm9At(0, 1), '00')],
    size: sourceEnd + 1,
    code: 'invalid-argument',
    message: /^the manifest names another source ROM$/,
  },
  {
    name: 'an operation id used twice',
    ops: () => [arm9Patch('p', 0, arm9At(0, 1), '00'), arm9Patch('p', 8, arm9At(8, 1), '00')],
    code: 'invalid-argument',
    message: /^operation "p": the operation id is used twice$/,
  },
  {
    name: 'a patch of a compressed overlay',
    ops: () => [
      {
        op: 'patch',
        id: 'p',
        component: { kind: 'overlay', processor: 'arm9', id: 1 },
        offset: 0,
        original: '00',
        replacement: '01',
      },
    ],
    code: 'unsupported',
    message: /^operation "p": .* is stored compressed; a byte edit of it is refused$/,
  },
  {
    name: 'a patch whose replacement differs in length',
    ops: () => [arm9Patch('p', 0, arm9At(0, 2), '00')],
    code: 'invalid-argument',
    message: /original and replacement differ in length/,
  },
  {
    name: 'a patch past the component',
    ops: () => [arm9Patch('p', 0xfff, 'aabb', 'ccdd')],
    code: 'invalid-argument',
    message: /offset 0x00000fff \+ 2 lies outside arm9 \(4096 bytes\)/,
  },
  {
    name: 'a patch whose original bytes are not there',
    ops: () => [arm9Patch('p', 4, 'ffffffff', '00000000')],
    code: 'invalid-argument',
    message: /the original-byte guard failed/,
  },
  {
    name: 'a patch whose component guard fails',
    ops: () => [arm9Patch('p', 4, arm9At(4, 1), '00', { componentSha256: sha('another') })],
    code: 'invalid-argument',
    message: /the component guard failed: arm9 has another SHA-256/,
  },
  {
    name: 'a patch whose runtime guard fails',
    ops: () => [arm9Patch('p', 4, arm9At(4, 1), '00', { runtimeAddress: addr(arm9.ramAddress) })],
    code: 'invalid-argument',
    message: new RegExp(
      `the runtime guard failed: ROM offset ${addr(arm9.rom.start + 4)} does not load at ${addr(arm9.ramAddress)} \\(it loads at ${addr(arm9.ramAddress + 4)}\\), and no start-up copy proves it runs there: the start-up copies of arm9 were not asked`,
    ),
  },
  {
    name: 'a patch of a file a replacement already owns',
    ops: (a) => [
      replaceFile(a, 'r', 'zlast/z.bin', fill(4, 0)),
      {
        op: 'patch',
        id: 'p',
        component: { kind: 'path', path: 'zlast/z.bin' },
        offset: 0,
        original: '03',
        replacement: '04',
      },
    ],
    code: 'invalid-argument',
    message: /^operation "p": .* is replaced by another operation$/,
  },
  {
    name: 'a patch of a file ID the ROM does not have',
    ops: () => [
      {
        op: 'patch',
        id: 'p',
        component: { kind: 'file', fileId: 99 },
        offset: 0,
        original: '00',
        replacement: '01',
      },
    ],
    code: 'not-found',
    message: /^operation "p": /,
  },
  {
    name: 'an exact-size replacement of another size',
    formatVersion: 1,
    ops: (a) => [
      {
        op: 'replace-component',
        id: 'r',
        component: { kind: 'path', path: 'zlast/z.bin' },
        ...a.add('short', fill(0x1f, 0)),
        componentSha256: sha(STALE.file('zlast/z.bin')),
      },
    ],
    code: 'invalid-argument',
    message: /exact-size replacement: the artifact is 31 bytes, .* is 32$/,
  },
  {
    name: 'an artifact whose SHA-256 is not the manifest’s',
    ops: (a) => [{ ...replaceFile(a, 'r', 'zlast/z.bin', fill(4, 0)), artifactSha256: sha('not it') }],
    code: 'invalid-argument',
    message: /the artifact SHA-256 differs from the manifest/,
  },
  {
    name: 'an artifact that was not loaded',
    ops: (a) => [replaceFile(a, 'r', 'zlast/z.bin', fill(4, 0))],
    drop: 'art/r-zlast/z.bin',
    code: 'not-found',
    message: /^operation "r": its artifact was not loaded$/,
  },
  {
    name: 'a replacement whose component guard fails',
    ops: (a) => [{ ...replaceFile(a, 'r', 'zlast/z.bin', fill(4, 0)), componentSha256: sha('old') }],
    code: 'invalid-argument',
    message: /the component guard failed/,
  },
  {
    name: 'one file replaced twice',
    ops: (a) => [
      replaceFile(a, 'r1', 'zlast/z.bin', fill(4, 0)),
      replaceFile(a, 'r2', 'zlast/z.bin', fill(5, 0)),
    ],
    code: 'invalid-argument',
    message: /^operation "r2": .* is replaced twice$/,
  },
  {
    name: 'a variable-size replacement of an executable',
    ops: (a) => [
      {
        op: 'replace-file',
        id: 'r',
        component: { kind: 'arm7' },
        ...a.add('arm7', fill(4, 0)),
        componentSha256: sha(STALE.bytes.subarray(STALE.model.arm7.rom.start, STALE.model.arm7.rom.end)),
      },
    ],
    code: 'unsupported',
    message: /is not a plain NitroFS file/,
  },
  {
    name: 'an overlay image larger than its RAM size plus BSS',
    ops: (a) => [replaceOverlay(a, 'o', 0, fill(0x204, 0))],
    code: 'invalid-argument',
    message: /the decoded image is 516 bytes; .* at most 512 \(its RAM size 256 plus BSS 256/,
  },
  {
    name: 'a resized overlay image that is not a multiple of 4',
    ops: (a) => [replaceOverlay(a, 'o', 0, fill(0x102, 0))],
    code: 'invalid-argument',
    message: /the decoded image is 258 bytes/,
  },
  {
    name: 'a resized overlay image the static-initializer list would fall outside',
    ops: (a) => [replaceOverlay(a, 'o', 0, fill(0x44, 0))],
    code: 'invalid-argument',
    message:
      /the static-initializer list 0x02100040\.\.0x02100048 would lie outside the new image \(0x02100000\.\.0x02100044\)/,
  },
  {
    name: 'one overlay replaced twice',
    ops: (a) => [replaceOverlay(a, 'o1', 0, fill(0x100, 1)), replaceOverlay(a, 'o2', 0, fill(0x100, 2))],
    code: 'invalid-argument',
    message: /^operation "o2": .* is replaced twice$/,
  },
  {
    name: 'a new file with a ".." segment',
    ops: (a) => [{ op: 'add-file', id: 'f', path: 'a/../b', ...a.add('f', fill(1, 0)) }],
    code: 'invalid-argument',
    message: /bad path segment "\.\."/,
  },
  {
    name: 'a new file where one exists',
    ops: (a) => [{ op: 'add-file', id: 'f', path: 'zlast/z.bin', ...a.add('f', fill(1, 0)) }],
    code: 'invalid-argument',
    message: /a file already exists at zlast\/z\.bin/,
  },
  {
    name: 'a new file below a file',
    ops: (a) => [{ op: 'add-file', id: 'f', path: 'zlast/z.bin/x', ...a.add('f', fill(1, 0)) }],
    code: 'invalid-argument',
    message: /z\.bin is a file, not a directory/,
  },
  {
    name: 'a new file that would renumber the files after its directory',
    ops: (a) => [{ op: 'add-file', id: 'f', path: 'data/new.bin', ...a.add('f', fill(1, 0)) }],
    code: 'unsupported',
    message: /adding one would renumber existing files/,
  },
  {
    name: 'two patches of the same bytes',
    ops: () => [arm9Patch('a', 4, arm9At(4, 4), '00000000'), arm9Patch('b', 6, arm9At(6, 1), '11')],
    code: 'invalid-argument',
    message: /^operations "a" and "b" change the same bytes$/,
  },
  {
    name: 'a patch of bytes a relocation zeroes',
    ops: (a) => [
      {
        op: 'patch',
        id: 'p',
        component: { kind: 'path', path: 'data/sub/two.txt' },
        offset: 0,
        original: '68',
        replacement: '48',
      },
      replaceFile(a, 'r', 'data/sub/two.txt', fill(4, 0)),
    ],
    code: 'invalid-argument',
    message: /^operations "(p|r)" and "(p|r)" change the same bytes$/,
  },
];

for (const c of REFUSED) {
  test(`refused: ${c.name}`, async () => {
    const a = new Artifacts();
    const ops = c.ops(a, STALE);
    if (c.drop !== undefined) assert.ok(a.delete(c.drop), `${c.drop} was loaded`);
    await assert.rejects(
      plan(STALE, ops, a, { formatVersion: c.formatVersion, size: c.size }),
      (e: unknown) => {
        assert.ok(isReMcpError(e), String(e));
        assert.equal(e.code, c.code, e.message);
        assert.match(e.message, c.message);
        return true;
      },
    );
  });
}

test('addFntPath: new directories start at the new ID; a directory whose files end at the last ID grows', () => {
  const enc = (s: string) => new TextEncoder().encode(s);
  // root: "a" (dir 0xF001) and file "r.bin" (ID 0); a: files x (1), y (2).
  const dirs = (): FntDirectoryRecord[] => [
    {
      subOffset: 0,
      firstFileId: 0,
      parentField: 2,
      entries: [{ name: enc('a'), dirId: 0xf001 }, { name: enc('r.bin') }],
    },
    { subOffset: 0, firstFileId: 1, parentField: 0xf000, entries: [{ name: enc('x') }, { name: enc('y') }] },
  ];
  const files = [{ path: 'r.bin' }, { path: 'a/x' }, { path: 'a/y' }] as never;
  const names = (d: FntDirectoryRecord) => d.entries.map((e) => new TextDecoder().decode(e.name));

  const grown = dirs();
  assert.equal(addFntPath({ id: 'f', path: 'a/z' }, { files }, grown, 3), 3);
  assert.deepEqual(names(grown[1]!), ['x', 'y', 'z']);
  assert.equal(grown[1]!.firstFileId, 1);

  const nested = dirs();
  assert.equal(addFntPath({ id: 'f', path: 'n/m/k' }, { files }, nested, 3), 3);
  assert.deepEqual(
    nested.map((d) => [d.firstFileId, d.parentField, names(d)]),
    [
      [0, 2, ['a', 'r.bin', 'n']],
      [1, 0xf000, ['x', 'y']],
      [3, 0xf000, ['m']],
      [3, 0xf002, ['k']],
    ],
  );
  assert.equal(nested[0]!.entries[2]!.dirId, 0xf002);
  assert.equal(nested[2]!.entries[0]!.dirId, 0xf003);

  // The root's files (ID 0) do not end at the last ID: a new root file would renumber a/x and a/y.
  assert.throws(
    () => addFntPath({ id: 'f', path: 'new.bin' }, { files }, dirs(), 3),
    (e: unknown) => isReMcpError(e) && e.code === 'unsupported' && e.details?.directoryFirstFileId === 0,
  );
  assert.throws(
    () => addFntPath({ id: 'f', path: 'x' }, { files: [] as never }, [], 0),
    (e: unknown) => isReMcpError(e) && e.code === 'unsupported' && /no file name table/.test(e.message),
  );
  for (const bad of ['', 'a//b', '.', 'é', 'a\u0007b', 'x'.repeat(128)]) {
    assert.throws(
      () => addFntPath({ id: 'f', path: bad }, { files }, dirs(), 3),
      (e: unknown) => isReMcpError(e) && /bad path segment/.test(e.message),
      JSON.stringify(bad),
    );
  }
});

test('checkConflicts: touching edits pass and come back sorted; one shared byte is refused', () => {
  const piece = (offset: number, n: number, owner: string) => ({ offset, bytes: new Uint8Array(n), owner });
  const fixed = [piece(0x20, 4, 'b'), piece(0x10, 0x10, 'a'), piece(0x24, 1, 'c')];
  checkConflicts(fixed);
  assert.deepEqual(
    fixed.map((p) => p.owner),
    ['a', 'b', 'c'],
  );
  assert.throws(
    () => checkConflicts([piece(0x10, 0x11, 'a'), piece(0x20, 1, 'b')]),
    (e: unknown) => isReMcpError(e) && JSON.stringify(e.details?.operations) === '["a","b"]',
  );
});

test('oldPayload: zeroed only when nothing else the model names lies there', () => {
  const m = STALE.model;
  assert.deepEqual(oldPayload(m, 5, sourceEnd), {
    start: m.files[5]!.start,
    end: m.files[5]!.end,
    zeroed: true,
  });
  assert.equal(oldPayload(m, 3, sourceEnd).keptBecause, 'file 4 overlaps it');
  assert.equal(oldPayload(m, 6, m.files[6]!.end - 1).keptBecause, 'past the end of the source');
  const empty = { ...m, files: m.files.map((f) => (f.fileId === 5 ? { ...f, end: f.start } : f)) };
  assert.equal(oldPayload(empty, 5, sourceEnd).keptBecause, 'empty');
  const overFat = {
    ...m,
    files: m.files.map((f) => (f.fileId === 5 ? { ...f, start: m.header.fat.start } : f)),
  };
  assert.equal(oldPayload(overFat, 5, sourceEnd).keptBecause, 'the FAT overlaps it');
});

test('capacityFor: the smallest 128 KiB << n that holds the size', () => {
  const table: Array<[number, number]> = [
    [0, 0],
    [0x20000, 0],
    [0x20001, 1],
    [0x40000, 1],
    [0x40001, 2],
    [0x10000000, 11],
    [0xffffffff, 15],
  ];
  for (const [size, n] of table) assert.equal(capacityFor(size), n, `size ${size}`);
});
