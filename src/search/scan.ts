// The streaming scan: feeds physical segments to the matcher in large chunks without ever holding the
// file. Each chunk buffer keeps (pattern length - 1) bytes of the previous chunk in front of the new
// data, so a match straddling a chunk edge is seen exactly once (the carried bytes are the only starts
// the previous chunk could not test). Two buffers alternate: the read of chunk N+1 runs in the libuv
// thread pool while chunk N is matched, so matching and I/O overlap on a multi-core machine. A chunk is
// read as 1 MiB parts at once (core/read-parts.ts: the pool's threads copy them in parallel).
// Pure: the file is reached only through the injected reader.
import { cooperativeTurn, sliceDue } from '../core/cooperative.js';
import { ReMcpError, throwIfCancelled } from '../core/errors.js';
import { readInParts } from '../core/read-parts.js';
import { ChunkMatcher } from './matcher.js';
import type { CompiledPattern } from './pattern.js';
import { PATTERN_LIMITS } from './pattern.js';

export interface Segment {
  start: number;
  end: number;
}

/** Fills `into` from absolute `position`; returns the byte count (short only at end of file). */
export type ChunkReader = (into: Uint8Array, position: number) => Promise<number>;

export const SCAN_TRUNCATIONS = ['scan-byte-limit', 'match-count-limit', 'verification-work-limit'] as const;
export type TruncationReason = (typeof SCAN_TRUNCATIONS)[number];

const SCAN_LIMITS = {
  /**
   * JavaScript byte comparisons spent verifying anchor candidates, over one search. A pathological
   * pattern (thousands of exact padding bytes, each candidate verified over most of them) stops here
   * with 'verification-work-limit' instead of running for minutes.
   */
  verifyWork: { max: 2 ** 29, unit: 'byte comparisons' },
  /** Work units matched between two checks of the clock (yield) and of cancellation. */
  sliceWork: { max: 1 << 21, unit: 'bytes searched or compared' },
  /** The scan yields to the event loop when it has run this long without a break. */
  yieldAfterMs: { max: 8, unit: 'ms' },
} as const;

interface ScanOptions {
  /** Disjoint, ascending physical ranges (the union of the scope). */
  segments: readonly Segment[];
  maxScanBytes: number;
  /** Matches kept; finding one more stops the scan with 'match-count-limit'. */
  maxMatches: number;
  /** Extra acceptance test on [start, end) (component containment); alignment is the matcher's. */
  accept?: (start: number, end: number) => boolean;
  chunkSize?: number;
  /** Overrides SCAN_LIMITS.verifyWork.max (tests). */
  maxVerifyWork?: number;
  signal?: AbortSignal;
  onProgress?: (scanned: number, total: number) => void;
}

export interface ScanResult {
  offsets: number[];
  /** Physical bytes read for matching (each selected byte once). */
  scannedBytes: number;
  /** Bytes in the selected scope. */
  scopeBytes: number;
  reasons: TruncationReason[];
  /**
   * Where a truncated scan can be resumed: the lowest ROM offset at which a match could start that
   * this scan did not test (a scan of the same scope from here finds exactly the rest). Null when
   * complete.
   */
  resumeAt: number | null;
}

/**
 * Bytes of one chunk. Both buffers stay within the processor's last-level cache, so the matcher reads
 * what the read just wrote from the cache, not from memory again: on the 256 MiB bench, 4 MiB chunks
 * scan in 34-67 ms where 8 MiB took 89-110 (`cat` of the file: 34-38).
 */
const DEFAULT_CHUNK = 4 * 1024 * 1024;
/** Room for the longest carry: a 4,096-byte pattern straddling an edge. */
const CARRY_ROOM = PATTERN_LIMITS.patternBytes.max - 1;

// Reused between scans so a search does not allocate 8 MiB each time; a scan takes both or neither.
const pool: Uint8Array[] = [];

function takeBuffers(chunk: number): [Uint8Array, Uint8Array] {
  const size = CARRY_ROOM + chunk;
  const reuse = pool.length >= 2 && pool[0]!.length === size && pool[1]!.length === size;
  if (reuse) return [pool.pop()!, pool.pop()!];
  return [Buffer.allocUnsafeSlow(size), Buffer.allocUnsafeSlow(size)];
}

function giveBack(bufs: Uint8Array[]): void {
  pool.length = 0;
  pool.push(...bufs);
}

/**
 * Gives the event loop a turn (other requests, cancellation notices) when the caller has held it for
 * a while (SCAN_LIMITS.yieldAfterMs); then honours cancellation.
 */
function breather(signal: AbortSignal | undefined): () => Promise<void> {
  let lastYield = performance.now();
  // A turn when this scan has held the event loop for its slice, or less once this turn's loops used
  // the shared bound (core/cooperative.ts); then cancellation is honoured.
  return async () => {
    if (sliceDue(lastYield, performance.now(), SCAN_LIMITS.yieldAfterMs.max)) {
      await cooperativeTurn(signal);
      lastYield = performance.now();
    }
    throwIfCancelled(signal);
  };
}

/**
 * Matches one chunk's bytes (`data`, its first byte at `base`) in slices of SCAN_LIMITS.sliceWork,
 * breathing between slices, until the chunk is done, the sink stops, or the verification work
 * reaches `maxVerifyWork` (then the state is still 'paused').
 */
