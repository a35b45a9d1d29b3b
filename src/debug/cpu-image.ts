// The few facts each CPU's debugger needs from the canonical NDS model (taken from the RomStore, the
// same model every static tool uses): its entry point and the runtime range of its main binary, which
// seeds the breakpoint allowlist (for a BLZ-compressed ARM9, the decoded range: what actually runs),
// with the blocks its start-up code copies elsewhere to run (found by the static analysis).
import type { Processor } from '../core/vocabulary.js';
import type { NdsRomModel } from '../formats/nds/model.js';

/** A block the start-up code copies to where it runs (the static analysis proves it: copied-code). */
export interface CopiedRange {
  start: number;
  size: number;
  /** Where its bytes come from in the main binary. */
  source: number;
  /** The instruction that stored the first byte (the copy routine's store). */
  storedBy: number;
}

export interface CpuImage {
  entry: number;
  ramAddress: number;
  size: number;
  /** Executable too: the code the start-up path copies (ITCM, WRAM), at its run address. */
  copied: CopiedRange[];
}

export function cpuImage(model: NdsRomModel, processor: Processor, copied: CopiedRange[] = []): CpuImage {
  const exe = model[processor];
  return {
    entry: exe.entryAddress,
    ramAddress: exe.runtime.start,
    size: exe.runtime.end - exe.runtime.start,
    copied,
  };
}

/** The header title with non-printable characters shown as '?'. */
export function printableTitle(model: NdsRomModel): string {
  return model.header.title.replace(/[^\x20-\x7e]/g, '?');
}
