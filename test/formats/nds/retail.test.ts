// Retail-like ROMs (what commercial dumps, DSi titles and patched images have and homebrew lacks),
// built with the test kit or byte-mutated from it: each valid variant parses with the right model,
// and a genuinely broken neighbour is still refused (invalid-rom naming the field) or not trusted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReMcpError } from '../../../src/core/errors.js';
import {
  bufferSource,
  type NdsRomModel,
  parseNdsRom,
  resolveRomOffset,
  resolveRuntimeAddress,
} from '../../../src/formats/nds/index.js';
import { buildRom, type RomLayout, type RomSpec } from '../../kit/rom-builder.js';
import { fixHeaderCrcs, getU32, putU16, putU32 } from '../../kit/rom-builder-parts.js';
import { code7, code9, fullSpec } from './specs.js';

const MAGIC = [0x21, 0x06, 0xc0, 0xde, 0xde, 0xc0, 0x06, 0x21];

function parseBytes(bytes: Uint8Array): NdsRomModel {
  fixHeaderCrcs(bytes);
  return parseNdsRom(bufferSource(bytes));
}

function built(spec: RomSpec, mutate?: (b: Uint8Array, l: RomLayout) => void) {
  const { bytes, layout } = buildRom(spec);
  mutate?.(bytes, layout);
  return { bytes, layout, model: parseBytes(bytes) };
}

function refusedWith(bytes: Uint8Array, field: string): void {
  assert.throws(
    () => parseBytes(bytes),
    (e: unknown) => {
      assert.ok(e instanceof ReMcpError, String(e));
      assert.equal(e.code, 'invalid-rom');
      assert.equal(e.details?.field, field, e.message);
      return true;
    },
  );
}

function withParams(footer: 'valid' | 'points-outside' | 'no-magic-at-target' | 'absent', compress = false) {
  return {
    ...fullSpec,
    arm9: { ...fullSpec.arm9, compress, moduleParams: { ...fullSpec.arm9.moduleParams, footer } },
  } satisfies RomSpec;
}

/** Every 4-aligned place of the params magic inside the stored ARM9. */
function magicAt(bytes: Uint8Array, l: RomLayout): number[] {
  const hits: number[] = [];
  for (let at = l.arm9.rom.start; at + 8 <= l.arm9.rom.end; at += 4) {
    if (MAGIC.every((b, k) => bytes[at + k] === b)) hits.push(at);
  }
  return hits;
}

test('retail layout: 0x4000 header, decrypted secure-area marker, ARM9 at 0x4000, footer right after it', () => {
  const code = new Uint8Array(code9.subarray(0, 0x6000));
  code.set([0xff, 0xde, 0xff, 0xe7, 0xff, 0xde, 0xff, 0xe7, 0xff, 0xde], 0);
  const { layout, model } = built({ ...fullSpec, arm9: { ...fullSpec.arm9, code, entry: 0x02000800 } });
  assert.equal(model.header.headerSize, 0x4000);
  assert.equal(model.arm9.romOffset, 0x4000);
  assert.equal(model.nitrocodeFooter?.romOffset, layout.arm9.rom.end);
  assert.equal(model.nitrocodeFooter?.status, 'valid');
  assert.equal(model.moduleParams.status, 'valid');
  assert.equal(model.moduleParams.offsetInArm9, layout.paramsOffset);
  // The secure area is ARM9 bytes like any other: it maps one-to-one and is not invented as code.
  const owners = resolveRomOffset(model, 0x4000).filter((o) => o.kind === 'main');
  assert.deepEqual(
    owners.map((o) => [o.processor, o.runtimeAddress]),
    [['arm9', 0x02000000]],
  );
  assert.deepEqual(
    resolveRomOffset(model, 0x1000).map((o) => o.kind),
    ['header-padding'],
  );
  assert.equal(resolveRuntimeAddress(model, 'arm9', 0x02000800).candidates[0]!.romOffset, 0x4800);
});

test('module params without a footer are located by their single magic occurrence', () => {
  const { layout, model } = built(withParams('absent'));
  assert.equal(layout.footerOffset, null);
  assert.equal(model.nitrocodeFooter, null);
  assert.equal(model.moduleParams.status, 'valid');
  assert.equal(model.moduleParams.offsetInArm9, layout.paramsOffset);
  assert.match(model.moduleParams.note ?? '', /magic words.*no nitrocode footer/);
  assert.deepEqual(
    model.autoloads?.map((a) => [a.ramAddress, a.codeSize, a.bssSize, a.romOffset]),
    layout.autoloads.map((a) => [a.ramAddress, a.codeSize, a.bssSize, a.romOffset]),
  );
});

