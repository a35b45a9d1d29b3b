// SHA-256 of a chunk stream, on a worker thread when the stream is large. The build hashes two streams
// of the same size (the source it copies, the output it writes); on a second core the source's hash
// runs beside the output's instead of after it. Chunks reach the worker through shared memory (no
// copy) taken from a small pool the hasher owns: a buffer returns to the pool only when the worker has
// hashed it, so nothing else may keep using a chunk after passing it to update(). At most
// HASH_CHUNKS_IN_FLIGHT chunks wait in the worker; memory stays bounded if it lags. (Shared buffers are
// recycled, not left to the collector: they are freed only when both threads collect them, and the
// worker's heap hardly ever needs collecting.)
// Where no worker can be started the hash is computed on the calling thread: same result, slower.
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { ReMcpError } from '../core/errors.js';

/** Streams at least this large are hashed on a worker (starting one costs a few tens of ms). */
export const WORKER_HASH_MIN_BYTES = 32 * 1024 * 1024;
const HASH_CHUNKS_IN_FLIGHT = 4;

// Inline (eval) so the bundled package needs no separate worker file.
const WORKER_CODE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const hash = createHash('sha256');
parentPort.on('message', (chunk) => {
  if (chunk === null) parentPort.postMessage({ digest: hash.digest('hex') });
  else {
    hash.update(chunk);
    parentPort.postMessage({ done: chunk.length });
  }
});
`;

export interface StreamHasher {
  /** Whether chunks live in the hasher's shared pool (then they are only lent: see update). */
  readonly shared: boolean;
  /** A buffer of `length` bytes to read a chunk into (pooled shared memory for a worker). */
  acquire(length: number): Uint8Array;
  /**
   * Adds a chunk (a view of an acquired buffer). For a shared hasher the buffer goes back to the pool
   * once hashed: the caller must be done with it before its next await. Waits only when the queue is
   * full.
   */
  update(chunk: Uint8Array): Promise<void>;
  digest(): Promise<string>;
  /** Ends the worker (if any); safe to call more than once. */
  close(): void;
}

function localHasher(): StreamHasher {
  const hash = createHash('sha256');
  return {
    shared: false,
    acquire: (length) => new Uint8Array(length),
    update: async (chunk) => {
      hash.update(chunk);
    },
    digest: async () => hash.digest('hex'),
    close: () => {},
  };
}

export function workerHasher(): StreamHasher {
  const worker = new Worker(WORKER_CODE, { eval: true });
  worker.unref();
  let failure: Error | null = null;
  /** Buffers posted to the worker, in order (it answers in order). */
  const queued: SharedArrayBuffer[] = [];
  const free: SharedArrayBuffer[] = [];
  let wake: (() => void) | null = null;
  let digest: string | null = null;
  const fail = (error: Error) => {
    failure ??= new ReMcpError('internal-error', `the hashing worker failed: ${error.message}`);
    wake?.();
  };
  worker.on('error', fail);
  worker.on('exit', () => fail(new Error('it exited')));
  worker.on('message', (m: { done?: number; digest?: string }) => {
    if (m.digest !== undefined) digest = m.digest;
    else {
      const done = queued.shift();
      if (done) free.push(done);
    }
    wake?.();
  });
  const waitFor = async (ready: () => boolean) => {
    while (!ready()) {
      if (failure) throw failure;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = null;
    }
    if (failure) throw failure;
  };
  return {
    shared: true,
    acquire(length) {
      const i = free.findIndex((b) => b.byteLength >= length);
      const buffer = i >= 0 ? free.splice(i, 1)[0]! : new SharedArrayBuffer(length);
      return new Uint8Array(buffer, 0, length);
    },
    async update(chunk) {
      if (failure) throw failure;
      if (!(chunk.buffer instanceof SharedArrayBuffer)) {
        throw new ReMcpError('internal-error', 'a worker-hashed chunk must come from acquire()');
      }
      queued.push(chunk.buffer);
      worker.postMessage(chunk);
      await waitFor(() => queued.length < HASH_CHUNKS_IN_FLIGHT);
    },
    async digest() {
      worker.postMessage(null);
      await waitFor(() => digest !== null);
      return digest!;
    },
    close() {
      worker.removeAllListeners('exit');
      void worker.terminate();
      free.length = 0;
    },
  };
}

/** A hasher for a stream of `size` bytes: on a worker when large and a worker can start. */
export function streamHasher(size: number): StreamHasher {
  if (size < WORKER_HASH_MIN_BYTES) return localHasher();
  try {
    return workerHasher();
  } catch {
    return localHasher();
  }
}
