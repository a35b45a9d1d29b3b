// Symmetric formats: every byte-exact reader in formats/nds/raw has a writer, and parse -> write gives
// the stored bytes back, on every valid shared ROM and on the kit's ROMs. A whole ROM reassembled from
// the writers' output plus its untouched component bytes equals the original.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { bufferSource, parseNdsRom } from '../../../../src/formats/nds/index.js';
import { parseRawFat, writeRawFat } from '../../../../src/formats/nds/raw/fat.js';
import {
  layoutFntTables,
  parseFntTables,
  parseRawFnt,
  writeFntTables,
} from '../../../../src/formats/nds/raw/fnt.js';
import { parseRawHeader, sealHeaderCrcs, writeRawHeader } from '../../../../src/formats/nds/raw/header.js';
import {
  MODULE_PARAMS_SIZE,
  NITROCODE_FOOTER_SIZE,
  parseRawModuleParams,
  parseRawNitrocodeFooter,
  writeRawModuleParams,
  writeRawNitrocodeFooter,
} from '../../../../src/formats/nds/raw/module-params.js';
import { parseRawOverlayTable, writeRawOverlayTable } from '../../../../src/formats/nds/raw/overlay-table.js';
import { resolveComponent } from '../../../../src/formats/nds/selectors.js';
import { extractSpec } from '../../../extract/fixture.js';
import { buildRom } from '../../../kit/rom-builder.js';
import { INVALID_SHARED_ROM, sharedRomNames, sharedRomPath } from '../../../kit/shared-data.js';
import { fullSpec } from '../specs.js';

/** Header bytes the reader decodes; zeroed before writing back so the writer must supply them. */
const DECODED = [
  [0x00, 0x15],
  [0x1e, 0x20],
  [0x20, 0x60],
  [0x68, 0x6e],
  [0x70, 0x78],
  [0x80, 0x8c],
  [0x15c, 0x160],
] as const;

function roundTrip(name: string, bytes: Uint8Array): void {
  const model = parseNdsRom(bufferSource(bytes));
  const header = bytes.subarray(0, 0x200);
  const raw = parseRawHeader(header);
  const blanked = header.slice();
  for (const [a, b] of DECODED) blanked.fill(0, a, b);
  assert.deepEqual(writeRawHeader(blanked, raw), header, `${name}: header`);
  if (raw.headerCrcStored === raw.headerCrcComputed && raw.logoCrcStored === raw.logoCrcComputed) {
    const sealed = header.slice();
    sealed.fill(0, 0x15c, 0x160);
    sealHeaderCrcs(sealed);
    assert.deepEqual(sealed, header, `${name}: recomputed CRCs`);
  }
  const rebuilt = bytes.slice();
  rebuilt.set(writeRawHeader(blanked, raw), 0);
  const fatBytes = bytes.subarray(raw.fat.offset, raw.fat.offset + raw.fat.size);
  const fat = writeRawFat(parseRawFat(fatBytes));
  assert.deepEqual(fat, fatBytes, `${name}: FAT`);
  const fntBytes = bytes.subarray(raw.fnt.offset, raw.fnt.offset + raw.fnt.size);
  parseRawFnt(fntBytes, parseRawFat(fatBytes).length);
  const tables = parseFntTables(fntBytes);
  const fnt = writeFntTables(tables);
  assert.deepEqual(fnt, fntBytes, `${name}: FNT`);
  // The canonical layout of the same records names the same tree.
  const laid = writeFntTables(layoutFntTables(tables.directories));
  assert.deepEqual(
    [...parseRawFnt(laid, model.files.length).paths],
    [...parseRawFnt(fntBytes, model.files.length).paths],
    `${name}: FNT relayout`,
  );
  const ovTables = [raw.arm9OverlayTable, raw.arm7OverlayTable];
  const ovWritten = ovTables.map((t) => {
    const stored = bytes.subarray(t.offset, t.offset + t.size);
    const written = writeRawOverlayTable(parseRawOverlayTable(stored));
    assert.deepEqual(written, stored, `${name}: overlay table`);
    return written;
  });
  if (model.moduleParams.status === 'valid') {
    const at = model.arm9.romOffset + model.moduleParams.offsetInArm9!;
    const stored = bytes.subarray(at, at + MODULE_PARAMS_SIZE);
    assert.deepEqual(writeRawModuleParams(parseRawModuleParams(stored)), stored, `${name}: module params`);
    rebuilt.set(writeRawModuleParams(parseRawModuleParams(stored)), at);
  }
  if (model.nitrocodeFooter?.status === 'valid') {
    const at = model.nitrocodeFooter.romOffset;
    const stored = bytes.subarray(at, at + NITROCODE_FOOTER_SIZE);
    assert.deepEqual(writeRawNitrocodeFooter(parseRawNitrocodeFooter(stored)), stored, `${name}: footer`);
    rebuilt.set(writeRawNitrocodeFooter(parseRawNitrocodeFooter(stored)), at);
  }
  // Whole ROM: every table written back over a copy whose tables were zeroed.
  rebuilt.fill(0, raw.fat.offset, raw.fat.offset + raw.fat.size);
  rebuilt.fill(0, raw.fnt.offset, raw.fnt.offset + raw.fnt.size);
  rebuilt.set(fat, raw.fat.offset);
  rebuilt.set(fnt, raw.fnt.offset);
  ovTables.forEach((t, i) => {
    rebuilt.fill(0, t.offset, t.offset + t.size);
    rebuilt.set(ovWritten[i]!, t.offset);
  });
  assert.ok(Buffer.from(rebuilt).equals(Buffer.from(bytes)), `${name}: whole-ROM rebuild`);
  // Every component a selector names resolves, by file ID and by path alike.
  for (const f of model.files) {
    const byId = resolveComponent(model, { kind: 'file', fileId: f.fileId });
    assert.deepEqual(byId.rom, { start: f.start, end: f.end });
    if (f.path !== null) assert.deepEqual(resolveComponent(model, { kind: 'path', path: f.path }), byId);
  }
}

for (const name of sharedRomNames().filter((n) => n !== INVALID_SHARED_ROM)) {
  test(`${name}: parse -> write is byte-equal for every raw structure and the whole ROM`, () => {
    roundTrip(name, new Uint8Array(readFileSync(sharedRomPath(name))));
  });
}

for (const [name, spec] of [
  ['kit full', fullSpec],
  ['kit extract', extractSpec],
] as const) {
  test(`${name}: parse -> write is byte-equal for every raw structure and the whole ROM`, () => {
    roundTrip(name, buildRom(spec).bytes);
  });
}