test('a compressed ARM9 without a footer is still known to be compressed (decoded bytes have no ROM offset)', () => {
  const { layout, model } = built(withParams('absent', true));
  assert.equal(model.nitrocodeFooter, null);
  assert.equal(model.moduleParams.status, 'valid');
  assert.equal(
    model.moduleParams.compressedStaticEnd,
    layout.arm9.ramAddress + layout.arm9.rom.end - layout.arm9.rom.start,
  );
  assert.equal(model.arm9.compressed, true);
  assert.equal(model.arm9.decodedSize, layout.arm9.image.length);
  const deep = resolveRuntimeAddress(model, 'arm9', layout.arm9.ramAddress + layout.arm9.image.length - 4);
  assert.equal(deep.status, 'resolved');
  assert.equal(deep.candidates[0]!.region, 'initialized-derived');
  assert.equal(deep.candidates[0]!.romOffset, null);
  assert.equal(
    model.autoloads?.every((a) => a.romOffset === null),
    true,
  );
});

test('a footer pointing outside the ARM9 or at junk is reported invalid; the params are found by their magic', () => {
  for (const footer of ['points-outside', 'no-magic-at-target'] as const) {
    const { layout, model } = built(withParams(footer));
    assert.equal(model.nitrocodeFooter?.status, 'invalid', footer);
    assert.equal(model.moduleParams.status, 'valid', footer);
    assert.equal(model.moduleParams.offsetInArm9, layout.paramsOffset);
    assert.ok(
      model.issues.some((i) => i.startsWith('nitrocode footer ignored')),
      footer,
    );
    assert.equal(model.autoloads?.length, layout.autoloads.length);
  }
});

test('refused to guess: two magic occurrences are ambiguous; a junk footer with no magic anywhere stays invalid', () => {
  const twice = built(withParams('absent'), (b, l) => {
    const [params] = magicAt(b, l).map((at) => at - 28);
    b.copyWithin(l.arm9.rom.start + 0x1000, params!, params! + 36);
  });
  assert.equal(magicAt(twice.bytes, twice.layout).length, 2);
  assert.equal(twice.model.moduleParams.status, 'invalid');
  assert.match(twice.model.moduleParams.note ?? '', /2 times.*ambiguous/);
  assert.equal(twice.model.autoloads, null);
  assert.equal(twice.model.arm9.compressed, false);
  // Ambiguous params never decide compression: a compressed ARM9 then stays described by its stored bytes.
  const twiceCompressed = built(withParams('absent', true), (b, l) => {
    const [params] = magicAt(b, l).map((at) => at - 28);
    b.copyWithin(l.arm9.rom.start + 0x1000, params!, params! + 36);
  });
  assert.equal(twiceCompressed.model.moduleParams.status, 'invalid');
  assert.equal(twiceCompressed.model.arm9.compressed, false);

  const nowhere = built(withParams('no-magic-at-target'), (b, l) => {
    for (const at of magicAt(b, l)) b.fill(0, at, at + 8);
  });
  assert.equal(nowhere.model.nitrocodeFooter?.status, 'invalid');
  assert.equal(nowhere.model.moduleParams.status, 'invalid');
  assert.equal(nowhere.model.moduleParams.note, 'no magic words where the footer points');
  assert.equal(nowhere.model.autoloads, null);

  // Found by search but inconsistent (BSS start after BSS end): validated like footer-located params.
  const inconsistent = built(withParams('absent'), (b, l) => {
    const [magic] = magicAt(b, l);
    putU32(b, magic! - 28 + 12, 0xffffffff);
  });
  assert.equal(inconsistent.model.moduleParams.status, 'invalid');
  assert.equal(inconsistent.model.moduleParams.note, 'BSS start is after BSS end');
});

test('the homebrew ARM9s without params are not searched into params', () => {
  const { model } = built({
    arm9: { code: code9.subarray(0, 0x3000) },
    arm7: { code: code7.subarray(0, 0x800) },
  });
  assert.equal(model.moduleParams.status, 'absent');
  assert.equal(model.nitrocodeFooter, null);
});

