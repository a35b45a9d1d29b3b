// The server's turn gate: every cooperative loop that has worked its slice and wants to go on waits
// here, in order of arrival, and the gate lets ONE of them go per turn of the event loop. Without it,
// N loops that yielded with setImmediate all resume in the same check phase of one turn, one slice
// each, before the loop polls its input again: a ping waited N slices. Through the gate the input is
// polled between any two slices, however many calls run; each loop still gets its turn in order (a
// loop that comes back goes to the end of the queue), so none is starved.
// Pure: no I/O, no MCP; the scheduler is injectable so the tests can drive it turn by turn.

/** One loop waiting for its turn. */
interface Waiter {
  resolve: () => void;
  /** Set once released (by its turn or its cancellation): the pump skips it. */
  done: boolean;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}

/** Most waiters the queue holds before its released head is compacted away (a bound on dead slots). */
const COMPACT_AT = 1024;

export class TurnGate {
  private queue: Waiter[] = [];
  private head = 0;
  private scheduled = false;
  private released = 0;

  /**
   * `schedule` runs its callback in a later turn of the event loop (setImmediate by default: a
   * setImmediate queued from an immediate callback runs in the next turn, after the loop's poll phase).
   */
  constructor(private readonly schedule: (run: () => void) => void = (run) => setImmediate(run)) {}

  /** Loops waiting now (cancelled ones are not counted). */
  get waiting(): number {
    let n = 0;
    for (let i = this.head; i < this.queue.length; i++) if (!this.queue[i]!.done) n++;
    return n;
  }

  /** Loops let go since the gate was made (a figure for tests and benches). */
  get passes(): number {
    return this.released;
  }

  /**
   * Resolves when this loop's turn comes: after every loop that asked before it, one per turn of the
   * event loop. A cancellation of `signal` resolves it at once (out of order): the caller then sees its
   * signal aborted and stops; it never waits for the queue to be cancelled.
   */
  pass(signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const w: Waiter = { resolve, done: false, signal, onAbort: undefined };
      if (signal?.aborted) {
        resolve();
        return;
      }
      if (signal) {
        w.onAbort = () => this.release(w);
        signal.addEventListener('abort', w.onAbort, { once: true });
      }
      this.queue.push(w);
      this.arm();
    });
  }

  private release(w: Waiter): void {
    if (w.done) return;
    w.done = true;
    if (w.signal && w.onAbort) w.signal.removeEventListener('abort', w.onAbort);
    w.resolve();
  }

  /** Schedules the pump unless it is scheduled: there is always one pending while anyone waits. */
  private arm(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(this.pump);
  }

  /** Lets the first waiter still waiting go, then schedules itself for the next turn if more wait. */
  private readonly pump = (): void => {
    this.scheduled = false;
    while (this.head < this.queue.length) {
      const w = this.queue[this.head++]!;
      if (w.done) continue;
      this.released++;
      this.release(w);
      break;
    }
    if (this.head >= this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head >= COMPACT_AT) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.head < this.queue.length) this.arm();
  };
}

/** The server's one gate: every cooperative loop of the process waits at it. */
export const turnGate = new TurnGate();
