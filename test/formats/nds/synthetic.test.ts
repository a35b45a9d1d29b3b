// Synthetic ROMs from the test builder cover what the real homebrew ROMs lack: NitroFS trees with
// unnamed, zero-length and shared entries; ARM9/ARM7 overlays (overlapping, BSS, compressed); module
// params with autoloads; a compressed ARM9; DSi unit codes; short files; appended data. Expectations
// come from the builder's own layout, never from the parser.
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
import { armBytesAt, loadArmProgram } from '../../kit/arm/index.js';
import { buildRom, type RomSpec } from '../../kit/rom-builder.js';
import { code7, code9, DTCM, fullSpec, ITCM, OV } from './specs.js';

function parse(spec: RomSpec) {
  const built = buildRom(spec);
  return { ...built, model: parseNdsRom(bufferSource(built.bytes)) };
}

const kinds = (m: NdsRomModel, offset: number) => resolveRomOffset(m, offset).map((o) => o.kind);

test('NitroFS: nested paths, unnamed, zero-length and shared entries are all kept', () => {
  const { layout, model } = parse(fullSpec);
  assert.deepEqual(
    model.files.map((f) => ({ fileId: f.fileId, path: f.path, start: f.start, end: f.end })),
    layout.files,
  );
  assert.deepEqual(model.directories.map((d) => d.path).sort(), layout.directories.map((d) => d.path).sort());
  const byPath = new Map(model.files.map((f) => [f.path, f]));
  assert.equal(byPath.get('data/empty.bin')!.start, byPath.get('data/empty.bin')!.end);
  assert.equal(byPath.get('alias.txt')!.start, byPath.get('readme.txt')!.start);
  assert.equal(model.files.filter((f) => f.path === null && f.overlays.length === 0).length, 2);
  // Overlay files are unnamed FAT entries that know their overlay.
  for (const o of layout.overlays) {
    assert.deepEqual(model.files[o.fileId]!.overlays, [{ processor: o.processor, id: o.id }]);
  }
  // A shared range has two file owners; the zero-length file owns no byte.
  const shared = byPath.get('readme.txt')!.start;
  const fileOwners = resolveRomOffset(model, shared).filter((o) => o.kind === 'file');
  assert.deepEqual(fileOwners.map((o) => o.path).sort(), ['alias.txt', 'readme.txt']);
});

test('overlays: table fields, overlapping ranges, BSS, compressed — runtime resolution', () => {
  const { layout, model } = parse(fullSpec);
  for (const o of layout.overlays) {
    const m = model.overlays[o.processor].find((x) => x.id === o.id)!;
    assert.deepEqual(m.file, o.file);
    assert.equal(m.fileId, o.fileId);
    assert.equal(m.ramSize, o.ramSize);
    assert.equal(m.bssSize, o.bssSize);
    assert.equal(m.compressed, o.compressed);
  }
  const [ov0, ov1, ov2] = layout.overlays;
  // Both ARM9 overlays 0 and 1 start at OV: ambiguous, every candidate returned.
  const amb = resolveRuntimeAddress(model, 'arm9', OV + 0x10);
  assert.equal(amb.status, 'ambiguous');
  assert.deepEqual(amb.candidates.map((c) => c.overlayId).sort(), [0, 1]);
  const c0 = amb.candidates.find((c) => c.overlayId === 0)!;
  assert.equal(c0.romOffset, ov0!.file.start + 0x10);
  assert.equal(c0.region, 'file-backed');
  const c1 = amb.candidates.find((c) => c.overlayId === 1)!;
  assert.equal(c1.romOffset, null);
  assert.equal(c1.region, 'initialized-derived');
  // overlayId only disambiguates statically.
  const only1 = resolveRuntimeAddress(model, 'arm9', OV + 0x10, 1);
  assert.equal(only1.status, 'compressed-overlay');
  assert.equal(only1.excludedByOverlayId, 1);
  const only0 = resolveRuntimeAddress(model, 'arm9', OV + 0x10, 0);
  assert.equal(only0.status, 'resolved');
  // An overlay ID the table does not have disambiguates nothing: refused, never "unmapped".
  assert.throws(
    () => resolveRuntimeAddress(model, 'arm9', OV + 0x10, 99),
    (e: unknown) => e instanceof ReMcpError && e.code === 'not-found',
  );
  // Past overlay 1's RAM (+BSS) but inside overlay 0's BSS.
  const bssAddress = OV + ov1!.ramSize + ov1!.bssSize + 4;
  assert.ok(bssAddress < OV + ov0!.ramSize + ov0!.bssSize);
  const bss = resolveRuntimeAddress(model, 'arm9', bssAddress);
  assert.equal(bss.status, 'bss');
  assert.equal(bss.candidates[0]!.romOffset, null);
  // Overlay 2's initialized extent is longer than its file: the tail has no ROM bytes.
  const tail = resolveRuntimeAddress(model, 'arm9', ov2!.ramAddress + 0x100 + 4);
  assert.equal(tail.status, 'resolved');
  assert.equal(tail.candidates[0]!.region, 'initialized-derived');
  assert.equal(tail.candidates[0]!.romOffset, null);
  const head = resolveRuntimeAddress(model, 'arm9', ov2!.ramAddress + 4);
  assert.equal(head.candidates[0]!.romOffset, ov2!.file.start + 4);
  // ARM7 overlays overlap too.
  const arm7 = resolveRuntimeAddress(model, 'arm7', 0x03800300);
  assert.equal(arm7.status, 'ambiguous');
  assert.equal(resolveRuntimeAddress(model, 'arm9', 0x05000000).status, 'unmapped');
  assert.equal(resolveRuntimeAddress(model, 'arm7', OV).status, 'unmapped');
});