test('an undefined unit code is reported, modelled as NDS, and does not excuse broken tables', () => {
  for (const unitCode of [1, 4, 0x80, 0xff]) {
    const { model } = built(fullSpec, (b) => {
      b[0x12] = unitCode;
    });
    assert.equal(model.header.unitCode, unitCode);
    assert.equal(model.dsi, null);
    assert.ok(
      model.issues.some((i) => i.startsWith(`unit code 0x${unitCode.toString(16)} `)),
      String(unitCode),
    );
    assert.equal(model.files.length, buildRom(fullSpec).layout.files.length);
  }
  const broken = buildRom(fullSpec).bytes;
  broken[0x12] = 1;
  putU32(broken, 0x20, broken.length + 0x1000);
  refusedWith(broken, 'arm9RomOffset');
});

test('device capacity up to 0x0C (512 MiB) and beyond is reported as stored', () => {
  for (const [capacity, bytes] of [
    [0x0c, 512 * 1024 * 1024],
    [0x0f, 4096 * 1024 * 1024],
    [0x10, null],
  ] as const) {
    const { model } = built(fullSpec, (b) => {
      b[0x14] = capacity;
    });
    assert.equal(model.header.deviceCapacity, capacity);
    assert.equal(model.header.capacityBytes, bytes);
  }
});

test('non-ASCII title bytes are kept byte-exact and never refused', () => {
  const { model } = built(fullSpec, (b) => {
    b.set([0x50, 0xe9, 0xc4, 0x80, 0x41, 0x00], 0);
  });
  assert.equal(model.header.titleHex.slice(0, 12), '50e9c4804100');
  assert.equal(model.header.title, '');
});

