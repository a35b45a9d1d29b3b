// One bounded job in a worker thread of its own: the thread runs `code` (CommonJS, evaluated) with
// `data`, answers with one message, and is terminated whatever happens: at the answer, at the
// deadline (timeout), on cancellation (cancelled), when it fails (the caller's code) or exits without
// answering (internal-error). Its output streams are drained and dropped: a worker never writes to the
// server's stdout, which carries the protocol only. Used for WebAssembly that cannot be interrupted
// from inside (Graphviz, armips).
// Under load: at most one job per core runs at once (WORKER_SLOTS; the rest wait their turn, in order,
// cancellably), and a job's deadline counts from its start, so the time it waited for a core never
// counts against it: valid work does not time out because 32 calls arrived together.
// A worker thread runs below the main thread (LOWERED_WORKER: nice +10 on Linux, as the process's own
// helper threads, src/cli/helper-threads.ts): on a machine with few cores the jobs still get every
// core the main thread leaves idle, but never hold the main thread off a core, so the server keeps
// reading its input and answering pings while layouts and assemblies run.
// KeptWorkers: the same bounded jobs on workers kept between jobs (at most one per core), for work
// whose start-up costs more than the job (armips: loading and compiling its WebAssembly). A kept
// worker runs one job at a time; at its deadline, on cancellation, when it fails or exits, or when its
// answer says it is not fit for another job, it is terminated and a later job starts a new one. An
// idle worker holds a share of the memory budget of the call it last served and is terminated when a
// reservation of that budget needs the room (onPressure), like the caches.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type ErrorCode, ReMcpError, throwIfCancelled } from './errors.js';
import { MemoryBudget, type Reservation } from './memory-budget.js';

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

// A kept worker's output streams are dropped inside it: the parent's side of a worker's stream, once
// read, holds the process open until the stream ends, and an idle worker must not. Its streams are
// still its own (stdout: true), never the server's.
const SILENCED = `
for (const stream of [process.stdout, process.stderr])
  stream.write = (chunk, encoding, callback) => {
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') queueMicrotask(done);
    return true;
  };
`;

/**
 * Run first in every worker: on Linux the worker's own thread (its id from /proc/thread-self) goes
 * WORKER_NICE steps below the main thread (at most 19; never raised, a thread already lower is left
 * alone; a refusal changes nothing). Elsewhere a thread has no id of its own for setpriority(2).
 */
const WORKER_NICE = 10;
const LOWERED_WORKER = `
if (process.platform === 'linux') {
  try {
    const os = require('node:os');
    const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
    const target = Math.min(19, os.getPriority(process.pid) + ${WORKER_NICE});
    if (Number.isSafeInteger(tid) && tid !== process.pid && os.getPriority(tid) < target) os.setPriority(tid, target);
  } catch {}
}
`;

/**
 * A worker thread running `code` (CommonJS, evaluated) with `data`, below the main thread
 * (LOWERED_WORKER); its output streams drained, or (kept workers) silenced inside it.
 */
function startWorker(code: string, data: unknown, heapMb: number, silenced = false): Worker {
  const worker = new Worker(LOWERED_WORKER + (silenced ? SILENCED + code : code), {
    eval: true,
    workerData: data,
    resourceLimits: { maxOldGenerationSizeMb: heapMb },
    stdout: true,
    stderr: true,
  });
  if (!silenced) {
    worker.stdout.resume();
    worker.stderr.resume();
  }
  return worker;
}

function runNow<T>(code: string, data: unknown, job: WorkerJob): Promise<T> {
  throwIfCancelled(job.signal);
  const worker = startWorker(code, data, job.heapMb);
  return awaitAnswer<T>(worker, job, () => void worker.terminate());
}

/**
 * The one answer `worker` gives to the job it was given: `done` runs first whatever happens, with the
 * answer or null after a failure (it terminates the worker, or keeps it), then the promise settles.
 * The listeners are the job's own and are removed when it settles.
 */
function awaitAnswer<T>(
  worker: Worker,
  job: WorkerJob,
  done: (answer: { value: T } | null) => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, value?: T) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      job.signal?.removeEventListener('abort', onAbort);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      done(error === null ? { value: value as T } : null);
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
    const onMessage = (m: T) => finish(null, m);
    const onError = (e: unknown) =>
      finish(
        new ReMcpError(job.failure, `${job.what} stopped: ${e instanceof Error ? e.message : String(e)}`),
      );
    const onExit = (exit: number) =>
      finish(new ReMcpError('internal-error', `${job.what} ended without an answer (exit ${exit})`));
    job.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
  });
}

