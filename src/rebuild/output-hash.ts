// SHA-256 of the build's output stream, on a worker thread when the ROM is large. Hashing 256 MiB costs
// about as much CPU as copying it; on the calling thread the two run one after the other, on a worker
// (a second core) side by side. The worker hashes exactly the chunk buffers the writer writes: they live
// in shared memory and are neither changed nor reused until both the write and the hash of them have
// finished (each releases its hold; stream.ts ChunkPool). Chunks are hashed in the order they are sent
// (one worker, one ordered message port). At most HASH_CHUNKS_IN_FLIGHT wait in the worker, so memory
// stays bounded when it lags. A worker that fails or exits fails the build with 'internal-error'.
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { ReMcpError, throwIfCancelled } from '../core/errors.js';

/** Outputs at least this large are hashed on a worker (starting one costs a few tens of ms). */
export const WORKER_HASH_MIN_BYTES = 64 * 1024 * 1024;
const HASH_CHUNKS_IN_FLIGHT = 4;

// Inline source (eval) so the bundled package (dist/re-mcp.cjs) needs no separate worker file.
const WORKER_CODE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hash = createHash('sha256');
parentPort.on('message', (chunk) => {
  if (chunk === null) {
    parentPort.postMessage({ digest: hash.digest('hex') });
    return;
  }
  hash.update(chunk);
  parentPort.postMessage({ done: chunk.length });
});
`;

export type HashThread = 'main' | 'worker';

export interface OutputHasher {
  readonly thread: HashThread;
  /**
   * Adds the next chunk. The caller must not change it until `release` has been called (the hasher
   * no longer reads it). Resolves once there is room for another chunk.
   */
  update(chunk: Uint8Array, release: () => void, signal?: AbortSignal): Promise<void>;
  /** The hex digest of every chunk added, in order. */
  digest(signal?: AbortSignal): Promise<string>;
  /** Ends the worker, if any; safe to call more than once. */
  close(): void;
}

export function mainThreadHasher(): OutputHasher {
  const hash = createHash('sha256');
  return {
    thread: 'main',
    async update(chunk, release) {
      hash.update(chunk);
      release();
    },
    async digest() {
      return hash.digest('hex');
    },
    close() {},
  };
}

export function workerHasher(): OutputHasher {
  const worker = new Worker(WORKER_CODE, { eval: true });
  let failure: ReMcpError | null = null;
  let digest: string | null = null;
  let closed = false;
  /** Release callbacks of the chunks sent and not yet hashed, oldest first. */
  const pending: Array<() => void> = [];
  let wake: (() => void) | null = null;
  const poke = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const fail = (message: string) => {
    failure ??= new ReMcpError('internal-error', `the output hashing worker failed: ${message}`);
    poke();
  };
  worker.on('error', (error: Error) => fail(error.message));
  worker.on('exit', (code: number) => {
    if (!closed) fail(`it exited (code ${code})`);
  });
  worker.on('message', (m: { done?: number; digest?: string }) => {
    if (m.digest !== undefined) digest = m.digest;
    else pending.shift()?.();
    poke();
  });
  const waitFor = async (ready: () => boolean, signal?: AbortSignal) => {
    for (;;) {
      if (failure) throw failure;
      if (closed) throw new ReMcpError('internal-error', 'the output hashing worker was closed');
      throwIfCancelled(signal);
      if (ready()) return;
      await new Promise<void>((resolve) => {
        wake = resolve;
        signal?.addEventListener('abort', poke, { once: true });
      });
      signal?.removeEventListener('abort', poke);
    }
  };
  return {
    thread: 'worker',
    async update(chunk, release, signal) {
      if (failure) throw failure;
      if (closed) throw new ReMcpError('internal-error', 'the output hashing worker was closed');
      if (chunk.buffer instanceof SharedArrayBuffer) {
        pending.push(release);
        worker.postMessage(chunk);
      } else {
        // Not shared memory: the message carries a copy, taken now; the chunk is free at once.
        pending.push(() => {});
        worker.postMessage(chunk);
        release();
      }
      await waitFor(() => pending.length < HASH_CHUNKS_IN_FLIGHT, signal);
    },
    async digest(signal) {
      if (failure) throw failure;
      if (closed) throw new ReMcpError('internal-error', 'the output hashing worker was closed');
      worker.postMessage(null);
      await waitFor(() => digest !== null, signal);
      return digest!;
    },
    close() {
      if (closed) return;
      closed = true;
      void worker.terminate();
      poke();
    },
  };
}

/** The hasher for an output of `size` bytes: on a worker when large. */
export function outputHasher(size: number): OutputHasher {
  return size >= WORKER_HASH_MIN_BYTES ? workerHasher() : mainThreadHasher();
}
