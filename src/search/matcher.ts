// The in-memory matcher: every match start inside one chunk. The anchor (see chooseAnchor: the whole
// pattern when it has no wildcard, else a short run of rare exact bytes) is located with
// Buffer.indexOf, which is native and skips most bytes without touching them in JavaScript; only anchor
// hits reach JavaScript, where the remaining exact bytes are verified, rarest first.
// An anchor longer than PIECE_BYTES is found through a piece of it: Node's indexOf runs memchr on a
// needle that short (several GB/s) but Boyer-Moore-Horspool on a longer one (a few hundred MB/s on
// data where the needle's bytes are common, shifting at most the needle's length), so the piece is
// searched and each place it occurs is compared with the whole anchor natively; when the piece keeps
// occurring without the anchor (MAX_PIECE_MISSES in one window: zero padding, say), the rest of the
// window is searched for the whole anchor as before. Either way find() returns the same place.
// When the anchor turns out to be very frequent in a chunk (e.g. "00 ?? 12" over zero padding), the
// per-call cost of indexOf would dominate, so the rest of that chunk is scanned with a plain loop.
//
// The work is bounded, not only the bytes: one scan() call stops after about `quota` work units
// (bytes searched natively, bytes compared in JavaScript) and says where to resume, so the caller can
// yield to the event loop and check cancellation; `verifyWork` counts JavaScript comparisons so the
// caller can cap a pathological pattern (thousands of exact bytes verified per candidate).
import { type CompiledPattern, rarity } from './pattern.js';

/** Receives an absolute match start; returns false to stop the scan. */
type HitSink = (offset: number) => boolean;

/** done: every start was tested; stopped: the sink asked to stop; paused: resume at `next`. */
type ScanState = { kind: 'done' } | { kind: 'stopped' } | { kind: 'paused'; next: number };

/** Every this many anchor candidates in one chunk, check the density... */
const DENSE_CHECK_EVERY = 1024;
/** ...and fall back to the loop when candidates are closer than this many bytes on average. */
const DENSE_SPACING = 32;
/** One native indexOf call searches at most this many bytes, so a call's cost stays bounded. */
const FIND_WINDOW = 1024 * 1024;
/** The longest needle Node's indexOf searches with memchr (from 8 bytes on it uses Boyer-Moore-Horspool). */
const PIECE_BYTES = 7;
/** Places of the piece without the anchor, in one find() window, before the whole anchor is searched. */
const MAX_PIECE_MISSES = 32;

const DONE: ScanState = { kind: 'done' };
const STOPPED: ScanState = { kind: 'stopped' };

export class ChunkMatcher {
  readonly length: number;
  private readonly anchor: Buffer;
  private readonly anchorStart: number;
  /** Single-byte anchors use indexOf(number), the memchr path. */
  private readonly anchorByte: number;
  /** A long anchor's piece searched first (null for anchors of PIECE_BYTES or fewer) and its place in it. */
  private readonly piece: Buffer | null;
  private readonly pieceAt: number;
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
    // The piece: the window whose first byte is rarest (memchr stops on each of its occurrences),
    // then the one of most rarity, then the earliest.
    let pieceAt = 0;
    if (this.anchor.length > PIECE_BYTES) {
      let best = -1;
      for (let at = 0; at + PIECE_BYTES <= this.anchor.length; at++) {
        let sum = 0;
        for (let k = at; k < at + PIECE_BYTES; k++) sum += rarity(this.anchor[k]!);
        const score = rarity(this.anchor[at]!) * 1_000_000 + sum;
        if (score > best) {
          best = score;
          pieceAt = at;
        }
      }
    }
    this.pieceAt = pieceAt;
    this.piece =
      this.anchor.length > PIECE_BYTES ? this.anchor.subarray(pieceAt, pieceAt + PIECE_BYTES) : null;
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
    if (this.piece !== null) return this.findByPiece(buf, from, end, this.piece);
    const window = buf.subarray(from, end);
    const at = this.anchorByte >= 0 ? window.indexOf(this.anchorByte) : window.indexOf(this.anchor);
    return at === -1 ? -1 : from + at;
  }

  /** find() for a long anchor: its piece first, each place compared with the whole anchor. */
  private findByPiece(buf: Buffer, from: number, end: number, piece: Buffer): number {
    const n = this.anchor.length;
    const at = this.pieceAt;
    // The piece of the last anchor that fits before `end` ends here.
    const pieceEnd = end - n + at + piece.length;
    let misses = 0;
    for (let q = from + at; q + piece.length <= pieceEnd; ) {
      const found = buf.subarray(q, pieceEnd).indexOf(piece);
      if (found === -1) return -1;
      const s = q + found - at;
      if (buf.compare(this.anchor, 0, n, s, s + n) === 0) return s;
      q += found + 1;
      if (++misses >= MAX_PIECE_MISSES) {
        const rest = buf.subarray(s + 1, end).indexOf(this.anchor);
        return rest === -1 ? -1 : s + 1 + rest;
      }
    }
    return -1;
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
