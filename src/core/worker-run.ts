// One bounded job in a worker thread of its own: the thread runs `code` (CommonJS, evaluated) with
// `data`, answers with one message, and is terminated whatever happens: at the answer, at the
// deadline (timeout), on cancellation (cancelled), when it fails (the caller's code) or exits without
// answering (internal-error). Its output streams are drained and dropped: a worker never writes to the
// server's stdout, which carries the protocol only. Used for WebAssembly that cannot be interrupted
// from inside (Graphviz, armips).
// Under load: at most one job per core runs at once (WORKER_SLOTS; the rest wait their turn, in order,
// cancellably), and a job's deadline counts from its start, so the time it waited for a core never
// counts against it: valid work does not time out because 32 calls arrived together.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type ErrorCode, ReMcpError, throwIfCancelled } from './errors.js';
import { MemoryBudget } from './memory-budget.js';

/** Worker jobs that run at once: one per core. */
export const WORKER_SLOTS = new MemoryBudget(
  Math.max(1, availableParallelism()),
  'worker slot(s)',
  'the number of worker jobs that run at once',
);

export interface WorkerJob {
  /** What the job is, in errors ("the graph layout"). */
  what: string;
  timeoutMs: number;
  heapMb: number;
  /** The error code for a worker that fails (a thrown error, its heap exhausted). */
  failure: ErrorCode;
  signal?: AbortSignal | undefined;
}

export async function runInWorker<T>(code: string, data: unknown, job: WorkerJob): Promise<T> {
  throwIfCancelled(job.signal);
  const slot = await WORKER_SLOTS.reserve(1, job.what, job.signal ? { signal: job.signal } : {});
  try {
    return await runNow<T>(code, data, job);
  } finally {
    slot.release();
  }
}

function runNow<T>(code: string, data: unknown, job: WorkerJob): Promise<T> {
  throwIfCancelled(job.signal);
  const worker = new Worker(code, {
    eval: true,
    workerData: data,
    resourceLimits: { maxOldGenerationSizeMb: job.heapMb },
    stdout: true,
    stderr: true,
  });
  worker.stdout.resume();
  worker.stderr.resume();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, value?: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      job.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      if (error) reject(error);
      else resolve(value as T);
    };
    const timer = setTimeout(
      () =>
        finish(
          new ReMcpError('timeout', `${job.what} took longer than ${job.timeoutMs} ms and was stopped`, {
            timeoutMs: job.timeoutMs,
          }),
        ),
      job.timeoutMs,
    );
    const onAbort = () => finish(new ReMcpError('cancelled', `${job.what} was cancelled`));
    job.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: T) => finish(null, m));
    worker.on('error', (e) =>
      finish(
        new ReMcpError(job.failure, `${job.what} stopped: ${e instanceof Error ? e.message : String(e)}`),
      ),
    );
    worker.on('exit', (exit) =>
      finish(new ReMcpError('internal-error', `${job.what} ended without an answer (exit ${exit})`)),
    );
  });
}
