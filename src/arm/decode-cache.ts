// One operation's decode memory: every (code bytes, mode, address) goes through Capstone at most once,
// however many function CFGs walk it (shared tails, callees reached from several callers, a block that
// several windows cover). Pure: no I/O.
//
// Why a cached answer is exact: decoding is sequential without state (Thumb IT is refused before
// Capstone sees it), and what comes out at an address depends only on the bytes from there on: an
// ARM instruction reads 4 bytes, a Thumb one 2 (16-bit) or 4 (32-bit prefix). So with at least 4
// bytes left in the caller's window, the instruction (or the refusal: undecodable, architecture) is
// the same whatever the window. With fewer left, only a window that ends where the code ends gives
// the same answer (a 'truncated-instruction' there is real); a window cut earlier by a byte budget is
// decoded afresh, exactly as before. Results are shared objects: callers must not mutate them.
// Bounded by the operation: a miss decodes at most 2 x FILL_INSTRUCTIONS instructions, and misses
// happen only at addresses a CFG asks for, each inside its instruction budget.
import type { Processor } from '../core/vocabulary.js';
import type { CodeSpan, SpanDecoder } from './cfg.js';
import { decodeWindow } from './decoder.js';
import type { ArmMode, DecodedInstruction, DecodeStopReason, DecodeWindowResult } from './types.js';

/** A refusal remembered at one address. */
class Refusal {
  constructor(readonly reason: DecodeStopReason) {}
}

type Slot = DecodedInstruction | Refusal | undefined;

const PAGE_BITS = 10;
const PAGE = 1 << PAGE_BITS;

/** Slots by byte offset, in pages allocated on first use (a short operation touches a few pages). */
class Table {
  private readonly pages: Slot[][] = [];
  get(offset: number): Slot {
    return this.pages[offset >>> PAGE_BITS]?.[offset & (PAGE - 1)];
  }
  set(offset: number, slot: Slot): void {
    let page = this.pages[offset >>> PAGE_BITS];
    if (!page) {
      page = new Array<Slot>(PAGE);
      this.pages[offset >>> PAGE_BITS] = page;
    }
    page[offset & (PAGE - 1)] = slot;
  }
}

/** Instructions decoded per miss: enough to cover a typical block and its neighbour, little data. */
const FILL_INSTRUCTIONS = 16;
/** The longest ARM/Thumb instruction: a position with this many bytes left decodes window-free. */
const LONGEST = 4;

export class DecodeCache {
  /** Per code-bytes object (identity, not content), one table per mode indexed by byte offset. */
  private readonly tables = new WeakMap<Uint8Array, Partial<Record<ArmMode, Table>>>();
  /** Instructions Capstone decoded for this cache (figures for tests and benches). */
  decoded = 0;

  constructor(
    readonly processor: Processor,
    private readonly fill = FILL_INSTRUCTIONS,
  ) {}

  /** The cached equivalent of decodeWindow(span.bytes[at..end), at, mode, processor, max). */
  readonly decoder: SpanDecoder = (span, at, end, mode, max) => this.window(span, at, end, mode, max);

  async window(
    span: CodeSpan,
    at: number,
    end: number,
    mode: ArmMode,
    max: number,
  ): Promise<DecodeWindowResult> {
    const spanEnd = span.start + span.bytes.length;
    if (at < span.start || end > spanEnd || end < at) return this.fresh(span, at, end, mode, max);
    const table = this.table(span, mode);
    const instructions: DecodedInstruction[] = [];
    let p = at;
    while (instructions.length < max && p < end) {
      if (p + LONGEST > end && end < spanEnd) {
        // Cut by the caller's budget, not by the code: decode the tail as the window sees it.
        const r = await this.fresh(span, p, end, mode, max - instructions.length);
        for (const ins of r.instructions) instructions.push(ins);
        return { instructions, stop: r.stop };
      }
      let slot = table.get(p - span.start);
      if (slot === undefined) {
        await this.load(span, table, p, mode);
        slot = table.get(p - span.start);
        if (slot === undefined) return this.fresh(span, at, end, mode, max); // never expected
      }
      if (slot instanceof Refusal) return { instructions, stop: { reason: slot.reason, address: p } };
      instructions.push(slot);
      p += slot.size;
    }
    return { instructions, stop: null };
  }

  private table(span: CodeSpan, mode: ArmMode): Table {
    let byMode = this.tables.get(span.bytes);
    if (!byMode) {
      byMode = {};
      this.tables.set(span.bytes, byMode);
    }
    let table = byMode[mode];
    if (!table) {
      table = new Table();
      byMode[mode] = table;
    }
    return table;
  }

  /** Decodes from `p` (a miss) up to `fill` instructions, stopping early at code already decoded. */
  private async load(span: CodeSpan, table: Table, p: number, mode: ArmMode): Promise<void> {
    const spanEnd = span.start + span.bytes.length;
    const unit = mode === 'arm' ? 4 : 2;
    let end = Math.min(spanEnd, p + this.fill * 4);
    for (let q = p + LONGEST; q < end; q += unit) {
      if (table.get(q - span.start) !== undefined) {
        end = q;
        break;
      }
    }
    const r = await decodeWindow(
      span.bytes.subarray(p - span.start, end - span.start),
      p,
      mode,
      this.processor,
      this.fill * 2,
    );
    this.decoded += r.instructions.length;
    for (const ins of r.instructions) table.set(ins.address - span.start, ins);
    // A refusal is a fact of the bytes only when 4 bytes were there to decode, or the code ends there.
    if (r.stop && (r.stop.address + LONGEST <= end || end === spanEnd)) {
      table.set(r.stop.address - span.start, new Refusal(r.stop.reason));
    }
  }

  private async fresh(...[span, at, end, mode, max]: Parameters<SpanDecoder>): Promise<DecodeWindowResult> {
    const r = await decodeWindow(
      span.bytes.subarray(at - span.start, end - span.start),
      at,
      mode,
      this.processor,
      max,
    );
    this.decoded += r.instructions.length;
    return r;
  }
}
