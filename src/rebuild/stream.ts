// The rebuilt ROM as a stream of bounded chunks: source bytes (zero past the source's end), with the
// plan's pieces laid over them. Build writes this stream; verify compares a published ROM against it.
// Memory: a few chunks in flight plus the pieces themselves (bounded by the manifest limits).
//
// One read of the source serves the whole build: while the stream is produced, the output bytes are
// hashed (output.sha256 without reading the written file back), the source bytes read are counted,
// and every chunk a piece touches is checked for attribution. A chunk no piece touches is the source
// chunk as read (zero past the source's end): equal to the source by construction, so it holds no
// change to attribute. That the bytes read are the validated source is the caller's check: the source
// file must not have been modified at all while it was read (service.ts).
import { createHash } from 'node:crypto';
import { throwIfCancelled } from '../core/errors.js';
import { readInParts } from '../core/read-parts.js';
import { crc32Combine } from '../formats/crc32.js';
import { attributeChunk } from './attribution.js';
import { fastCrc32 } from './crc.js';
import type { Piece, Plan } from './plan/index.js';

export const STREAM_CHUNK = 4 * 1024 * 1024;

/** Reads source bytes at `position` into `into`; returns the count read (0 at the end). */
export type ChunkReader = (into: Uint8Array, position: number) => Promise<number>;

