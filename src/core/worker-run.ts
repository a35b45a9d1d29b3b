// One bounded job in a worker thread of its own: the thread runs `code` (CommonJS, evaluated) with
// `data`, answers with one message, and is terminated whatever happens: at the answer, at the
// deadline (timeout), on cancellation (cancelled), when it fails (the caller's code) or exits without
// answering (internal-error). Its output streams are drained and dropped: a worker never writes to the
// server's stdout, which carries the protocol only. Used for WebAssembly that cannot be interrupted
// from inside (Graphviz, armips).
import { Worker } from 'node:worker_threads';
import { type ErrorCode, ReMcpError, throwIfCancelled } from './errors.js';

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
