// Drives a patch decoder (formats/patch/requests.ts) against files, for nds_patch_apply: the source is
// read from the ROM a window at a time; the emitted target is copied into chunks handed, in order, to
// the writer of the result (OutputDir.writeAtomic, streamed), and each chunk is kept a little longer
// so a BPS TargetCopy finds recent bytes in memory; older ones are read back from the file being
// written (every byte that left memory has been written: a chunk is reused only once the writer has
// reported it written). So an apply holds its window, not its target: applyStreamBytes() whatever
// the target's size. The result is hashed (SHA-256) as it streams. The decoder runs in slices: at
// each of its pauses, once its slice is due (core/cooperative.ts sliceDue), the event loop gets a
// turn, and cancellation and the deadline are checked. A decoder that throws (a damaged patch, a
// target whose CRC-32 differs) fails the stream, and the writer removes what it wrote.
import { createHash } from 'node:crypto';
import { cooperativeTurn, sliceDue } from '../core/cooperative.js';
import { ReMcpError, throwIfCancelled } from '../core/errors.js';
import { BPS_COPY_PIECE } from '../formats/patch/bps.js';
import { IPS_WINDOW } from '../formats/patch/ips.js';
import type { PatchDecoder, PatchRequest } from '../formats/patch/requests.js';
import { alignedBuffer, streamWriting } from '../workspace/stream-write.js';
import { type ChunkReader, readFully } from './stream.js';

const MiB = 1024 * 1024;

/**
 * How results are streamed. Fixed in production; tests shrink the chunks and the window to make
 * target copies reach past the window on small patches.
 */
export const applyStreaming = {
  /** Bytes of one chunk handed to the writer (a multiple of the direct-write alignment, 4096). */
  chunkBytes: MiB,
  /**
   * Written chunks kept in memory for target copies. More than the writes the writer keeps in flight,
   * so the oldest is always written by the time its buffer is wanted again.
   */
  keptChunks: Math.max(4, streamWriting.writesInFlight + 2),
  /** Source bytes read at once (at least the most a decoder asks for at once: BPS_COPY_PIECE, IPS_WINDOW). */
  sourceBytes: 2 * MiB,
};

/** Bytes of the source window (never less than a decoder asks for at once). */
const sourceWindowBytes = () => Math.max(applyStreaming.sourceBytes, BPS_COPY_PIECE, IPS_WINDOW);

/**
 * The memory one apply holds while it streams, besides its patch file and an IPS patch's records: the
 * chunks (those kept, the one being filled, and one more for a write not yet reported), the source
 * window, the read-back buffer, and the decoder's own buffers (a BPS copy's piece and its copy, an
 * overlapping copy's tile, or an IPS window: at most 3 × BPS_COPY_PIECE), plus 1 MiB for the rest
 * (the hash, the stage, small objects). Measured: see docs/SECURITY.md.
 */
export function applyStreamBytes(): number {
  return (
    (applyStreaming.keptChunks + 2) * applyStreaming.chunkBytes +
    sourceWindowBytes() +
    BPS_COPY_PIECE +
    3 * BPS_COPY_PIECE +
    MiB
  );
}

/** Source bytes, read from the ROM a window at a time (the answers to a decoder's `source` requests). */
export class SourceWindow {
  private buffer: Uint8Array | null = null;
  private start = 0;
  private length = 0;

  constructor(
    private readonly read: ChunkReader,
    private readonly size: number,
    private readonly path: string,
  ) {}

  private bytes(): Uint8Array {
    this.buffer ??= new Uint8Array(sourceWindowBytes());
    return this.buffer;
  }

  /** Bytes from `offset`, at least `length` of them (from memory, or read first). */
  answer(offset: number, length: number): Uint8Array | Promise<Uint8Array> {
    if (offset >= this.start && offset + length <= this.start + this.length)
      return this.bytes().subarray(offset - this.start, this.length);
    return this.fill(offset, length);
  }

  private async fill(offset: number, length: number): Promise<Uint8Array> {
    const buffer = this.bytes();
    if (length > buffer.length)
      throw new RangeError(`a source read of ${length} bytes is more than the window`);
    const want = Math.min(buffer.length, this.size - offset);
    this.length = 0;
    const done = await readFully(this.read, buffer.subarray(0, want), offset);
    if (done < length)
      throw new ReMcpError('rom-changed', `the ROM ${this.path} became shorter while the patch was applied`, {
        path: this.path,
      });
    this.start = offset;
    this.length = done;
    return buffer.subarray(0, done);
  }

