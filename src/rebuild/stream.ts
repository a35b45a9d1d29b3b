// The rebuilt ROM as a stream of bounded chunks: source bytes (zero past the source's end), with the
// plan's pieces laid over them. Build writes this stream; verify compares a published ROM against it.
// Memory: one chunk of the source plus the pieces themselves (bounded by the manifest limits).
import type { Piece, Plan } from './plan.js';

export const STREAM_CHUNK = 4 * 1024 * 1024;

/** Reads source bytes at `position` into `into`; returns the count read (0 at the end). */
export type ChunkReader = (into: Uint8Array, position: number) => Promise<number>;

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

export async function* outputStream(
  plan: Plan,
  readSource: ChunkReader,
  signal?: AbortSignal,
): AsyncGenerator<Uint8Array> {
  const size = plan.resolved.output.size;
  for (let at = 0; at < size; at += STREAM_CHUNK) {
    signal?.throwIfAborted();
    yield await expectedChunk(plan, readSource, at, Math.min(STREAM_CHUNK, size - at));
  }
}
