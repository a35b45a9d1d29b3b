// The runs the probes decode, kept until the walk decodes a block there: a candidate that passes its
// probe is walked next, over the same code, and takes the run instead of decoding it again. Bounded
// by PROBE_RUNS_MAX instructions (all dropped past it: a dropped run is decoded again, never changed).
import type { ArmMode, DecodedInstruction, DecodeWindowResult } from '../../arm/types.js';
import type { Processor } from '../../core/vocabulary.js';
import type { MapComponent } from './components.js';
import { decodeSpan } from './instructions.js';
import { placeKey, unitOf } from './walk-types.js';

/** Instructions of probe runs kept for the walk at most (about a MB; 4x as many took 5% more runs, on 4 MiB). */
const PROBE_RUNS_MAX = 1 << 13;

export class ProbeRuns {
  /** Per component by placeKey. */
  private runs: (Map<number, DecodeWindowResult> | undefined)[] = [];
  private instructions = 0;

  constructor(private readonly processor: Processor) {}

  /**
   * The code from `address` in `mode` up to its first PC write (at most 64 instructions), as a probe
   * reads it. None outside the component or at an address unaligned for the mode.
   */
  run(comp: MapComponent, address: number, mode: ArmMode): readonly DecodedInstruction[] {
    if (address < comp.start || address >= comp.end || address % unitOf(mode) !== 0) return [];
    const key = placeKey(mode, address);
    let runs = this.runs[comp.index];
    const kept = runs?.get(key);
    if (kept) return kept.instructions;
    const r = decodeSpan(comp, address, mode, this.processor, 64, true);
    if (this.instructions + r.instructions.length > PROBE_RUNS_MAX) {
      this.runs = [];
      this.instructions = 0;
      runs = undefined;
    }
    if (runs === undefined) {
      runs = new Map();
      this.runs[comp.index] = runs;
    }
    runs.set(key, r);
    this.instructions += r.instructions.length;
    return r.instructions;
  }

  /** The run at `address`, forgotten once taken (a block is decoded once). */
  take(comp: MapComponent, address: number, mode: ArmMode): DecodeWindowResult | undefined {
    const runs = this.runs[comp.index];
    if (runs === undefined || runs.size === 0) return undefined;
    const key = placeKey(mode, address);
    const r = runs.get(key);
    if (r === undefined) return undefined;
    runs.delete(key);
    this.instructions -= r.instructions.length;
    return r;
  }

  release(): void {
    this.runs = [];
    this.instructions = 0;
  }
}