  /** The CRC-32 of the whole source, read through the window's buffer. */
  async crc32(crc32: (bytes: Uint8Array, crc?: number) => number, signal?: AbortSignal): Promise<number> {
    let crc = 0;
    for (let at = 0; at < this.size; ) {
      throwIfCancelled(signal);
      const n = Math.min(this.bytes().length, this.size - at);
      const bytes = await this.fill(at, n);
      crc = crc32(bytes.subarray(0, n), crc);
      at += n;
    }
    return crc;
  }
}

interface Kept {
  start: number;
  bytes: Uint8Array;
  written: boolean;
}

/**
 * The target as it is made: the chunk being filled, the chunks handed to the writer and kept, and a
 * reader of the file they are written to for what is older.
 */
class TargetWindow {
  private readonly kept: Kept[] = [];
  private current: Uint8Array | null = null;
  /** Where the current chunk starts, and bytes put in it. */
  private currentStart = 0;
  private fill = 0;
  private readBuffer: Uint8Array | null = null;
  /** Reads the file being written (set by the writer when it opens it). */
  readWritten: ChunkReader | null = null;
  /** Chunks that had to be allocated because the oldest kept one was not written yet (a test counts them). */
  extraChunks = 0;

  get made(): number {
    return this.currentStart + this.fill;
  }

  /** Copies what fits of `bytes` into the current chunk; returns how many bytes were taken. */
  put(bytes: Uint8Array): number {
    if (this.current === null) this.current = this.take();
    const n = Math.min(bytes.length, this.current.length - this.fill);
    this.current.set(bytes.subarray(0, n), this.fill);
    this.fill += n;
    return n;
  }

  get full(): boolean {
    return this.current !== null && this.fill === this.current.length;
  }

  /** Hands out the current chunk (full, or the last one): kept until written and out of the window. */
  seal(): Uint8Array | null {
    if (this.current === null || this.fill === 0) return null;
    const chunk = this.current.subarray(0, this.fill);
    this.kept.push({ start: this.currentStart, bytes: chunk, written: false });
    this.currentStart += this.fill;
    this.fill = 0;
    this.current = null;
    return chunk;
  }

  /** The writer reports a chunk written. */
  written(chunk: Uint8Array): void {
    for (const k of this.kept) if (k.bytes === chunk) k.written = true;
  }

  /**
   * A buffer for the next chunk: the oldest kept chunk's once more than keptChunks are kept and it is
   * written (its bytes then live only in the file), else a new one.
   */
  private take(): Uint8Array {
    const size = applyStreaming.chunkBytes;
    while (this.kept.length > applyStreaming.keptChunks && this.kept[0]!.written) this.kept.shift();
    if (this.kept.length === applyStreaming.keptChunks && this.kept[0]!.written) {
      const old = this.kept.shift()!;
      return new Uint8Array(old.bytes.buffer, old.bytes.byteOffset, size);
    }
    if (this.kept.length >= applyStreaming.keptChunks) this.extraChunks++;
    return new Uint8Array(alignedBuffer(size), 0, size);
  }

  /** Where the bytes in memory start. */
  private get windowStart(): number {
    return this.kept.length > 0 ? this.kept[0]!.start : this.currentStart;
  }

  /** The memory holding `position` (>= windowStart, < made) and where in it. */
  private locate(position: number): { bytes: Uint8Array; at: number } {
    for (const k of this.kept)
      if (position < k.start + k.bytes.length) return { bytes: k.bytes, at: position - k.start };
    return { bytes: this.current!.subarray(0, this.fill), at: position - this.currentStart };
  }

  private buffer(length: number): Uint8Array {
    this.readBuffer ??= new Uint8Array(BPS_COPY_PIECE);
    if (length > this.readBuffer.length)
      throw new RangeError(`a target read of ${length} bytes is more than a copy piece`);
    return this.readBuffer.subarray(0, length);
  }

  /** Copies the bytes in memory of [position, position + into.length) into `into`. */
  private copyOut(into: Uint8Array, position: number): void {
    for (let done = 0; done < into.length; ) {
      const { bytes, at } = this.locate(position + done);
      const n = Math.min(into.length - done, bytes.length - at);
      into.set(bytes.subarray(at, at + n), done);
      done += n;
    }
  }

