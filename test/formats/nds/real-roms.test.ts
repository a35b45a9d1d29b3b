// Every real ROM in ../shared/roms goes through the model; its header fields and file list are
// compared with a minimal reader written here from GBATEK's header layout (not the product's code).
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { test } from 'node:test';
import { ReMcpError } from '../../../src/core/errors.js';
import {
  bufferSource,
  parseNdsRom,
  resolveRomOffset,
  resolveRuntimeAddress,
} from '../../../src/formats/nds/index.js';
import { kitCrc16 } from '../../kit/rom-builder-parts.js';
import { INVALID_SHARED_ROM, NO_ROMS, sharedRomNames, sharedRomPath } from '../../kit/shared-data.js';

const le32 = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset).getUint32(at, true);
const le16 = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset).getUint16(at, true);

/** The minimal independent reader: the header words GBATEK lists, and the FAT they point at. */
function minimalRead(bytes: Uint8Array) {
  const fatOffset = le32(bytes, 0x48);
  const fatSize = le32(bytes, 0x4c);
  const fat: Array<[number, number]> = [];
  for (let at = fatOffset; at < fatOffset + fatSize; at += 8)
    fat.push([le32(bytes, at), le32(bytes, at + 4)]);
  return {
    gameCode: String.fromCharCode(...bytes.subarray(0x0c, 0x10)),
    unitCode: bytes[0x12],
    arm9: {
      rom: le32(bytes, 0x20),
      entry: le32(bytes, 0x24),
      ram: le32(bytes, 0x28),
      size: le32(bytes, 0x2c),
    },
    arm7: {
      rom: le32(bytes, 0x30),
      entry: le32(bytes, 0x34),
      ram: le32(bytes, 0x38),
      size: le32(bytes, 0x3c),
    },
    fnt: { start: le32(bytes, 0x40), end: le32(bytes, 0x40) + le32(bytes, 0x44) },
    banner: le32(bytes, 0x68),
    used: le32(bytes, 0x80),
    headerCrc: le16(bytes, 0x15e),
    headerCrcComputed: kitCrc16(bytes.subarray(0, 0x15e)),
    fat,
  };
}

const validRoms = sharedRomNames().filter((n) => n !== INVALID_SHARED_ROM);

test('the shared ROM folder holds the expected ROMs', { skip: NO_ROMS }, () => {
  assert.ok(validRoms.length >= 7, `found ${validRoms.join(', ')}`);
  assert.ok(sharedRomNames().includes(INVALID_SHARED_ROM));
});

for (const name of validRoms) {
  test(`${name}: model agrees with an independent reading`, () => {
    const bytes = new Uint8Array(readFileSync(sharedRomPath(name)));
    const ref = minimalRead(bytes);
    const m = parseNdsRom(bufferSource(bytes));
    assert.equal(m.header.gameCode, ref.gameCode);
    assert.equal(m.header.unitCode, ref.unitCode);
    for (const p of ['arm9', 'arm7'] as const) {
      assert.equal(m[p].romOffset, ref[p].rom);
      assert.equal(m[p].entryAddress, ref[p].entry);
      assert.equal(m[p].ramAddress, ref[p].ram);
      assert.equal(m[p].size, ref[p].size);
      assert.deepEqual(m[p].runtime, { start: ref[p].ram, end: ref[p].ram + ref[p].size });
      // The entry byte resolves back to the executable's ROM bytes.
      const r = resolveRuntimeAddress(m, p, ref[p].entry);
      assert.equal(r.status, 'resolved');
      assert.equal(r.candidates[0]!.romOffset, ref[p].rom + (ref[p].entry - ref[p].ram));
    }
    assert.deepEqual(m.header.fnt, ref.fnt);
    assert.equal(m.header.bannerOffset, ref.banner);
    assert.equal(m.header.headerCrc.stored, ref.headerCrc);
    assert.equal(m.header.headerCrc.computed, ref.headerCrcComputed);
    assert.equal(m.size.physical, bytes.length);
    assert.equal(m.size.declaredUsed, ref.used);
    assert.deepEqual(
      m.files.map((f) => [f.start, f.end]),
      ref.fat,
    );
    assert.equal(m.moduleParams.status, 'absent', 'SOURCES.md: none of these has module params');
    assert.equal(m.arm9.compressed, false);
    // The ARM9's first byte is owned by the ARM9 main and maps to its RAM address.
    const owners = resolveRomOffset(m, ref.arm9.rom);
    const main = owners.find((o) => o.kind === 'main');
    assert.equal(main?.processor, 'arm9');
    assert.equal(main?.runtimeAddress, ref.arm9.ram);
    assert.equal(resolveRomOffset(m, 0x0c)[0]!.field, 'gameCode');
  });
}

