// The rebuilt ROM as a stream of bounded chunks: source bytes (zero past the source's end), with the
// plan's pieces laid over them. Build writes this stream; verify compares a published ROM against it.
// Memory: one chunk of the source plus the pieces themselves (bounded by the manifest limits).
import { throwIfCancelled } from '../core/errors.js';
import type { Piece, Plan } from './plan.js';

export const STREAM_CHUNK = 4 * 1024 * 1024;

/** Reads source bytes at `position` into `into`; returns the count read (0 at the end). */
export type ChunkReader = (into: Uint8Array, position: number) => Promise<number>;

/** Reads the source bytes of [position, position + into.length) that exist; returns how many. */
export async function readSourceChunk(
  plan: Plan,
  readSource: ChunkReader,
  position: number,
  into: Uint8Array,
): Promise<number> {
  const want = Math.max(0, Math.min(into.length, plan.resolved.source.size - position));
  let done = 0;
  while (done < want) {
    const n = await readSource(into.subarray(done, want), position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/** The expected output bytes at `position`, given the source bytes already read there. */
export function expectedFromSource(
  plan: Plan,
  position: number,
  source: Uint8Array,
  length: number,
): Uint8Array {
  const out = new Uint8Array(length);
  out.set(source.subarray(0, Math.min(length, source.length)));
  overlay(out, position, plan.pieces);
  return out;
}

export async function expectedChunk(
  plan: Plan,
  readSource: ChunkReader,
  position: number,
  length: number,
): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  const sourceSize = plan.resolved.source.size;
  if (position < sourceSize) {
    const want = Math.min(length, sourceSize - position);
    let done = 0;
    while (done < want) {
      const n = await readSource(out.subarray(done, want), position + done);
      if (n === 0) break;
      done += n;
    }
  }
  overlay(out, position, plan.pieces);
  return out;
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

/** The output stream; `onChunk` sees every chunk (the build hashes them as they are written). */
export async function* outputStream(
  plan: Plan,
  readSource: ChunkReader,
  signal?: AbortSignal,
  onChunk?: (chunk: Uint8Array) => void,
): AsyncGenerator<Uint8Array> {
  const size = plan.resolved.output.size;
  // The next chunk is read while the current one is being written.
  let next = size > 0 ? expectedChunk(plan, readSource, 0, Math.min(STREAM_CHUNK, size)) : null;
  try {
    for (let at = 0; at < size; at += STREAM_CHUNK) {
      throwIfCancelled(signal);
      const chunk = await next!;
      const following = at + STREAM_CHUNK;
      next =
        following < size
          ? expectedChunk(plan, readSource, following, Math.min(STREAM_CHUNK, size - following))
          : null;
      onChunk?.(chunk);
      yield chunk;
    }
  } finally {
    // A writer that stops early (a failed write, cancellation) leaves the read-ahead unawaited; its
    // failure then belongs to nobody and must not surface as an unhandled rejection.
    next?.catch(() => {});
  }
}