  /** Target bytes [offset, offset + length), all made before: from memory, or read back first. */
  read(offset: number, length: number): Uint8Array | Promise<Uint8Array> {
    if (offset < 0 || offset + length > this.made)
      throw new RangeError(`target bytes [${offset}, ${offset + length}) are not made yet`);
    if (offset >= this.windowStart) {
      const { bytes, at } = this.locate(offset);
      if (at + length <= bytes.length) return bytes.subarray(at, at + length);
      const out = this.buffer(length);
      this.copyOut(out, offset);
      return out;
    }
    return this.readBack(offset, length);
  }

  private async readBack(offset: number, length: number): Promise<Uint8Array> {
    const out = this.buffer(length);
    const fromFile = Math.min(length, this.windowStart - offset);
    if (this.readWritten === null) throw new RangeError('the file being written cannot be read back');
    const done = await readFully(this.readWritten, out.subarray(0, fromFile), offset);
    if (done < fromFile)
      throw new ReMcpError('busy', 'the result being written was cut short under this call', {
        offset,
        read: done,
      });
    // The window cannot move while this call awaits: nothing is emitted until it returns.
    this.copyOut(out.subarray(fromFile), offset + fromFile);
    return out;
  }
}

interface PatchStreamOptions {
  signal?: AbortSignal;
  deadline: { ms: number; what: string };
  /** Turns what the decoder throws into the call's error. */
  refuse: (error: unknown) => never;
  /** Runs after the decoder ended well and before the last chunk goes out (a last check may refuse). */
  beforeEnd?: () => Promise<void>;
}

/**
 * A decoder's target as a stream for OutputDir.writeAtomic: pass `chunks` as the data and
 * `writeOptions` as its options. After the write, `result()` gives the decoder's value, the SHA-256
 * and the size of what was streamed.
 */
export function patchStream<T>(
  decoder: PatchDecoder<T>,
  source: SourceWindow,
  options: PatchStreamOptions,
): {
  chunks: AsyncIterable<Uint8Array>;
  writeOptions: {
    onWritten: (chunk: Uint8Array) => void;
    readBack: (read: ChunkReader) => void;
    direct: boolean;
  };
  result: () => { value: T; sha256: string; size: number };
  window: { readonly extraChunks: number };
} {
  const target = new TargetWindow();
  const hash = createHash('sha256');
  let ended: { value: T; sha256: string; size: number } | null = null;
  async function* run(): AsyncGenerator<Uint8Array> {
    throwIfCancelled(options.signal);
    const begun = performance.now();
    const deadline = begun + options.deadline.ms;
    let since = begun;
    let answer: Uint8Array | undefined;
    try {
      for (;;) {
        let r: IteratorResult<PatchRequest, T>;
        try {
          r = decoder.next(answer);
        } catch (error) {
          options.refuse(error);
        }
        answer = undefined;
        if (r.done) {
          await options.beforeEnd?.();
          const last = target.seal();
          if (last) {
            hash.update(last);
            yield last;
          }
          ended = { value: r.value, sha256: hash.digest('hex'), size: target.made };
          return;
        }
        const q = r.value;
        switch (q.kind) {
          case 'source': {
            const a = source.answer(q.offset, q.length);
            answer = a instanceof Promise ? await a : a;
            break;
          }
          case 'target': {
            const a = target.read(q.offset, q.length);
            answer = a instanceof Promise ? await a : a;
            break;
          }
          case 'emit': {
            if (q.offset !== target.made) throw new RangeError('a patch emit does not continue the target');
            for (let rest = q.bytes; rest.length > 0; ) {
              rest = rest.subarray(target.put(rest));
              if (target.full) {
                const chunk = target.seal()!;
                hash.update(chunk);
                yield chunk;
              }
            }
            break;
          }
          default: {
            const now = performance.now();
            if (now >= deadline)
              throw new ReMcpError(
                'timeout',
                `${options.deadline.what} took longer than ${options.deadline.ms} ms and was stopped`,
              );
            if (sliceDue(since, now)) {
              await cooperativeTurn(options.signal);
              throwIfCancelled(options.signal);
              since = performance.now();
            }
          }
        }
      }
    } catch (error) {
      // The writer reports any other error as its own failure: a mistake here is named as one.
      if (error instanceof ReMcpError) throw error;
      throw new ReMcpError(
        'internal-error',
        `streaming the patched result failed: ${(error as Error).message}`,
      );
    } finally {
      decoder.return(undefined as T);
    }
  }
  return {
    chunks: run(),
    writeOptions: {
      onWritten: (chunk) => target.written(chunk),
      readBack: (read) => {
        target.readWritten = read;
      },
      direct: true,
    },
    result: () => {
      if (ended === null) throw new RangeError('the patch stream has not ended');
      return ended;
    },
    window: target,
  };
}