/** Fills `into` from `position` with `read` (short only at the end of the file); returns the count. */
export async function readFully(read: ChunkReader, into: Uint8Array, position: number): Promise<number> {
  let done = 0;
  // Bounded: each pass reads at least one byte or stops at the end of the file.
  while (done < into.length) {
    const n = await read(into.subarray(done), position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/**
 * Reads the source bytes of [position, position + into.length) that exist; returns how many. Read as
 * parts at once (core/read-parts.ts).
 */
export async function readSourceChunk(
  plan: Plan,
  readSource: ChunkReader,
  position: number,
  into: Uint8Array,
): Promise<number> {
  const want = Math.max(0, Math.min(into.length, plan.resolved.source.size - position));
  return readInParts((part, at) => readFully(readSource, part, at), into.subarray(0, want), position);
}

/**
 * The expected output bytes at `position` (`length` of them), given the source bytes already read
 * there: `source` itself when it is whole and no piece lies there, else made in `scratch` (at least
 * `length` bytes; a new buffer without one).
 */
export function expectedFromSource(
  plan: Plan,
  position: number,
  source: Uint8Array,
  length: number,
  scratch?: Uint8Array,
): Uint8Array {
  if (source.length >= length && !touches(plan.pieces, position, length)) return source.subarray(0, length);
  const out = scratch ? scratch.subarray(0, length) : new Uint8Array(length);
  const have = Math.min(length, source.length);
  out.set(source.subarray(0, have));
  out.fill(0, have);
  overlay(out, position, plan.pieces);
  return out;
}

/** Whether a piece lies in [position, position + length). */
export function touches(pieces: readonly Piece[], position: number, length: number): boolean {
  const end = position + length;
  return pieces.some((p) => p.offset < end && p.offset + p.bytes.length > position);
}

function overlay(out: Uint8Array, position: number, pieces: readonly Piece[]): void {
  const end = position + out.length;
  for (const p of pieces) {
    const pEnd = p.offset + p.bytes.length;
    if (pEnd <= position || p.offset >= end) continue;
    const from = Math.max(p.offset, position);
    const to = Math.min(pEnd, end);
    out.set(p.bytes.subarray(from - p.offset, to - p.offset), from - position);
  }
}

/** What one pass of the output stream established (filled in as the stream is consumed). */
export interface StreamTally {
  /** Source bytes read. */
  sourceBytes: number;
  /** SHA-256 of every output byte produced, once the stream has ended. */
  outputSha256: string | null;
  outputBytes: number;
  changedPrefixBytes: number;
  /** CRC-32 of the source bytes read (the BPS patch names it). */
  sourceCrc32: number;
  /**
   * CRC-32 of the output bytes produced, once the stream has ended: each chunk's taken alone and
   * joined (crc32Combine), a chunk that is the source chunk itself taking that chunk's.
   */
  outputCrc32: number;
}

export function newTally(): StreamTally {
  return {
    sourceBytes: 0,
    outputBytes: 0,
    outputSha256: null,
    changedPrefixBytes: 0,
    sourceCrc32: 0,
    outputCrc32: 0,
  };
}

/**
 * Chunk buffers the build reuses: a buffer goes back only when the writer reports its write done
 * (give), so the stream never overwrites bytes still being written. Reuse spares the kernel a fresh
 * zeroed page for every page of the ROM. At most a few buffers exist: the read-ahead, the chunk being
 * hashed and the writes in flight.
 */
export class ChunkPool {
  private readonly free: ArrayBuffer[] = [];
  private readonly ours = new WeakSet<ArrayBufferLike>();

  /**
   * `allocate` makes a new buffer of STREAM_CHUNK bytes or more; the build passes one whose buffers
   * are aligned for direct writes (workspace/stream-write.ts alignedBuffer).
   */
  constructor(private readonly allocate: (bytes: number) => ArrayBuffer = (n) => new ArrayBuffer(n)) {}

  /** A buffer of `length` (<= STREAM_CHUNK) bytes; its content is whatever it held before. */
  take(length: number): Uint8Array {
    const buffer = this.free.pop() ?? this.allocate(STREAM_CHUNK);
    this.ours.add(buffer);
    return new Uint8Array(buffer, 0, length);
  }

  /** Returns a chunk's buffer to the pool if it came from it (other chunks are ignored). */
  give(chunk: Uint8Array): void {
    if (!this.ours.has(chunk.buffer)) return;
    this.ours.delete(chunk.buffer);
    this.free.push(chunk.buffer as ArrayBuffer);
  }
}

interface Produced {
  /** The source bytes read. */
  source: Uint8Array;
  /** The output chunk: the source buffer itself unless a piece lies in it. */
  out: Uint8Array;
  touched: boolean;
}

async function produceChunk(
  plan: Plan,
  readSource: ChunkReader,
  position: number,
  length: number,
  pool: ChunkPool | undefined,
): Promise<Produced> {
  const buffer = pool ? pool.take(length) : new Uint8Array(length);
  const n = await readSourceChunk(plan, readSource, position, buffer);
  // Past the source's end the output is zero (a reused buffer still holds an earlier chunk there).
  if (n < length) buffer.fill(0, n);
  const source = buffer.subarray(0, n);
  if (!touches(plan.pieces, position, length)) return { source, out: buffer, touched: false };
  // The output copy comes from the pool too, so every chunk the writer gets is in the same kind of
  // buffer (aligned for direct writes when the pool's are).
  const out = pool ? pool.take(length) : new Uint8Array(length);
  out.set(buffer);
  overlay(out, position, plan.pieces);
  return { source, out, touched: true };
}

interface OutputStreamOptions {
  signal?: AbortSignal;
  /** Sees every chunk before it is yielded (progress). */
  onChunk?: (chunk: Uint8Array) => void;
  /** Sees the source bytes of every chunk, and where they start, before the chunk is yielded. */
  onSource?: (at: number, source: Uint8Array) => void;
  /**
   * Reuse buffers from this pool; the consumer must give() every yielded chunk back once it is done
   * with it (the build's writer does when the chunk's write has finished). Without a pool every chunk
   * is a new buffer and is never reused.
   */
  pool?: ChunkPool;
}

/**
 * The output stream. `tally` records the output hash, the byte counts and the changed prefix bytes;
 * a chunk that breaks attribution throws before it is yielded.
 */
export async function* outputStream(
  plan: Plan,
  readSource: ChunkReader,
  tally: StreamTally,
  options: OutputStreamOptions = {},
): AsyncGenerator<Uint8Array> {
  const { signal, onChunk, onSource, pool } = options;
  const size = plan.resolved.output.size;
  const outputHash = createHash('sha256');
  const produce = (at: number) => produceChunk(plan, readSource, at, Math.min(STREAM_CHUNK, size - at), pool);
  // The next chunk is read while the current one is hashed and written. Reads and writes run on libuv's
  // thread pool, so this thread's hash already overlaps them: the build's critical path is the I/O
  // (copy + fsync), not copy + hash. Hashing on a worker thread instead was measured on the 256 MiB
  // bench (issue 15, commit fc99549) and gained nothing: same wall time, more CPU.
  let next = size > 0 ? produce(0) : null;
  try {
    for (let at = 0; at < size; at += STREAM_CHUNK) {
      throwIfCancelled(signal);
      const { source, out, touched } = await next!;
      next = at + STREAM_CHUNK < size ? produce(at + STREAM_CHUNK) : null;
      if (touched) tally.changedPrefixBytes += attributeChunk(plan, at, out, source);
      tally.sourceBytes += source.length;
      // The chunk's CRC-32 alone serves both tallies when the output chunk is the source bytes as read.
      const sourceCrc = fastCrc32(source);
      tally.sourceCrc32 = crc32Combine(tally.sourceCrc32, sourceCrc, source.length);
      const outCrc = !touched && out.length === source.length ? sourceCrc : fastCrc32(out);
      tally.outputCrc32 = crc32Combine(tally.outputCrc32, outCrc, out.length);
      onSource?.(at, source);
      outputHash.update(out);
      tally.outputBytes += out.length;
      // A touched chunk was copied: its source buffer is free now; the copy is the writer's.
      if (touched) pool?.give(source);
      onChunk?.(out);
      yield out;
    }
    tally.outputSha256 = outputHash.digest('hex');
  } finally {
    // A writer that stops early (a failed write, cancellation) leaves the read-ahead unawaited; its
    // failure then belongs to nobody and must not surface as an unhandled rejection.
    next?.catch(() => {});
  }
}