test('a title of printable junk before non-NUL bytes (an old devkitARM branch, 2E 00 00 EA) is empty', () => {
  const { model } = built(fullSpec, (b) => {
    b.set([0x2e, 0x00, 0x00, 0xea, 0, 0, 0, 0, 0, 0, 0, 0], 0);
  });
  assert.equal(model.header.titleHex, '2e0000ea0000000000000000');
  assert.equal(model.header.title, '');
  const { model: padded } = built(fullSpec, (b) => {
    b.set([0x48, 0x49, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 0);
  });
  assert.equal(padded.header.title, 'HI');
});

test('banner versions 1, 2, 3 and 0x103 give their sizes; an unknown one is reported', () => {
  const spec: RomSpec = {
    ...fullSpec,
    files: [...fullSpec.files!, { path: 'pad.bin', data: { length: 0x4000, seed: 4 } }],
  };
  for (const [version, size] of [
    [1, 0x840],
    [2, 0x940],
    [3, 0xa40],
    [0x103, 0x23c0],
  ] as const) {
    const { layout, model } = built(spec, (b, l) => putU16(b, l.banner!.start, version));
    assert.deepEqual(
      model.banner,
      { start: layout.banner!.start, end: layout.banner!.start + size },
      String(version),
    );
  }
  const unknown = built(spec, (b, l) => putU16(b, l.banner!.start, 0x0004));
  assert.equal(unknown.model.banner, null);
  assert.ok(unknown.model.issues.some((i) => i.includes('banner version 0x4')));
});

test('overlays: static initializers 0..0, file IDs out of order, ARM9 overlay files after the ARM7', () => {
  const { layout, model } = built(fullSpec, (b, l) => {
    // Swap the file IDs of ARM9 overlay 0 and ARM7 overlay 1: both tables stay valid.
    const a = l.arm9OverlayTable.start + 24;
    const c = l.arm7OverlayTable.start + 32 + 24;
    const x = getU32(b, a);
    putU32(b, a, getU32(b, c));
    putU32(b, c, x);
  });
  const arm7Ov1 = layout.overlays.find((o) => o.processor === 'arm7' && o.id === 1)!;
  const arm9Ov0 = layout.overlays.find((o) => o.processor === 'arm9' && o.id === 0)!;
  const m9 = model.overlays.arm9.find((o) => o.id === 0)!;
  assert.deepEqual(m9.staticInit, { start: 0, end: 0 });
  assert.equal(m9.fileId, arm7Ov1.fileId);
  assert.deepEqual(m9.file, arm7Ov1.file);
  assert.ok(m9.file.start > layout.arm7.rom.end, 'the ARM9 overlay file lies after the ARM7 binary');
  assert.deepEqual(model.files[arm7Ov1.fileId]!.overlays, [{ processor: 'arm9', id: 0 }]);
  assert.deepEqual(model.files[arm9Ov0.fileId]!.overlays, [{ processor: 'arm7', id: 1 }]);
  // Its file is shorter than its RAM size: only the file-backed prefix has ROM bytes.
  assert.equal(m9.fileBacked!.end - m9.fileBacked!.start, arm7Ov1.file.end - arm7Ov1.file.start);
  const back = resolveRomOffset(model, arm7Ov1.file.start + 4).find((o) => o.kind === 'overlay')!;
  assert.deepEqual([back.processor, back.overlayId, back.runtimeAddress], ['arm9', 0, m9.ramAddress + 4]);
});

test('an overlay file the FNT also names keeps both its path and its overlay', () => {
  const { layout, model } = built(fullSpec, (b, l) => {
    putU16(b, l.fnt.start + 4, 0); // the root's first file ID now names overlay file 0
  });
  const ov = layout.overlays.find((o) => o.fileId === 0)!;
  const file = model.files[0]!;
  assert.notEqual(file.path, null);
  assert.deepEqual(file.overlays, [{ processor: ov.processor, id: ov.id }]);
  const owners = resolveRomOffset(model, ov.file.start).map((o) => o.kind);
  assert.ok(owners.includes('overlay') && owners.includes('file'));
});

test('no NitroFS files: a root-only FNT, and FNT/FAT sizes of 0', () => {
  const spec: RomSpec = {
    arm9: { code: code9.subarray(0, 0x2000) },
    arm7: { code: code7.subarray(0, 0x800) },
  };
  const rootOnly = built(spec);
  assert.equal(rootOnly.model.files.length, 0);
  assert.deepEqual(
    rootOnly.model.directories.map((d) => [d.path, d.fileCount]),
    [['', 0]],
  );
  const empty = built(spec, (b) => {
    putU32(b, 0x44, 0);
    putU32(b, 0x4c, 0);
  });
  assert.equal(empty.model.files.length, 0);
  assert.equal(empty.model.directories.length, 0);
  // Still refused: a root that names a file while the FAT is empty.
  const { bytes, layout } = buildRom(spec);
  bytes.set([1, 0x41], layout.fnt.start + 8);
  refusedWith(bytes, 'fnt');
});

test('an absent overlay table may have offset 0 or any offset with size 0; it holds no bytes', () => {
  const spec: RomSpec = { ...fullSpec, arm7Overlays: [] };
  const zero = built(spec);
  assert.deepEqual(zero.model.header.arm7OverlayTable, { start: 0, end: 0 });
  assert.equal(zero.model.overlays.arm7.length, 0);
  for (const offset of [0x1234, 0xfffffff0]) {
    const { layout, model } = built(spec, (b) => {
      putU32(b, 0x58, offset);
      putU32(b, 0x5c, 0);
    });
    assert.equal(model.overlays.arm7.length, 0);
    // An empty table does not stretch the ROM's declared content.
    assert.equal(model.size.shortBy, 0, String(offset));
    assert.equal(model.size.declaredEnd, layout.declaredEnd);
    assert.ok(!resolveRomOffset(model, 0x1234).some((o) => o.kind === 'overlay-table'));
  }
  // Still refused: a non-empty table that does not fit.
  const { bytes } = buildRom(spec);
  putU32(bytes, 0x58, bytes.length - 16);
  putU32(bytes, 0x5c, 32);
  refusedWith(bytes, 'arm7OverlayTableOffset');
});

test('DSi-only title (unit 3) whose footer points at junk: params, DSi regions and size all modelled', () => {
  const { layout, model } = built({
    ...withParams('no-magic-at-target'),
    unitCode: 3,
    dsi: {
      arm9i: { data: code9.subarray(0, 0x800), ramAddress: 0x02400000 },
      arm7i: { data: code7.subarray(0, 0x400), ramAddress: 0x02e80000 },
    },
  });
  assert.equal(model.header.unitCode, 3);
  assert.equal(model.nitrocodeFooter?.status, 'invalid');
  assert.equal(model.moduleParams.status, 'valid');
  assert.deepEqual(model.dsi?.arm9i?.rom, layout.arm9i);
  assert.equal(model.size.declaredEnd, layout.declaredEnd);
  assert.equal(model.size.shortBy, 0);
});

test('secure area: the decrypted marker and zero fill are silent; other bytes may be KEY1-encrypted (reported only)', () => {
  const secureIssue = (m: NdsRomModel) => m.issues.some((i) => i.includes('secure area'));
  const withHead = (head: number[], entry = 0x02000800) => {
    const code = new Uint8Array(code9.subarray(0, 0x6000));
    code.fill(0, 0, 0x800);
    code.set(head, 0);
    return built({ ...fullSpec, arm9: { ...fullSpec.arm9, code, entry } }).model;
  };
  assert.equal(secureIssue(withHead([0xff, 0xde, 0xff, 0xe7, 0xff, 0xde, 0xff, 0xe7])), false);
  assert.equal(secureIssue(withHead([])), false);
  const encrypted = withHead([0x3d, 0x91, 0x7a, 0x05, 0xc2, 0x6e, 0x18, 0xb4]);
  assert.equal(secureIssue(encrypted), true);
  // Reported, not re-modelled: the ARM9 is still parsed and its bytes still resolve.
  assert.equal(resolveRuntimeAddress(encrypted, 'arm9', 0x02000800).candidates[0]!.romOffset, 0x4800);
  // An entry inside the first 2 KiB means those bytes are ordinary code, not a secure area.
  assert.equal(secureIssue(withHead([0x3d, 0x91, 0x7a, 0x05], 0x02000000)), false);
});

test('DSi modcrypt areas: covered ARM9i/ARM7i bytes get no ROM offset, the rest stays one-to-one', () => {
  const spec: RomSpec = {
    ...fullSpec,
    unitCode: 3,
    dsi: {
      arm9i: { data: code9.subarray(0, 0x800), ramAddress: 0x02400000 },
      arm7i: { data: code7.subarray(0, 0x400), ramAddress: 0x02e80000 },
    },
  };
  const { layout, model } = built(spec, (b, l) => {
    putU32(b, 0x220, l.arm9i!.start);
    putU32(b, 0x224, 0x400);
    putU32(b, 0x228, l.arm7i!.start);
    putU32(b, 0x22c, 0x400);
  });
  const a9 = layout.arm9i!;
  assert.deepEqual(model.dsi?.modcryptAreas, [
    { start: a9.start, end: a9.start + 0x400 },
    { start: layout.arm7i!.start, end: layout.arm7i!.start + 0x400 },
  ]);
  assert.deepEqual(model.dsi?.arm9i?.modcrypt, [{ start: a9.start, end: a9.start + 0x400 }]);
  const inside = resolveRuntimeAddress(model, 'arm9', 0x02400010).candidates[0]!;
  assert.deepEqual(
    [inside.component, inside.region, inside.romOffset],
    ['dsi-main', 'initialized-derived', null],
  );
  const after = resolveRuntimeAddress(model, 'arm9', 0x02400410).candidates[0]!;
  assert.deepEqual([after.region, after.romOffset], ['file-backed', a9.start + 0x410]);
  const arm7i = resolveRuntimeAddress(model, 'arm7', 0x02e80010).candidates[0]!;
  assert.equal(arm7i.romOffset, null);
  const back = (offset: number) =>
    resolveRomOffset(model, offset).find((o) => o.kind === 'dsi-main')!.runtimeAddress;
  assert.equal(back(a9.start + 0x10), null);
  assert.equal(back(a9.start + 0x410), 0x02400410);
  assert.equal(model.issues.filter((i) => i.includes('modcrypt')).length, 2);

  // An area that covers neither region (here: past the file) changes nothing.
  const elsewhere = built(spec, (b) => {
    putU32(b, 0x220, 0x7fff0000);
    putU32(b, 0x224, 0x4000);
  });
  assert.deepEqual(elsewhere.model.dsi?.arm9i?.modcrypt, []);
  assert.equal(
    resolveRuntimeAddress(elsewhere.model, 'arm9', 0x02400010).candidates[0]!.romOffset,
    a9.start + 0x10,
  );
  assert.ok(!elsewhere.model.issues.some((i) => i.includes('modcrypt')));
});

test('a repeated overlay ID is reported; each runtime candidate keeps its own record (file ID), never the first one', () => {
  const { layout, model } = built(fullSpec, (b, l) => {
    putU32(b, l.arm9OverlayTable.start + 2 * 32, 0); // the third ARM9 record now also says ID 0
  });
  assert.ok(
    model.issues.some((i) => i.startsWith('arm9 overlay ID 0 appears in 2 table records (indexes 0, 2)')),
  );
  const third = layout.overlays.filter((o) => o.processor === 'arm9')[2]!;
  const r = resolveRuntimeAddress(model, 'arm9', third.ramAddress + 4);
  assert.equal(r.status, 'resolved');
  assert.deepEqual(
    [r.candidates[0]!.overlayId, r.candidates[0]!.fileId, r.candidates[0]!.romOffset],
    [0, third.fileId, third.file.start + 4],
  );
  const first = layout.overlays.find((o) => o.processor === 'arm9' && o.id === 0)!;
  const c0 = resolveRuntimeAddress(model, 'arm9', first.ramAddress + 4, 0).candidates;
  assert.deepEqual(
    c0.map((c) => c.fileId),
    [first.fileId],
  );
  // Two records with one ID over the same RAM: a range that fits both records' extents does not
  // say which file backs it (null); one that fits a single record keeps that record's file.
  const same = built(fullSpec, (b, l) => {
    putU32(b, l.arm9OverlayTable.start + 2 * 32, 0);
    putU32(b, l.arm9OverlayTable.start + 2 * 32 + 4, first.ramAddress);
  });
  const both = resolveRuntimeAddress(same.model, 'arm9', first.ramAddress + 4, 0);
  assert.equal(both.status, 'ambiguous');
  assert.deepEqual(
    both.candidates.map((c) => [c.range.end - c.range.start, c.fileId]).sort((a, b) => a[0]! - b[0]!),
    [
      [third.file.end - third.file.start, null],
      [first.file.end - first.file.start, first.fileId],
    ],
  );
});

test('the DSi total used size counts only when the device capacity could hold it', () => {
  const spec: RomSpec = {
    ...fullSpec,
    unitCode: 2,
    dsi: { arm9i: { data: code9.subarray(0, 0x800), ramAddress: 0x02400000 } },
  };
  const sane = built(spec);
  assert.equal(sane.model.size.declaredEnd, sane.layout.declaredEnd);
  assert.ok(sane.model.size.declaredEnd > getU32(sane.bytes, 0x80), 'the DSi area is counted');
  const junk = built(spec, (b) => putU32(b, 0x210, 0xfffffff0));
  assert.equal(junk.model.size.shortBy, 0);
  assert.equal(junk.model.size.declaredEnd, junk.layout.usedSize);
  assert.ok(junk.model.issues.some((i) => i.startsWith('DSi total used size 0xfffffff0 exceeds')));
  // A trimmed DSi dump (the DSi area cut off) is still reported short, by what is really missing.
  const trimmed = built({ ...spec, truncate: 0x400 });
  assert.equal(trimmed.model.size.shortBy, 0x400);
});

test('a compressed ARM9 whose footer claims more than the decoded-image limit is reported, never decoded at parse', () => {
  // 4.5 MiB of ARM9 whose BLZ footer claims 32 MiB of extra size: within the 9x bound of its stream,
  // so a decode would allocate ~37 MiB for every cold parse of such a file.
  const size = 0x480000;
  const code = new Uint8Array(size);
  code.set(code9.subarray(0, 0x1000));
  const { model } = built({ ...fullSpec, arm9: { code, moduleParams: { offset: 0x800 } } }, (b, l) => {
    const blobLength = size;
    putU32(b, l.arm9.rom.start + 0x800 + 20, l.arm9.ramAddress + blobLength); // compressedStaticEnd
    const end = l.arm9.rom.start + blobLength;
    putU32(b, end - 8, (8 << 24) | (blobLength - 0x1000));
    putU32(b, end - 4, 32 * 1024 * 1024);
  });
  assert.equal(model.arm9.compressed, true);
  assert.equal(model.arm9.decodedSize, size + 32 * 1024 * 1024);
  assert.equal(model.autoloads, null);
  assert.ok(
    model.issues.some((i) => /compressed ARM9 would decode to \d+ bytes, over the \d+-byte limit/.test(i)),
    model.issues.join('\n'),
  );
});
