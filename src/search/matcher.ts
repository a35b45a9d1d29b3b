// The in-memory matcher: every match start inside one chunk. The anchor (see chooseAnchor: the whole
// pattern when it has no wildcard, else a short run of rare exact bytes) is located with
// Buffer.indexOf, which is native and skips most bytes without touching them in JavaScript; only anchor
// hits reach JavaScript, where the remaining exact bytes are verified, rarest first.
// When the anchor turns out to be very frequent in a chunk (e.g. "00 ?? 12" over zero padding), the
// per-call cost of indexOf would dominate, so the rest of that chunk is scanned with a plain loop.
//
// The work is bounded, not only the bytes: one scan() call stops after about `quota` work units
// (bytes searched natively, bytes compared in JavaScript) and says where to resume, so the caller can
// yield to the event loop and check cancellation; `verifyWork` counts JavaScript comparisons so the
// caller can cap a pathological pattern (thousands of exact bytes verified per candidate).
import { type CompiledPattern, rarity } from './pattern.js';

/** Receives an absolute match start; returns false to stop the scan. */
export type HitSink = (offset: number) => boolean;

/** done: every start was tested; stopped: the sink asked to stop; paused: resume at `next`. */
export type ScanState = { kind: 'done' } | { kind: 'stopped' } | { kind: 'paused'; next: number };

/** Every this many anchor candidates in one chunk, check the density... */
const DENSE_CHECK_EVERY = 1024;
/** ...and fall back to the loop when candidates are closer than this many bytes on average. */
const DENSE_SPACING = 32;
/** One native indexOf call searches at most this many bytes, so a call's cost stays bounded. */
const FIND_WINDOW = 1024 * 1024;

const DONE: ScanState = { kind: 'done' };
const STOPPED: ScanState = { kind: 'stopped' };

export class ChunkMatcher {
  readonly length: number;
  private readonly anchor: Buffer;
  private readonly anchorStart: number;
  /** Single-byte anchors use indexOf(number), the memchr path. */
  private readonly anchorByte: number;
  /** Exact positions outside the anchor (rarest byte first), with their required values. */
  private readonly checkPos: Int32Array;
  private readonly checkVal: Uint8Array;
  private readonly alignment: number;
  /** JavaScript byte comparisons made so far (verification of candidates), over all calls. */
  verifyWork = 0;
  /** Work units of the current scan() call. */
  private used = 0;

  constructor(pattern: CompiledPattern) {
    this.length = pattern.bytes.length;
    this.anchorStart = pattern.anchorStart;
    this.anchor = Buffer.from(
      pattern.bytes.subarray(pattern.anchorStart, pattern.anchorStart + pattern.anchorLength),
    );
    this.anchorByte = pattern.anchorLength === 1 ? pattern.bytes[pattern.anchorStart]! : -1;
    const pos: number[] = [];
    for (let i = 0; i < this.length; i++) {
      const inAnchor = i >= pattern.anchorStart && i < pattern.anchorStart + pattern.anchorLength;
      if (!inAnchor && (pattern.mask === null || pattern.mask[i] === 1)) pos.push(i);
    }
    // A rare byte is the likeliest to mismatch: test it first (stable, so ties keep their order).
    pos.sort((x, y) => rarity(pattern.bytes[y]!) - rarity(pattern.bytes[x]!));
    this.checkPos = Int32Array.from(pos);
    this.checkVal = Uint8Array.from(pos, (i) => pattern.bytes[i]!);
    this.alignment = pattern.alignment;
  }

  /**
   * Reports every start s (ascending) with from <= s and s + length <= data.length, as `base + s`,
   * until about `quota` work units are spent (then 'paused' with the next start to test).
   */
  scan(data: Uint8Array, base: number, sink: HitSink, from = 0, quota = Number.POSITIVE_INFINITY): ScanState {
    const lastStart = data.length - this.length;
    if (lastStart < from) return DONE;
    this.used = 0;
    const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const a = this.anchorStart;
    const n = this.anchor.length;
    // The anchor of the last possible start ends here; searching beyond it is wasted work.
    const anchorLimit = lastStart + a;
    const searchEnd = anchorLimit + n;
    let candidates = 0;
    let checkedAt = from + a;
    let q = from + a;
    while (q <= anchorLimit) {
      if (this.used >= quota) return { kind: 'paused', next: q - a };
      const windowEnd = Math.min(searchEnd, q + FIND_WINDOW + n - 1);
      const found = this.find(buf, q, windowEnd);
      if (found === -1) {
        this.used += windowEnd - q;
        q = windowEnd - n + 1;
        continue;
      }
      this.used += found - q + n;
      const s = found - a;
      if (this.verify(data, s) && (this.alignment === 1 || (base + s) % this.alignment === 0)) {
        if (!sink(base + s)) return STOPPED;
      }
      if (++candidates % DENSE_CHECK_EVERY === 0) {
        if (found - checkedAt < DENSE_CHECK_EVERY * DENSE_SPACING)
          return this.loop(data, s + 1, lastStart, base, sink, quota);
        checkedAt = found;
      }
      q = found + 1;
    }
    return DONE;
  }

  /** The first anchor position in [from, end - anchor length], or -1. */
  private find(buf: Buffer, from: number, end: number): number {
    const window = buf.subarray(from, end);
    const at = this.anchorByte >= 0 ? window.indexOf(this.anchorByte) : window.indexOf(this.anchor);
    return at === -1 ? -1 : from + at;
  }

  private verify(data: Uint8Array, s: number): boolean {
    const pos = this.checkPos;
    const val = this.checkVal;
    let k = 0;
    while (k < pos.length && data[s + pos[k]!] === val[k]) k++;
    this.verifyWork += k + 1;
    this.used += k + 1;
    return k === pos.length;
  }

  /** Plain scan of starts [from, lastStart]: the anchor first, then the other exact bytes. */
  private loop(
    data: Uint8Array,
    from: number,
    lastStart: number,
    base: number,
    sink: HitSink,
    quota: number,
  ): ScanState {
    const anchor = this.anchor;
    const a = this.anchorStart;
    const n = anchor.length;
    const first = anchor[0]!;
    for (let s = from; s <= lastStart; s++) {
      if (this.used >= quota) return { kind: 'paused', next: s };
      this.used++;
      if (data[s + a] !== first) continue;
      let k = 1;
      while (k < n && data[s + a + k] === anchor[k]) k++;
      this.used += k;
      this.verifyWork += k;
      if (k < n || !this.verify(data, s)) continue;
      if (this.alignment !== 1 && (base + s) % this.alignment !== 0) continue;
      if (!sink(base + s)) return STOPPED;
    }
    return DONE;
  }
}