test('matrix.nds: branch instruction in the title, file exactly as long as the used size', {
  skip: NO_ROMS,
}, () => {
  const bytes = new Uint8Array(readFileSync(sharedRomPath('matrix.nds')));
  const m = parseNdsRom(bufferSource(bytes));
  assert.equal(m.header.titleHex, Buffer.from(bytes.subarray(0, 12)).toString('hex'));
  assert.equal(bytes[3], 0xea, 'an ARM branch opcode byte sits in the title');
  assert.equal(m.header.title, '', 'printable junk before the branch is not a title');
  assert.equal(m.arm9.romOffset, 0x200);
  assert.equal(m.arm7.ramAddress, 0x037f8000);
  assert.equal(m.size.shortBy, 0);
  assert.equal(m.size.appended, null);
});

test('multi-simple.nds: DSi-enhanced, 31,680 bytes after the NDS used size hold the DSi area', {
  skip: NO_ROMS,
}, () => {
  const bytes = new Uint8Array(readFileSync(sharedRomPath('multi-simple.nds')));
  const m = parseNdsRom(bufferSource(bytes));
  assert.equal(m.header.unitCode, 2);
  assert.equal(bytes.length - m.size.declaredUsed, 31_680);
  assert.ok(m.dsi);
  assert.equal(m.dsi.totalUsedSize, le32(bytes, 0x210));
  assert.equal(m.dsi.arm7i?.romOffset, le32(bytes, 0x1d0));
  assert.equal(m.dsi.arm7i?.size, le32(bytes, 0x1dc));
  assert.equal(m.arm9.ramAddress, 0x02004000);
  assert.equal(m.arm9.entryAddress, 0x02004800);
  const inArm7i = le32(bytes, 0x1d0) + 4;
  const owner = resolveRomOffset(m, inArm7i).find((o) => o.kind === 'dsi-main');
  assert.equal(owner?.processor, 'arm7');
  assert.equal(owner?.runtimeAddress, le32(bytes, 0x1d8) + 4);
});

test('dslua-pack.nds: 239,072 appended bytes are reported, not refused', { skip: NO_ROMS }, () => {
  const path = sharedRomPath('dslua-pack.nds');
  const m = parseNdsRom(bufferSource(new Uint8Array(readFileSync(path))));
  assert.ok(m.size.appended);
  assert.equal(m.size.appended.end - m.size.appended.start, 239_072);
  assert.equal(m.size.appended.end, statSync(path).size);
  const owners = resolveRomOffset(m, m.size.appended.start + 100);
  assert.deepEqual(
    owners.map((o) => o.kind),
    ['appended'],
  );
});

test('the supercard-patched image is refused with invalid-rom naming the bad field, and what the file is', {
  skip: NO_ROMS,
}, () => {
  const bytes = new Uint8Array(readFileSync(sharedRomPath(INVALID_SHARED_ROM)));
  // Independently: its ARM9 ROM offset word points far beyond the file, and it starts with a branch.
  assert.ok(le32(bytes, 0x20) > bytes.length);
  assert.equal(bytes[3], 0xea);
  assert.throws(
    () => parseNdsRom(bufferSource(bytes)),
    (e: unknown) =>
      e instanceof ReMcpError &&
      e.code === 'invalid-rom' &&
      e.details?.field === 'arm9RomOffset' &&
      /flash-cart build, e\.g\. a SuperCard \.sc\.nds/.test(e.message),
  );
  // A refused file that does not start with a branch gets no such hint.
  const other = bytes.slice();
  other.set([0x54, 0x45, 0x53, 0x54]);
  assert.throws(
    () => parseNdsRom(bufferSource(other)),
    (e: unknown) => e instanceof ReMcpError && e.code === 'invalid-rom' && !/flash-cart/.test(e.message),
  );
});