async function scanChunk(
  matcher: ChunkMatcher,
  data: Uint8Array,
  base: number,
  sink: (offset: number) => boolean,
  maxVerifyWork: number,
  breathe: () => Promise<void>,
) {
  let state = matcher.scan(data, base, sink, 0, SCAN_LIMITS.sliceWork.max);
  while (state.kind === 'paused' && matcher.verifyWork < maxVerifyWork) {
    const from = state.next;
    await breathe();
    state = matcher.scan(data, base, sink, from, SCAN_LIMITS.sliceWork.max);
  }
  return state;
}

export async function scanSegments(
  pattern: CompiledPattern,
  read: ChunkReader,
  options: ScanOptions,
): Promise<ScanResult> {
  const chunk = options.chunkSize ?? DEFAULT_CHUNK;
  if (!Number.isInteger(chunk) || chunk < 1) throw new ReMcpError('invalid-argument', 'bad chunk size');
  const matcher = new ChunkMatcher(pattern);
  const len = matcher.length;
  const offsets: number[] = [];
  const reasons: TruncationReason[] = [];
  const scopeBytes = options.segments.reduce((n, s) => n + (s.end - s.start), 0);
  let budget = options.maxScanBytes;
  let scanned = 0;
  let stopped = false;
  let budgetResume: number | null = null;
  let workResume: number | null = null;
  let workLimited = false;
  const maxVerifyWork = options.maxVerifyWork ?? SCAN_LIMITS.verifyWork.max;
  const breathe = breather(options.signal);
  const sink = (offset: number): boolean => {
    if (options.accept && !options.accept(offset, offset + len)) return true;
    if (offsets.length >= options.maxMatches) {
      stopped = true;
      return false;
    }
    offsets.push(offset);
    return true;
  };

  const bufs = takeBuffers(chunk);
  let pending: Promise<number> | null = null;
  const startRead = (buf: Uint8Array, position: number, length: number) =>
    readInParts(read, buf.subarray(CARRY_ROOM, CARRY_ROOM + length), position);
  try {
    for (const segment of options.segments) {
      if (stopped || workLimited) break;
      if (budget <= 0) {
        budgetResume ??= segment.start;
        break;
      }
      const scanEnd = Math.min(segment.end, segment.start + budget);
      // Cut by the budget: starts from (scanEnd - len + 1) needed bytes past it.
      if (scanEnd < segment.end) budgetResume ??= Math.max(segment.start, scanEnd - len + 1);
      let pos = segment.start;
      let carry = 0;
      let which = 0;
      let expected = Math.min(chunk, scanEnd - pos);
      pending = expected > 0 ? startRead(bufs[0], pos, expected) : null;
      while (pending) {
        const n = await pending;
        pending = null;
        if (n !== expected) {
          throw new ReMcpError('rom-changed', 'the ROM is shorter than when it was identified', {
            offset: pos + n,
          });
        }
        const cur = bufs[which]!;
        const other = bufs[1 - which]!;
        const nextPos = pos + n;
        // Start the next read before matching: it lands in the other buffer, after its carry room.
        if (nextPos < scanEnd) {
          expected = Math.min(chunk, scanEnd - nextPos);
          pending = startRead(other, nextPos, expected);
        }
        const data = cur.subarray(CARRY_ROOM - carry, CARRY_ROOM + n);
        const state = await scanChunk(matcher, data, pos - carry, sink, maxVerifyWork, breathe);
        if (state.kind === 'paused') {
          // Verification work ran out inside this chunk: count only the starts actually tested.
          workLimited = true;
          workResume = pos - carry + state.next;
          scanned += Math.max(0, state.next - carry);
          break;
        }
        scanned += n;
        budget -= n;
        if (state.kind === 'stopped') break;
        if (matcher.verifyWork >= maxVerifyWork && nextPos < scanEnd) {
          workLimited = true;
          // Starts in the last len-1 bytes need the next chunk: they were not tested.
          workResume = Math.max(segment.start, nextPos - len + 1);
          break;
        }
        // Carry the tail: starts there need bytes the next chunk brings. Disjoint from the pending read.
        const keep = Math.min(len - 1, data.length);
        other.set(data.subarray(data.length - keep), CARRY_ROOM - keep);
        carry = keep;
        which = 1 - which;
        pos = nextPos;
        options.onProgress?.(scanned, Math.min(scopeBytes, options.maxScanBytes));
        await breathe();
      }
      if (workLimited) break;
    }
  } finally {
    // Never hand a buffer back while the thread pool may still be writing into it.
    if (pending) await (pending as Promise<number>).catch(() => 0);
    giveBack(bufs);
  }
  if (stopped) reasons.push('match-count-limit');
  if (workLimited) reasons.push('verification-work-limit');
  if (scopeBytes > options.maxScanBytes) reasons.push('scan-byte-limit');
  // Matches are reported in ascending order: after a match-count stop, resume just past the last kept.
  const resumeAt = stopped ? offsets[offsets.length - 1]! + 1 : workLimited ? workResume : budgetResume;
  return { offsets, scannedBytes: scanned, scopeBytes, reasons, resumeAt };
}

/** Sorts and merges ranges into disjoint segments; empty ranges vanish, touching ones join. */
export function mergeRanges(ranges: readonly Segment[]): Segment[] {
  const sorted = ranges.filter((r) => r.end > r.start).sort((a, b) => a.start - b.start || a.end - b.end);
  const out: Segment[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.start <= last.end) last.end = Math.max(last.end, r.end);
    else out.push({ start: r.start, end: r.end });
  }
  return out;
}
