// The few facts each CPU's debugger needs from the canonical NDS model (taken from the RomStore, the
// same model every static tool uses): its entry point and the runtime range of its main binary, which
// seeds the breakpoint allowlist (for a BLZ-compressed ARM9, the decoded range: what actually runs).
import type { Processor } from '../core/vocabulary.js';
import type { NdsRomModel } from '../formats/nds/model.js';

export interface CpuImage {
  entry: number;
  ramAddress: number;
  size: number;
}

export function cpuImage(model: NdsRomModel, processor: Processor): CpuImage {
  const exe = model[processor];
  return {
    entry: exe.entryAddress,
    ramAddress: exe.runtime.start,
    size: exe.runtime.end - exe.runtime.start,
  };
}

/** The header title with non-printable characters shown as '?'. */
export function printableTitle(model: NdsRomModel): string {
  return model.header.title.replace(/[^\x20-\x7e]/g, '?');
}