export interface KeptWorkerSpec {
  /** What a job is, in errors ("the assembly"). */
  what: string;
  /**
   * The worker's code (CommonJS, evaluated, given `data` as workerData): it takes each job as a
   * message (parentPort 'message') and answers each with exactly one message, in order.
   */
  code: string;
  data: unknown;
  heapMb: number;
  /** The error code for a worker that fails (a thrown error, its heap exhausted). */
  failure: ErrorCode;
  /** Bytes an idle worker holds of the memory budget of the call it last served. */
  idleBytes: number;
  /** Idle workers kept at most (default: one per core, WORKER_SLOTS). */
  maxIdle?: number;
}

export interface KeptJob {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** The server's budget: an idle worker holds its share of it (and goes when it needs the room). */
  memory?: MemoryBudget | undefined;
  /** What the job reserved of `memory` for its worker: released when the job ends, before the idle share is taken. */
  reserved?: Reservation | undefined;
}

interface Idle {
  worker: Worker;
  /** Its share of `budget` (null without one). */
  held: Reservation | null;
  budget: MemoryBudget | null;
}

/** Jobs on long-lived workers, one job a worker at a time (see the head of this file). */
export class KeptWorkers<T> {
  private readonly idle: Idle[] = [];
  private readonly budgets = new WeakSet<MemoryBudget>();
  /** Workers started, jobs answered and workers ended after a job (failed or unfit) since this pool was made. */
  readonly counts = { started: 0, answered: 0, discarded: 0 };

  constructor(
    private readonly spec: KeptWorkerSpec,
    /** Whether a worker that gave `answer` may serve another job (default: yes). */
    private readonly fitAfter: (answer: T) => boolean = () => true,
  ) {}

  /** Idle workers now. */
  get idleWorkers(): number {
    return this.idle.length;
  }

  /** Runs one job on an idle worker (or a new one), one per core at once; its deadline counts from its start. */
  async run(data: unknown, job: KeptJob): Promise<T> {
    throwIfCancelled(job.signal);
    const slot = await WORKER_SLOTS.reserve(1, this.spec.what, job.signal ? { signal: job.signal } : {});
    try {
      throwIfCancelled(job.signal);
      const worker = this.take() ?? this.start();
      worker.ref();
      const full: WorkerJob = {
        what: this.spec.what,
        timeoutMs: job.timeoutMs,
        heapMb: this.spec.heapMb,
        failure: this.spec.failure,
        signal: job.signal,
      };
      const pending = awaitAnswer<T>(worker, full, (answer) => {
        job.reserved?.release();
        if (answer !== null && this.fitAfter(answer.value)) this.keep(worker, job.memory);
        else {
          this.counts.discarded++;
          void worker.terminate();
        }
      });
      worker.postMessage(data);
      const result = await pending;
      this.counts.answered++;
      return result;
    } finally {
      slot.release();
    }
  }

  /** Terminates every idle worker (a busy one is kept or not when its job ends); later jobs start new ones. */
  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((i) => this.end(i)));
  }

  private start(): Worker {
    const worker = startWorker(this.spec.code, this.spec.data, this.spec.heapMb, true);
    this.counts.started++;
    // Between jobs nobody else listens: a worker that fails or exits while idle just leaves the pool.
    worker.on('error', () => {});
    worker.on('exit', () => {
      const at = this.idle.findIndex((i) => i.worker === worker);
      if (at >= 0) this.idle.splice(at, 1)[0]!.held?.release();
    });
    return worker;
  }

  private take(): Worker | null {
    const idle = this.idle.pop();
    if (!idle) return null;
    idle.held?.release();
    return idle.worker;
  }

  private keep(worker: Worker, memory: MemoryBudget | undefined): void {
    const max = this.spec.maxIdle ?? WORKER_SLOTS.totalBytes;
    const held = memory ? memory.hold(this.spec.idleBytes) : null;
    if (this.idle.length >= max || (memory && held === null)) {
      held?.release();
      void worker.terminate();
      return;
    }
    if (memory && !this.budgets.has(memory)) {
      this.budgets.add(memory);
      memory.onPressure((bytes) => this.reclaim(memory, bytes));
    }
    // An idle worker never keeps the process alive.
    worker.unref();
    this.idle.push({ worker, held, budget: memory ?? null });
  }

  /** Terminates idle workers holding shares of `memory`, oldest first, until `bytes` are free. */
  private reclaim(memory: MemoryBudget, bytes: number): void {
    let freed = 0;
    for (const idle of [...this.idle]) {
      if (freed >= bytes) break;
      if (idle.held === null || idle.budget !== memory) continue;
      freed += idle.held.bytes;
      this.idle.splice(this.idle.indexOf(idle), 1);
      void this.end(idle);
    }
  }

  private async end(idle: Idle): Promise<void> {
    idle.held?.release();
    await idle.worker.terminate();
  }
}
