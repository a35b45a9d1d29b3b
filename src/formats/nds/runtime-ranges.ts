// Static runtime candidate ranges per processor: every range of runtime addresses the ROM can put
// bytes at (main executable, autoloads, overlays, DSi extensions), split by how the bytes arise:
// file-backed (one-to-one with ROM bytes), initialized-derived (decoded from compressed storage, or an
// initialized extent longer than its file), and BSS (runtime-only, no source bytes).
import type { Processor } from '../../core/vocabulary.js';
import type { DsiRegion, NdsRomModel, Overlay, RuntimeRange } from './model.js';

type Partial = Omit<RuntimeRange, 'processor'>;

function push(out: RuntimeRange[], processor: Processor, range: Partial): void {
  if (range.end > range.start) out.push({ processor, ...range });
}

function overlayRanges(out: RuntimeRange[], overlay: Overlay): void {
  const base = { component: 'overlay' as const, overlayId: overlay.id, autoloadIndex: null };
  const p = overlay.processor;
  if (overlay.fileBacked) {
    push(out, p, { ...base, kind: 'file-backed', ...overlay.fileBacked, romOffset: overlay.file.start });
    push(out, p, {
      ...base,
      kind: 'initialized-derived',
      start: overlay.fileBacked.end,
      end: overlay.initialized.end,
      romOffset: null,
    });
  } else {
    push(out, p, { ...base, kind: 'initialized-derived', ...overlay.initialized, romOffset: null });
  }
  push(out, p, { ...base, kind: 'bss', ...overlay.bss, romOffset: null });
}

/**
 * A DSi ARM9i/ARM7i region: file-backed, except the bytes a declared modcrypt area covers, which may be
 * stored encrypted and so are initialized-derived (runtime bytes without a ROM offset).
 */
function dsiRanges(out: RuntimeRange[], processor: Processor, region: DsiRegion): void {
  const base = { component: 'dsi-main' as const, overlayId: null, autoloadIndex: null };
  const toRuntime = (romOffset: number) => region.ramAddress + (romOffset - region.romOffset);
  let cursor = region.rom.start;
  const plain = (end: number) => {
    push(out, processor, {
      ...base,
      kind: 'file-backed',
      start: toRuntime(cursor),
      end: toRuntime(end),
      romOffset: cursor,
    });
  };
  for (const area of region.modcrypt) {
    if (area.start > cursor) plain(area.start);
    const start = Math.max(cursor, area.start);
    if (area.end > start) {
      push(out, processor, {
        ...base,
        kind: 'initialized-derived',
        start: toRuntime(start),
        end: toRuntime(area.end),
        romOffset: null,
      });
    }
    cursor = Math.max(cursor, area.end);
  }
  if (region.rom.end > cursor) plain(region.rom.end);
}

export function buildRuntimeRanges(model: NdsRomModel): { arm9: RuntimeRange[]; arm7: RuntimeRange[] } {
  const arm9: RuntimeRange[] = [];
  const arm7: RuntimeRange[] = [];
  const main = { component: 'main' as const, overlayId: null, autoloadIndex: null };
  for (const [out, exe] of [
    [arm9, model.arm9],
    [arm7, model.arm7],
  ] as const) {
    push(out, exe.processor, {
      ...main,
      kind: 'file-backed',
      ...exe.fileBackedRuntime,
      romOffset: exe.romOffset,
    });
    push(out, exe.processor, {
      ...main,
      kind: 'initialized-derived',
      start: exe.fileBackedRuntime.end,
      end: exe.runtime.end,
      romOffset: null,
    });
  }
  if (model.moduleParams.status === 'valid' && model.moduleParams.bss) {
    push(arm9, 'arm9', { ...main, kind: 'bss', ...model.moduleParams.bss, romOffset: null });
  }
  for (const block of model.autoloads ?? []) {
    const base = { component: 'autoload' as const, overlayId: null, autoloadIndex: block.index };
    const codeEnd = block.ramAddress + block.codeSize;
    push(arm9, 'arm9', {
      ...base,
      kind: block.romOffset === null ? 'initialized-derived' : 'file-backed',
      start: block.ramAddress,
      end: codeEnd,
      romOffset: block.romOffset,
    });
    push(arm9, 'arm9', {
      ...base,
      kind: 'bss',
      start: codeEnd,
      end: codeEnd + block.bssSize,
      romOffset: null,
    });
  }
  for (const overlay of model.overlays.arm9) overlayRanges(arm9, overlay);
  for (const overlay of model.overlays.arm7) overlayRanges(arm7, overlay);
  for (const [out, processor, region] of [
    [arm9, 'arm9', model.dsi?.arm9i],
    [arm7, 'arm7', model.dsi?.arm7i],
  ] as const) {
    if (region?.insideFile) dsiRanges(out, processor, region);
  }
  return { arm9, arm7 };
}
