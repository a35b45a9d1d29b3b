// One map's decode memory: every (component, mode, address) goes through Capstone once while it is
// remembered, however many probes, idiom checks and walks look at it. Bounded: past MAX_ENTRIES the
// oldest half is forgotten (and decoded again if asked). Exact for the same reasons as arm/decode-cache.ts:
// what decodes at an address depends only on the bytes from there (Thumb IT is refused before Capstone
// sees it), and a refusal is remembered only where at least 4 bytes were there or the component ends.
import { decodeWindow } from '../../arm/decoder.js';
import type { ArmMode, DecodedInstruction, DecodeStopReason } from '../../arm/types.js';
import type { Processor } from '../../core/vocabulary.js';

/** Instructions (and refusals) remembered at once, across the map's components. */
export const MAX_ENTRIES = 262_144;
/** Instructions decoded per miss. */
const FILL = 16;
const LONGEST = 4;

class Refusal {
  constructor(readonly reason: DecodeStopReason) {}
}

export interface MemoSpan {
  index: number;
  start: number;
  end: number;
  bytes: Uint8Array;
}

export class DecodeMemo {
  private readonly slots = new Map<number, DecodedInstruction | Refusal>();
  /** Instructions Capstone decoded (figures for benches). */
  decoded = 0;

  constructor(readonly processor: Processor) {}

  private key(comp: MemoSpan, mode: ArmMode, address: number): number {
    return (comp.index * 2 + (mode === 'arm' ? 0 : 1)) * 0x1_0000_0000 + address;
  }

  /**
   * Up to `max` instructions decoded straight from `address` in `comp` (fewer at a refusal or the
   * component's end), and why it stopped early.
   */
  async run(
    comp: MemoSpan,
    address: number,
    mode: ArmMode,
    max: number,
  ): Promise<{
    instructions: DecodedInstruction[];
    stop: { reason: DecodeStopReason; address: number } | null;
  }> {
    const instructions: DecodedInstruction[] = [];
    let at = address;
    while (instructions.length < max && at < comp.end) {
      let slot = this.slots.get(this.key(comp, mode, at));
      if (slot === undefined) {
        await this.fill(comp, at, mode);
        slot = this.slots.get(this.key(comp, mode, at));
        if (slot === undefined) break;
      }
      if (slot instanceof Refusal) return { instructions, stop: { reason: slot.reason, address: at } };
      instructions.push(slot);
      at += slot.size;
    }
    return { instructions, stop: null };
  }

  private async fill(comp: MemoSpan, at: number, mode: ArmMode): Promise<void> {
    const unit = mode === 'arm' ? 4 : 2;
    let end = Math.min(comp.end, at + FILL * 4);
    for (let q = at + LONGEST; q < end; q += unit) {
      if (this.slots.has(this.key(comp, mode, q))) {
        end = q;
        break;
      }
    }
    const r = await decodeWindow(
      comp.bytes.subarray(at - comp.start, end - comp.start),
      at,
      mode,
      this.processor,
      FILL * 2,
    );
    this.decoded += r.instructions.length;
    if (this.slots.size + r.instructions.length + 1 > MAX_ENTRIES) this.forget();
    for (const ins of r.instructions) this.slots.set(this.key(comp, mode, ins.address), ins);
    if (r.stop && (r.stop.address + LONGEST <= end || end === comp.end)) {
      this.slots.set(this.key(comp, mode, r.stop.address), new Refusal(r.stop.reason));
    } else if (r.stop) {
      // Cut by this fill's window, not by the bytes: decode from there on its own.
      const tail = await decodeWindow(
        comp.bytes.subarray(
          r.stop.address - comp.start,
          Math.min(comp.end, r.stop.address + LONGEST) - comp.start,
        ),
        r.stop.address,
        mode,
        this.processor,
        1,
      );
      this.decoded += tail.instructions.length;
      const first = tail.instructions[0];
      if (first) this.slots.set(this.key(comp, mode, first.address), first);
      else if (tail.stop)
        this.slots.set(this.key(comp, mode, tail.stop.address), new Refusal(tail.stop.reason));
    }
  }

  /** Drops the older half (Map iteration is insertion order). */
  private forget(): void {
    let n = this.slots.size >>> 1;
    for (const k of this.slots.keys()) {
      if (n-- <= 0) break;
      this.slots.delete(k);
    }
  }
}