test('overlays: ROM-offset direction (runtime address only for direct file-backed bytes)', () => {
  const { layout, model } = parse(fullSpec);
  const [ov0, ov1] = layout.overlays;
  const owners0 = resolveRomOffset(model, ov0!.file.start + 8);
  const o0 = owners0.find((o) => o.kind === 'overlay')!;
  assert.equal(o0.runtimeAddress, OV + 8);
  assert.ok(owners0.some((o) => o.kind === 'file' && o.fileId === ov0!.fileId && o.path === null));
  const o1 = resolveRomOffset(model, ov1!.file.start + 8).find((o) => o.kind === 'overlay')!;
  assert.equal(o1.compressed, true);
  assert.equal(o1.runtimeAddress, null);
  const table = resolveRomOffset(model, layout.arm9OverlayTable.start + 32 + 4).find(
    (o) => o.kind === 'overlay-table',
  )!;
  assert.equal(table.tableIndex, 1);
  assert.equal(table.processor, 'arm9');
});

test('module params, autoloads and structural regions in both directions', () => {
  const { layout, model } = parse(fullSpec);
  assert.equal(model.moduleParams.status, 'valid');
  assert.equal(model.moduleParams.offsetInArm9, layout.paramsOffset);
  assert.equal(model.nitrocodeFooter?.romOffset, layout.footerOffset);
  assert.deepEqual(
    model.autoloads?.map(({ index: _i, ...rest }) => rest),
    layout.autoloads,
  );
  const itcm = resolveRuntimeAddress(model, 'arm9', ITCM + 0x20);
  assert.equal(itcm.status, 'resolved');
  assert.equal(itcm.candidates[0]!.component, 'autoload');
  assert.equal(itcm.candidates[0]!.romOffset, layout.autoloads[0]!.romOffset! + 0x20);
  const back = resolveRomOffset(model, layout.autoloads[0]!.romOffset! + 0x20);
  assert.equal(back.find((o) => o.kind === 'autoload')?.runtimeAddress, ITCM + 0x20);
  assert.ok(back.some((o) => o.kind === 'main' && o.processor === 'arm9'));
  assert.equal(resolveRuntimeAddress(model, 'arm9', DTCM + 0x80 + 4).status, 'bss');
  assert.deepEqual(kinds(model, layout.footerOffset!), ['nitrocode-footer']);
  assert.deepEqual(kinds(model, layout.fnt.start + 3), ['fnt']);
  const fat = resolveRomOffset(model, layout.fat.start + 8 * 5 + 4);
  assert.equal(fat[0]!.kind, 'fat');
  assert.equal(fat[0]!.fileId, 5);
  assert.deepEqual(kinds(model, layout.banner!.start + 10), ['banner']);
  assert.deepEqual(kinds(model, 0x15e), ['header']);
  assert.deepEqual(kinds(model, 0x1000), ['header-padding']);
  // The padding counted in the used size belongs to nothing.
  assert.deepEqual(kinds(model, layout.usedSize - 1), ['unmapped']);
});

