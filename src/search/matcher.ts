// The in-memory matcher: every match start inside one chunk. A short run of exact bytes (the anchor,
// see chooseAnchor) is located with Buffer.indexOf, which is native (memchr on the anchor's first byte,
// then a compare) and skips most bytes without touching them in JavaScript; only anchor hits reach
// JavaScript, where the remaining exact bytes are verified.
// When the anchor turns out to be very frequent in a chunk (e.g. "00 ?? 12" over zero padding), the
// per-call cost of indexOf would dominate, so the rest of that chunk is scanned with a plain loop.
import type { CompiledPattern } from './pattern.js';

/** Receives an absolute match start; returns false to stop the scan. */
export type HitSink = (offset: number) => boolean;

/** Every this many anchor candidates in one chunk, check the density... */
const DENSE_CHECK_EVERY = 1024;
/** ...and fall back to the loop when candidates are closer than this many bytes on average. */
const DENSE_SPACING = 32;

export class ChunkMatcher {
  readonly length: number;
  private readonly anchor: Buffer;
  private readonly anchorStart: number;
  /** Single-byte anchors use indexOf(number), the memchr path. */
  private readonly anchorByte: number;
  /** Exact positions outside the anchor, with their required values. */
  private readonly checkPos: Int32Array;
  private readonly checkVal: Uint8Array;
  private readonly alignment: number;

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
    this.checkPos = Int32Array.from(pos);
    this.checkVal = Uint8Array.from(pos, (i) => pattern.bytes[i]!);
    this.alignment = pattern.alignment;
  }

  /**
   * Reports every start s (ascending) with s + length <= data.length, as `base + s`. Returns false when
   * the sink asked to stop.
   */
  scan(data: Uint8Array, base: number, sink: HitSink): boolean {
    const lastStart = data.length - this.length;
    if (lastStart < 0) return true;
    const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const a = this.anchorStart;
    // The anchor of the last possible start ends here; searching beyond it is wasted work.
    const anchorLimit = lastStart + a;
    let candidates = 0;
    let checkedAt = 0;
    let p = this.find(buf, a);
    while (p !== -1 && p <= anchorLimit) {
      const s = p - a;
      if (this.verify(data, s) && (this.alignment === 1 || (base + s) % this.alignment === 0)) {
        if (!sink(base + s)) return false;
      }
      if (++candidates % DENSE_CHECK_EVERY === 0) {
        if (p - checkedAt < DENSE_CHECK_EVERY * DENSE_SPACING)
          return this.loop(data, s + 1, lastStart, base, sink);
        checkedAt = p;
      }
      p = this.find(buf, p + 1);
    }
    return true;
  }

  private find(buf: Buffer, from: number): number {
    return this.anchorByte >= 0 ? buf.indexOf(this.anchorByte, from) : buf.indexOf(this.anchor, from);
  }

  private verify(data: Uint8Array, s: number): boolean {
    const pos = this.checkPos;
    const val = this.checkVal;
    for (let k = 0; k < pos.length; k++) if (data[s + pos[k]!] !== val[k]) return false;
    return true;
  }

  /** Plain scan of starts [from, lastStart]: the anchor first, then the other exact bytes. */
  private loop(data: Uint8Array, from: number, lastStart: number, base: number, sink: HitSink): boolean {
    const anchor = this.anchor;
    const a = this.anchorStart;
    const n = anchor.length;
    const first = anchor[0]!;
    for (let s = from; s <= lastStart; s++) {
      if (data[s + a] !== first) continue;
      let k = 1;
      while (k < n && data[s + a + k] === anchor[k]) k++;
      if (k < n || !this.verify(data, s)) continue;
      if (this.alignment !== 1 && (base + s) % this.alignment !== 0) continue;
      if (!sink(base + s)) return false;
    }
    return true;
  }
}
