// The walk's clock: every 64 calls of its checkpoint, cancellation and the deadline are checked, and
// once the walk's slice is due (core/cooperative.ts sliceDue: COOPERATIVE_SLICE_MS of its own work, or
// less once the loops of this turn of the event loop used the turn's shared bound) progress is
// reported and the walk waits for its next turn at the server's turn gate (one loop resumes per turn
// of the event loop, so concurrent walks never run their slices back to back before input is read).
import { cooperativeTurn, sliceDue } from '../../core/cooperative.js';
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
  /** performance.now() when the walk last resumed. */
  private since = performance.now();
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
    if (Date.now() > this.budget.deadline) throw new WalkStopped('time-limit');
    if (!sliceDue(this.since)) return undefined;
    this.budget.onProgress?.(done());
    return cooperativeTurn(this.budget.signal).then(() => {
      this.since = performance.now();
    });
  }
}