test('compressed main ARM9: params say so; decoded runtime bytes have no ROM offset', () => {
  const { layout, model } = parse({ ...fullSpec, arm9: { ...fullSpec.arm9, code: code9, compress: true } });
  assert.equal(model.arm9.compressed, true);
  assert.equal(model.arm9.decodedSize, layout.arm9.image.length);
  assert.equal(model.arm9.size, layout.arm9.rom.end - layout.arm9.rom.start);
  const ram = layout.arm9.ramAddress;
  const prefix = resolveRuntimeAddress(model, 'arm9', ram + 0x100);
  assert.equal(prefix.candidates[0]!.romOffset, layout.arm9.rom.start + 0x100);
  const deep = resolveRuntimeAddress(model, 'arm9', ram + layout.arm9.image.length - 0x40);
  assert.equal(deep.status, 'resolved');
  assert.equal(deep.candidates[0]!.region, 'initialized-derived');
  assert.equal(deep.candidates[0]!.romOffset, null);
  const stored = resolveRomOffset(model, layout.arm9.rom.end - 0x20).find((o) => o.kind === 'main')!;
  assert.equal(stored.compressed, true);
  assert.equal(stored.runtimeAddress, null);
  // The autoload list was read from the decoded image: blocks known, without ROM offsets.
  assert.deepEqual(
    model.autoloads?.map((a) => [a.ramAddress, a.codeSize, a.romOffset]),
    layout.autoloads.map((a) => [a.ramAddress, a.codeSize, null]),
  );
  assert.equal(resolveRuntimeAddress(model, 'arm9', ITCM).candidates[0]!.romOffset, null);
});

test('an uncompressed ARM9 is never judged compressed by its last bytes', () => {
  // Ends with bytes that look like a BLZ footer, but no module params say "compressed".
  const code = new Uint8Array(code9.subarray(0, 0x5000));
  code.set([0x10, 0x00, 0x00, 0x08, 0x00, 0x10, 0x00, 0x00], code.length - 8);
  const { model } = parse({ ...fullSpec, arm9: { code } });
  assert.equal(model.arm9.compressed, false);
  assert.equal(model.moduleParams.status, 'absent');
});

test('present-but-invalid footers are reported and never used to locate the params', () => {
  for (const footer of ['points-outside', 'no-magic-at-target'] as const) {
    const spec = {
      ...fullSpec,
      arm9: { ...fullSpec.arm9, moduleParams: { ...fullSpec.arm9.moduleParams, footer } },
    };
    const { layout, model } = parse(spec);
    assert.equal(model.nitrocodeFooter?.status, 'invalid');
    assert.notEqual(model.nitrocodeFooter?.moduleParamsOffset, layout.paramsOffset);
    // The params are believed only where their own magic words are (retail.test.ts covers the
    // search and its refusals); the footer's target is never used.
    assert.equal(model.moduleParams.offsetInArm9, layout.paramsOffset, footer);
    assert.equal(model.arm9.compressed, false);
    assert.ok(model.issues.some((i) => i.startsWith('nitrocode footer ignored')));
  }
});

test('DSi unit codes 2 and 3: ARM9i/ARM7i regions in both directions', () => {
  for (const unitCode of [2, 3]) {
    const spec: RomSpec = {
      ...fullSpec,
      unitCode,
      dsi: {
        arm9i: { data: code9.subarray(0, 0x800), ramAddress: 0x02400000 },
        arm7i: { data: code7.subarray(0, 0x400), ramAddress: 0x02e80000 },
      },
    };
    const { layout, model } = parse(spec);
    assert.equal(model.header.unitCode, unitCode);
    assert.deepEqual(model.dsi?.arm9i?.rom, layout.arm9i);
    assert.deepEqual(model.dsi?.arm7i?.rom, layout.arm7i);
    assert.equal(model.size.declaredEnd, layout.declaredEnd);
    const r = resolveRuntimeAddress(model, 'arm7', 0x02e80010);
    assert.equal(r.candidates[0]!.component, 'dsi-main');
    assert.equal(r.candidates[0]!.romOffset, layout.arm7i!.start + 0x10);
    assert.equal(resolveRomOffset(model, 0x300)[0]!.field, 'dsiExtended');
    assert.deepEqual(kinds(model, 0x1800), ['header-padding']);
    const back = resolveRomOffset(model, layout.arm9i!.start + 0x10).find((o) => o.kind === 'dsi-main');
    assert.equal(back?.runtimeAddress, 0x02400010);
  }
  const plain = parse({
    ...fullSpec,
    dsi: { arm9i: { data: new Uint8Array(16), ramAddress: 0x02400000 } },
    unitCode: 0,
  });
  assert.equal(plain.model.dsi, null, 'unit code 0 ignores the DSi fields');
});

