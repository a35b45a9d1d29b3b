// SHA-256 of a chunk stream, on a worker thread when the stream is large. The build hashes two streams
// of the same size (the source it copies, the output it writes); on a second core the source's hash
// runs beside the output's instead of after it. Chunks reach the worker through shared memory (no
// copy); at most HASH_CHUNKS_IN_FLIGHT are queued there, so memory stays bounded if the worker lags.
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
  /** Whether chunks must live in shared memory (allocate them with allocateChunk). */
  readonly shared: boolean;
  /** Adds a chunk; the caller must not change it afterwards. Waits only when the queue is full. */
  update(chunk: Uint8Array): Promise<void>;
  digest(): Promise<string>;
  /** Ends the worker (if any); safe to call more than once. */
  close(): void;
}

function localHasher(): StreamHasher {
  const hash = createHash('sha256');
  return {
    shared: false,
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
  let queued = 0;
  let wake: (() => void) | null = null;
  let resolveDigest: ((hex: string) => void) | null = null;
  const fail = (error: Error) => {
    failure ??= new ReMcpError('internal-error', `the hashing worker failed: ${error.message}`);
    wake?.();
  };
  worker.on('error', fail);
  worker.on('exit', () => fail(new Error('it exited')));
  worker.on('message', (m: { done?: number; digest?: string }) => {
    if (m.digest !== undefined) resolveDigest?.(m.digest);
    else queued--;
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
    async update(chunk) {
      if (failure) throw failure;
      queued++;
      worker.postMessage(chunk);
      await waitFor(() => queued < HASH_CHUNKS_IN_FLIGHT);
    },
    async digest() {
      let hex: string | null = null;
      resolveDigest = (h) => {
        hex = h;
      };
      worker.postMessage(null);
      await waitFor(() => hex !== null);
      return hex!;
    },
    close() {
      worker.removeAllListeners('exit');
      void worker.terminate();
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

/** A chunk buffer the hasher can read: shared memory for a worker, ordinary memory otherwise. */
export function allocateChunk(hasher: StreamHasher, length: number): Uint8Array {
  return hasher.shared ? new Uint8Array(new SharedArrayBuffer(length)) : new Uint8Array(length);
}
