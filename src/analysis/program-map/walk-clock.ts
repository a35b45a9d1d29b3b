// The walk's clock: every 64 calls of its checkpoint, cancellation and the deadline are checked, and
// past 15 ms since the last yield progress is reported and the event loop gets a turn.
import { throwIfCancelled } from '../../core/errors.js';
import { WalkStopped } from './walk-types.js';

export interface WalkBudget {
  /** Bytes of code the walk may classify in all. */
  codeBytes: number;
  /** Date.now() past which the walk stops. */
  deadline: number;
  signal?: AbortSignal | undefined;
  onProgress?: ((done: number) => void) | undefined;
}

export class WalkClock {
  private lastYield = Date.now();
  private ticks = 0;

  constructor(readonly budget: WalkBudget) {}

  /**
   * Throws WalkStopped past the deadline (or the cancellation error); returns a promise that lets the
   * event loop run when a turn is due, else undefined (the caller awaits only then: most calls cost a
   * counter). `done`: progress to report (bytes of code classified so far).
   */
  checkpoint(done: () => number): Promise<void> | undefined {
    if ((++this.ticks & 63) !== 0) return undefined;
    throwIfCancelled(this.budget.signal);
    const now = Date.now();
    if (now > this.budget.deadline) throw new WalkStopped('time-limit');
    if (now - this.lastYield <= 15) return undefined;
    this.budget.onProgress?.(done());
    return new Promise<void>((resolve) => {
      setImmediate(() => {
        this.lastYield = Date.now();
        resolve();
      });
    });
  }
}
