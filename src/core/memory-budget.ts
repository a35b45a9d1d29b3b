// One memory budget for the whole server: every call that holds a large buffer (the window of a patched
// ROM being streamed to its file and the patch it is made from, an assembler or Graphviz worker, a
// program map's build, a workspace listing) reserves its bytes here first and releases them when it is done. A call whose
// reservation does not fit waits, in arrival order, until enough is released; one that waits past its
// bound is refused `busy`, one that could never fit is refused `limit-exceeded`, and a cancelled wait
// ends `cancelled`. So the admitted calls together never hold more than the budget, whatever their
// mix. Caches hold their share too (hold: taken only when it fits at once) and give it back under
// pressure: a reservation that does not fit asks the registered reclaimers (onPressure) for room before
// it waits. The same bookkeeping counts other scarce things (the worker jobs that run at once);
// `unit` names what is counted in its refusals. Pure: no I/O.
import { ReMcpError, throwIfCancelled } from './errors.js';

const MEMORY_BUDGET_LIMITS = {
  /** Bytes the budgeted buffers of all calls may hold at once. */
  budgetBytes: { max: 768 * 1024 * 1024, unit: 'bytes' },
  /** How long a call waits for its reservation before it is refused busy. */
  waitMs: { default: 60_000, max: 600_000, unit: 'milliseconds' },
} as const;

/** Held bytes; release() gives them back (once; later calls do nothing). */
export interface Reservation {
  readonly bytes: number;
  release(): void;
}

interface Waiter {
  bytes: number;
  grant: () => void;
}

export class MemoryBudget {
  private used = 0;
  private readonly queue: Waiter[] = [];
  private readonly reclaimers: Array<(bytes: number) => void> = [];

  constructor(
    readonly totalBytes: number = MEMORY_BUDGET_LIMITS.budgetBytes.max,
    /** What is counted, as refusals name it. */
    private readonly unit = 'bytes of memory',
    /** Whose budget it is, as refusals name it. */
    private readonly owner = "the server's budget for all calls together",
  ) {}

  /** Bytes reserved now. */
  get reserved(): number {
    return this.used;
  }

  /**
   * Reserves `bytes` for `what` (named in refusals). Resolves when they fit; waits behind earlier
   * requests (first come, first served) for at most `waitMs`.
   */
  async reserve(
    bytes: number,
    what: string,
    options: { signal?: AbortSignal; waitMs?: number } = {},
  ): Promise<Reservation> {
    throwIfCancelled(options.signal);
    const need = Math.max(0, Math.ceil(bytes));
    if (need > this.totalBytes)
      throw new ReMcpError(
        'limit-exceeded',
        `${what} needs ${need} ${this.unit}; ${this.owner} is ${this.totalBytes}`,
        { bytes: need, budget: this.totalBytes },
      );
    if (this.queue.length === 0 && this.used + need > this.totalBytes) this.reclaim(need);
    if (this.queue.length === 0 && this.used + need <= this.totalBytes) return this.grant(need);
    const waitMs = Math.min(
      options.waitMs ?? MEMORY_BUDGET_LIMITS.waitMs.default,
      MEMORY_BUDGET_LIMITS.waitMs.max,
    );
    return new Promise<Reservation>((resolve, reject) => {
      const waiter: Waiter = {
        bytes: need,
        grant: () => {
          done();
          resolve(this.grant(need));
        },
      };
      const leave = (error: ReMcpError) => {
        const at = this.queue.indexOf(waiter);
        if (at >= 0) this.queue.splice(at, 1);
        done();
        reject(error);
        // A waiter at the head that leaves may unblock the ones behind it.
        this.pump();
      };
      const timer = setTimeout(
        () =>
          leave(
            new ReMcpError(
              'busy',
              `${what} waited ${waitMs} ms for ${need} ${this.unit} that other calls hold (${this.used} of ${this.totalBytes} reserved); try again when they finish`,
              { bytes: need, reserved: this.used, budget: this.totalBytes },
            ),
          ),
        waitMs,
      );
      const onAbort = () => leave(new ReMcpError('cancelled', 'the operation was cancelled by the client'));
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /**
   * Takes `bytes` for a cache at once, or returns null when they do not fit now (nothing is waited for
   * or reclaimed: a cache makes room by dropping what it holds).
   */
  hold(bytes: number): Reservation | null {
    const need = Math.max(0, Math.ceil(bytes));
    return this.queue.length === 0 && this.used + need <= this.totalBytes ? this.grant(need) : null;
  }

  /** Registers a cache that releases held bytes (synchronously) when asked for `bytes` of room. */
  onPressure(reclaim: (bytes: number) => void): void {
    this.reclaimers.push(reclaim);
  }

  /** Asks the caches for room until `need` more bytes fit (or none has more to give). */
  private reclaim(need: number): void {
    for (const r of this.reclaimers) {
      if (this.used + need <= this.totalBytes) break;
      r(this.used + need - this.totalBytes);
    }
  }

  /** Runs `fn` holding `bytes`, released when it settles. */
  async with<T>(
    bytes: number,
    what: string,
    options: { signal?: AbortSignal; waitMs?: number },
    fn: () => Promise<T>,
  ): Promise<T> {
    const r = await this.reserve(bytes, what, options);
    try {
      return await fn();
    } finally {
      r.release();
    }
  }

  private grant(bytes: number): Reservation {
    this.used += bytes;
    let held = true;
    return {
      bytes,
      release: () => {
        if (!held) return;
        held = false;
        this.used -= bytes;
        this.pump();
      },
    };
  }

  /** Grants waiting requests in order while the first one fits. */
  private pump(): void {
    while (this.queue.length > 0 && this.used + this.queue[0]!.bytes <= this.totalBytes)
      this.queue.shift()!.grant();
  }
}
