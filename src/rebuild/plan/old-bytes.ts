// The old source bytes of a relocated payload (v2 replace-file, replace-overlay): zeroed and owned by
// the relocating operation, unless something else the model names still lies there.
import type { NdsRomModel } from '../../formats/nds/index.js';
import { HEADER_BASE_SIZE } from '../../formats/nds/raw/header.js';
import { type PlanState, range } from './state.js';
import type { PlannedOperation } from './types.js';

/** The header (the DSi header when there is one): never zeroed, whatever a FAT entry claims. */
const headerEnd = (model: NdsRomModel) => (model.dsi ? 0x1000 : HEADER_BASE_SIZE);

/**
 * The old source bytes of file `fileId`, which a relocating operation leaves unreferenced: zeroed
 * unless any other structure the model names overlaps them (another FAT entry, an executable with its
 * footer, a table, the banner, a DSi region, the header) or they lie past the source.
 */
export function oldPayload(
  model: NdsRomModel,
  fileId: number,
  sourceSize: number,
): { start: number; end: number; zeroed: boolean; keptBecause?: string } {
  const f = model.files[fileId]!;
  const keep = (keptBecause: string) => ({ start: f.start, end: f.end, zeroed: false, keptBecause });
  if (f.end <= f.start) return keep('empty');
  if (f.end > sourceSize) return keep('past the end of the source');
  const others: Array<[string, { start: number; end: number }]> = [
    ['the header', { start: 0, end: headerEnd(model) }],
    ['the ARM9 binary', { start: model.arm9.rom.start, end: model.arm9.rom.end + 12 }],
    ['the ARM7 binary', model.arm7.rom],
    ['the FNT', model.header.fnt],
    ['the FAT', model.header.fat],
    ['the ARM9 overlay table', model.header.arm9OverlayTable],
    ['the ARM7 overlay table', model.header.arm7OverlayTable],
  ];
  if (model.banner) others.push(['the banner', model.banner]);
  for (const r of [model.dsi?.arm9i, model.dsi?.arm7i]) if (r) others.push(['a DSi region', r.rom]);
  for (const o of model.files) if (o.fileId !== fileId) others.push([`file ${o.fileId}`, o]);
  for (const [what, r] of others) {
    if (r.end > r.start && r.start < f.end && r.end > f.start) return keep(`${what} overlaps it`);
  }
  return { start: f.start, end: f.end, zeroed: true };
}

/**
 * Zeroes file `fileId`'s old bytes when oldPayload allows it: a fixed zero edit owned by `owner`
 * (attributed like any edit; a patch of the same bytes is then a conflict). Zero-filled memory is not
 * touched until it is copied, so a large old payload costs no resident memory here.
 */
export function zeroOld(state: PlanState, owner: string, fileId: number): PlannedOperation['oldBytes'] {
  const old = oldPayload(state.model, fileId, state.sourceSize);
  if (old.zeroed) state.fixed.push({ offset: old.start, bytes: new Uint8Array(old.end - old.start), owner });
  return { ...range(old.start, old.end), zeroed: old.zeroed, keptBecause: old.keptBecause };
}