test('short files and appended data are reported, not refused', () => {
  const short = parse({ ...fullSpec, truncate: 0x180 });
  assert.equal(short.model.size.shortBy, 0x180);
  assert.equal(short.model.size.physical, short.layout.size);
  assert.ok(short.model.issues.some((i) => i.includes('shorter')));
  const appended = parse({ ...fullSpec, appended: { length: 5000, seed: 9 } });
  assert.deepEqual(appended.model.size.appended, appended.layout.appended);
  assert.deepEqual(kinds(appended.model, appended.layout.appended!.start + 4999), ['appended']);
});

test('a ROM of the ARM kit programs: entry points resolve to the bytes the kit says are there', () => {
  const arm9 = loadArmProgram('arm9-analysis');
  const arm7 = loadArmProgram('arm7-analysis');
  const { bytes, model } = parse({
    arm9: { code: arm9.bytes, ramAddress: arm9.loadAddress, entry: arm9.entry },
    arm7: { code: arm7.bytes, ramAddress: arm7.loadAddress, entry: arm7.entry },
  });
  for (const program of [arm9, arm7]) {
    const r = resolveRuntimeAddress(model, program.processor, program.entry);
    assert.equal(r.status, 'resolved');
    const at = r.candidates[0]!.romOffset!;
    assert.deepEqual(bytes.subarray(at, at + 8), armBytesAt(program, program.entry, 8));
    assert.equal(model[program.processor].entryInside, true);
  }
});

test('the parser reads only the structures it needs, not the file data', () => {
  const { bytes } = buildRom({
    ...fullSpec,
    files: [...fullSpec.files!, { path: 'big/blob.bin', data: { length: 4 << 20, seed: 5 } }],
  });
  let read = 0;
  const source = {
    size: bytes.length,
    read(offset: number, length: number) {
      read += length;
      return bytes.subarray(offset, Math.min(bytes.length, offset + length));
    },
  };
  const model = parseNdsRom(source);
  assert.ok(model.files.some((f) => f.path === 'big/blob.bin' && f.end - f.start === 4 << 20));

  assert.ok(read < 16 * 1024, `read ${read} bytes of ${bytes.length}`);
});

test('ROM offsets in the header name the one field that owns them; an unmapped byte reports its whole gap', () => {
  const { layout, model } = parse(fullSpec);
  const field = (offset: number) =>
    resolveRomOffset(model, offset).map((o) => [o.field, o.range.start, o.range.end]);
  assert.deepEqual(field(0x20), [['arm9RomOffset', 0x20, 0x24]]);
  assert.deepEqual(field(0x25), [['arm9EntryAddress', 0x24, 0x28]]);
  assert.deepEqual(field(0x2b), [['arm9RamAddress', 0x28, 0x2c]]);
  assert.deepEqual(field(0x2f), [['arm9Size', 0x2c, 0x30]]);
  assert.deepEqual(field(0x34), [['arm7EntryAddress', 0x34, 0x38]]);
  assert.deepEqual(field(0x46), [['fntSize', 0x44, 0x48]]);
  assert.deepEqual(field(0x50), [['arm9OverlayTableOffset', 0x50, 0x54]]);
  const [gap] = resolveRomOffset(model, layout.usedSize - 1);
  assert.equal(gap.kind, 'unmapped');
  assert.ok(gap.range.start <= layout.usedSize - 1 && gap.range.end >= layout.usedSize);
  assert.ok(gap.range.end - gap.range.start > 1, JSON.stringify(gap.range));
  // The gap is maximal: the bytes just outside it are owned (or beyond the file).
  assert.notEqual(kinds(model, gap.range.start - 1)[0], 'unmapped');
  if (gap.range.end < model.size.physical) assert.notEqual(kinds(model, gap.range.end)[0], 'unmapped');
  // Every byte inside is the same gap.
  assert.deepEqual(resolveRomOffset(model, gap.range.start)[0].range, gap.range);
});
