// The map's recent instructions: a direct-mapped cache of decoded instructions by (component, mode,
// address), so the walk, the probes and the idiom checks that look at the same code again and again
// share one object per instruction instead of decoding it each time. Fixed size (SLOTS entries, a few
// MB whatever the program's size): a slot holds the last instruction that hashed to it. Exact for the
// reasons the decoder's templates are: what decodes at an address depends only on the bytes from there,
// and a refusal is kept only where the instruction's bytes were all there (not at a window's cut).
import { decodeRange, decodeRangeSync } from '../../arm/decoder.js';
import type { ArmMode, DecodedInstruction, DecodeStopReason, DecodeWindowResult } from '../../arm/types.js';
import type { Processor } from '../../core/vocabulary.js';

const SLOTS = 1 << 16;
const LONGEST = 4;

class Refusal {
  constructor(readonly reason: DecodeStopReason) {}
}

/** The bytes a cache entry belongs to: one component of one map. */
export interface CacheSpan {
  index: number;
  start: number;
  bytes: Uint8Array;
}

export class InstructionCache {
  /** Component index * 2 + mode bit, per slot; -1 when empty. */
  private readonly owners = new Int32Array(SLOTS).fill(-1);
  private readonly addresses = new Float64Array(SLOTS);
  private readonly values: (DecodedInstruction | Refusal | undefined)[] = new Array(SLOTS);

  constructor(readonly processor: Processor) {}

  private slot(owner: number, address: number): number {
    return (Math.imul(address >>> 1, 0x9e3779b1) ^ Math.imul(owner, 0x85ebca6b)) >>> 16;
  }

  /**
   * Up to `max` instructions from `address` of `span` (fewer at a refusal or the span's end), as
   * decodeWindow over the rest of the span gives them.
   */
  async run(span: CacheSpan, address: number, mode: ArmMode, max: number): Promise<DecodeWindowResult> {
    return this.walk(span, address, mode, max) ?? (await this.walkAsync(span, address, mode, max));
  }

  /** run() without waiting: null when an encoding on the way needs Capstone first. */
  runSync(span: CacheSpan, address: number, mode: ArmMode, max: number): DecodeWindowResult | null {
    return this.walk(span, address, mode, max);
  }

  private async walkAsync(
    span: CacheSpan,
    address: number,
    mode: ArmMode,
    max: number,
  ): Promise<DecodeWindowResult> {
    const owner = span.index * 2 + (mode === 'arm' ? 0 : 1);
    const o = address - span.start;
    const cut = Math.min(span.bytes.length, o + 4 * max);
    const r = await decodeRange(span.bytes, o, cut, address, mode, this.processor, max);
    this.keep(owner, span, cut, r);
    return r;
  }

  /** Remembers a run's instructions, and its refusal when the instruction's bytes were all in the run. */
  private keep(owner: number, span: CacheSpan, cut: number, r: DecodeWindowResult): void {
    for (const ins of r.instructions) this.put(owner, ins.address, ins);
    if (r.stop && (r.stop.address + LONGEST <= span.start + cut || cut === span.bytes.length))
      this.put(owner, r.stop.address, new Refusal(r.stop.reason));
  }

  /** From cached instructions and the decoder's known encodings; null at one it has not seen. */
  private walk(span: CacheSpan, address: number, mode: ArmMode, max: number): DecodeWindowResult | null {
    const owner = span.index * 2 + (mode === 'arm' ? 0 : 1);
    const end = span.start + span.bytes.length;
    const instructions: DecodedInstruction[] = [];
    let at = address;
    while (instructions.length < max && at < end) {
      const i = this.slot(owner, at);
      if (this.owners[i] === owner && this.addresses[i] === at) {
        const v = this.values[i]!;
        if (v instanceof Refusal) return { instructions, stop: { reason: v.reason, address: at } };
        instructions.push(v);
        at += v.size;
        continue;
      }
      // Not cached: the decoder, for the rest of the run.
      const o = at - span.start;
      const want = max - instructions.length;
      const cut = Math.min(span.bytes.length, o + 4 * want);
      const r = decodeRangeSync(span.bytes, o, cut, at, mode, this.processor, want);
      if (r === null) return null;
      this.keep(owner, span, cut, r);
      for (const ins of r.instructions) instructions.push(ins);
      return { instructions, stop: r.stop };
    }
    return { instructions, stop: null };
  }

  /** Forgets every instruction (the cache refills on use). */
  clear(): void {
    this.owners.fill(-1);
    this.values.fill(undefined);
  }

  private put(owner: number, address: number, value: DecodedInstruction | Refusal): void {
    const i = this.slot(owner, address);
    this.owners[i] = owner;
    this.addresses[i] = address;
    this.values[i] = value;
  }
}
