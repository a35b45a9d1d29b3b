// Streamed writing of one file: chunks written in order at increasing positions, a few writes in
// flight while the producer makes the next chunk, background flushes as the file grows, and direct
// (O_DIRECT) writes of the chunks whose memory, position and length allow them. OutputDir.writeAtomic
// writes its streamed content through writeStream.
import type { FileHandle } from 'node:fs/promises';

/**
 * How streamed content is written. Fixed in production; tests shrink the flush interval to force many
 * flushes on a small file (the bench may try other values).
 */
export const streamWriting = {
  /** Positioned writes running at once while the producer makes the next chunk. */
  writesInFlight: 2,
  /**
   * A background fdatasync of what has been written so far is started every this many bytes (at most
   * one at a time, never awaited before the next writes): the disk writes back while the producer
   * keeps reading and hashing, and the fsync that makes the file durable before its rename waits only
   * for the tail. Without it that fsync writes the whole file back after the last write.
   */
  earlyFlushBytes: 64 * 1024 * 1024,
  /** Whether a caller's `direct` request is honoured (tests turn it off to compare the two paths). */
  direct: true,
};

/** What writeStream needs of a file handle (tests substitute one that fails on cue). */
export type StreamTarget = Pick<FileHandle, 'write' | 'datasync'>;

/**
 * Direct (O_DIRECT) writes: the bytes go from the chunk's memory to the disk, with no copy into the page
 * cache and nothing left for writeback. On the 2-core development machine that copy and its writeback
 * cost as much CPU as the rest of a 256 MiB rebuild besides SHA-256, and competed with the hash for
 * the cores; written directly, the build takes about as long as hashing its output (issue 15 bench).
 * Durability is unchanged: the fsync before the rename still commits the file's metadata and flushes
 * the device's write cache. A direct write needs memory, file position and length aligned to the
 * device's block; JS cannot ask malloc for alignment, but WebAssembly memory is page-aligned, so only
 * chunks in buffers from alignedBuffer() are written directly; anything else (and any chunk the file
 * system refuses, EINVAL) goes through the page cache.
 */
export const DIRECT_ALIGNMENT = 4096;
const alignedBuffers = new WeakSet<ArrayBufferLike>();

/** A page-aligned buffer of at least `bytes` bytes that writeStream may write directly. */
export function alignedBuffer(bytes: number): ArrayBuffer {
  const pages = Math.max(1, Math.ceil(bytes / 65_536));
  const wasm = (globalThis as unknown as { WebAssembly?: WasmMemoryFactory }).WebAssembly;
  // Without WebAssembly (node --jitless) an ordinary buffer: its chunks go through the page cache.
  if (!wasm) return new ArrayBuffer(bytes);
  const buffer = new wasm.Memory({ initial: pages, maximum: pages }).buffer;
  alignedBuffers.add(buffer);
  return buffer;
}
interface WasmMemoryFactory {
  Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
}

/** How many leading bytes of `chunk` at `position` may be written directly (a multiple of the alignment). */
function directPrefix(chunk: Uint8Array, position: number): number {
  if (!alignedBuffers.has(chunk.buffer)) return 0;
  if (chunk.byteOffset % DIRECT_ALIGNMENT !== 0 || position % DIRECT_ALIGNMENT !== 0) return 0;
  // The rest (under one block, at a block boundary: no page shared with the direct part) is buffered.
  return chunk.length - (chunk.length % DIRECT_ALIGNMENT);
}

async function writeAt(handle: StreamTarget, chunk: Uint8Array, position: number): Promise<void> {
  let done = 0;
  // Bounded: a short write is continued from where it stopped; each pass writes at least one byte.
  while (done < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, done, chunk.length - done, position + done);
    if (bytesWritten <= 0) throw new Error('the write made no progress');
    done += bytesWritten;
  }
}

/**
 * Writes the chunks in order at increasing positions. Up to `writesInFlight` writes run while the
 * producer makes the next chunk (reading and hashing overlap the writing), beside at most one early
 * flush; the first failure (a write's or a flush's) stops the stream and is thrown once every write and
 * flush already started has settled, so no work on the file outlives the call.
 *
 * `direct`, when given, is the same file opened with O_DIRECT: aligned chunks are written through it
 * (see DIRECT_ALIGNMENT). If it refuses a write as invalid, that write and every later one go through
 * `handle`. Early flushes count only the bytes written through the page cache: direct bytes are
 * already on the device.
 */
export async function writeStream(
  handle: StreamTarget,
  chunks: AsyncIterable<Uint8Array>,
  onWritten?: (chunk: Uint8Array) => void,
  direct?: StreamTarget | null,
): Promise<void> {
  const pending = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  const track = (work: Promise<void>) => {
    const settled: Promise<void> = work.then(
      () => {
        pending.delete(settled);
      },
      (error: unknown) => {
        pending.delete(settled);
        failure ??= { error };
      },
    );
    pending.add(settled);
  };
  let position = 0;
  /** Bytes handed to the page cache (not written directly) so far, and when the last flush began. */
  let buffered = 0;
  let flushed = 0;
  let flushing = false;
  let directTarget = direct ?? null;
  const writeDirect = async (chunk: Uint8Array, position: number): Promise<void> => {
    if (directTarget !== null) {
      try {
        await writeAt(directTarget, chunk, position);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
        directTarget = null;
      }
    }
    buffered += chunk.length;
    await writeAt(handle, chunk, position);
  };
  const writeChunk = (chunk: Uint8Array, position: number): Promise<void> => {
    const prefix = directTarget === null ? 0 : directPrefix(chunk, position);
    if (prefix === 0) {
      buffered += chunk.length;
      return writeAt(handle, chunk, position);
    }
    const parts = [writeDirect(chunk.subarray(0, prefix), position)];
    if (prefix < chunk.length) {
      buffered += chunk.length - prefix;
      parts.push(writeAt(handle, chunk.subarray(prefix), position + prefix));
    }
    return Promise.all(parts).then(() => {});
  };
  const { writesInFlight, earlyFlushBytes } = streamWriting;
  try {
    for await (const chunk of chunks) {
      track(writeChunk(chunk, position).then(() => onWritten?.(chunk)));
      position += chunk.length;
      // One flush at a time, never counted against the writes in flight.
      if (buffered - flushed >= earlyFlushBytes && !flushing) {
        flushed = buffered;
        flushing = true;
        track(
          handle.datasync().finally(() => {
            flushing = false;
          }),
        );
      }
      while (pending.size - (flushing ? 1 : 0) >= writesInFlight && failure === null) {
        await Promise.race(pending);
      }
      if (failure) break;
    }
  } finally {
    await Promise.all(pending);
  }
  if (failure) throw (failure as { error: unknown }).error;
}
