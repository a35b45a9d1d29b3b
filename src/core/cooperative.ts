// Long pure computations written as generators (they yield at bounded intervals) run cooperatively
// (driveSteps): the caller's event loop gets a turn after every time slice, so pings are answered and
// a cancellation is seen while a hash or a BLZ encode is under way. (Run to the end at once, a
// generator is just a loop over next(); the BLZ encoder's synchronous entry does that.)
import { createHash } from 'node:crypto';
import { ReMcpError, throwIfCancelled } from './errors.js';
import { turnGate } from './turn-gate.js';

/** A computation that yields between bounded pieces of work; its return value is the result. */
export type Steps<T> = Generator<void, T, void>;

/**
 * Longest stretch of work of one loop between two of its turns (driveSteps, turnTaker, the map's walk
 * clock), in milliseconds. Short, because under load the slice is what a ping waits for, stretched by
 * every other thread the machine runs (measured in the flood: the server's main thread waited for a
 * CPU twice as long as it ran); each turn costs the loop well under 0.1 ms.
 */
export const COOPERATIVE_SLICE_MS = 5;

/**
 * The work every cooperative loop does together in one turn of the event loop, in milliseconds. The
 * loops that yield resume one per turn (core/turn-gate.ts), but loops also start and resume outside
 * the gate (a call that arrives, a read that completes): once the loops of one turn have run this
 * long together, each further one yields after MIN_SLICE_MS of its own work, so the turn ends after
 * about SHARED_TURN_MS plus MIN_SLICE_MS a loop, however many calls run.
 */
export const SHARED_TURN_MS = 10;
/** The least a loop works (after it starts or resumes) before it gives way to the shared bound. */
export const MIN_SLICE_MS = 1;

/** When the cooperative work of the current turn of the event loop began, while one is open. */
let turnBegan = 0;
let inTurn = false;

/**
 * Opens the turn's shared bound at `at` unless one is open. It closes in the next timers phase: the
 * work of a turn's poll phase (calls that start, I/O that completes) and of its check phase (loops
 * resuming) count together, as they delay the next read of the input together.
 */
function beginTurn(at: number): void {
  if (inTurn) return;
  inTurn = true;
  turnBegan = at;
  setTimeout(() => {
    inTurn = false;
  }, 0).unref();
}

/**
 * Whether a loop that has worked since `since` (performance.now()) should yield now: past its own
 * `sliceMs`, or past MIN_SLICE_MS once the loops of this turn have together run SHARED_TURN_MS.
 */
export function sliceDue(since: number, now = performance.now(), sliceMs = COOPERATIVE_SLICE_MS): boolean {
  beginTurn(since);
  const own = now - since;
  return own >= sliceMs || (own >= MIN_SLICE_MS && now - turnBegan >= SHARED_TURN_MS);
}

/**
 * Yields to the event loop through the server's turn gate (core/turn-gate.ts: the loops that yield
 * resume one per turn of the event loop, in order); the work after it counts in the new turn's shared
 * bound. A cancellation of `signal` ends the wait at once (the caller checks it next).
 */
export async function cooperativeTurn(signal?: AbortSignal): Promise<void> {
  await turnGate.pass(signal);
  beginTurn(performance.now());
}

/**
 * Runs the steps, giving the event loop a turn at least every `sliceMs` (default
 * COOPERATIVE_SLICE_MS, at most 1000; sooner once this turn's loops together ran SHARED_TURN_MS) and
 * checking `signal` at each turn. With `deadline`, steps still
 * running `deadline.ms` after the start end in a `timeout` naming `deadline.what`.
 */
export async function driveSteps<T>(
  steps: Steps<T>,
  options: { signal?: AbortSignal; sliceMs?: number; deadline?: { ms: number; what: string } } = {},
): Promise<T> {
  const slice = Math.min(Math.max(options.sliceMs ?? COOPERATIVE_SLICE_MS, 1), 1000);
  throwIfCancelled(options.signal);
  let since = performance.now();
  const deadline = options.deadline ? since + options.deadline.ms : Number.POSITIVE_INFINITY;
  try {
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
      const now = performance.now();
      if (now >= deadline)
        throw new ReMcpError(
          'timeout',
          `${options.deadline!.what} took longer than ${options.deadline!.ms} ms and was stopped`,
        );
      if (sliceDue(since, now, slice)) {
        await cooperativeTurn(options.signal);
        throwIfCancelled(options.signal);
        since = performance.now();
      }
    }
  } finally {
    steps.return(undefined as T);
  }
}

/**
 * A pause for a loop that cannot be written as steps (an async builder): call the returned function
 * often; it returns a promise of the next event-loop turn once `sliceMs` have passed since the last
 * turn it gave, and undefined otherwise. It reads the clock every `every` calls (a power of two: 256
 * for a tight loop, 1 between long pieces of work).
 */
export function turnTaker(sliceMs = COOPERATIVE_SLICE_MS, every = 256): () => Promise<void> | undefined {
  let since = performance.now();
  let calls = 0;
  const mask = every - 1;
  return () => {
    if ((++calls & mask) !== 0 || !sliceDue(since, performance.now(), sliceMs)) return undefined;
    return cooperativeTurn().then(() => {
      since = performance.now();
    });
  };
}

/** Runs the steps to the end at once (no turns): what a synchronous caller of a generator core needs. */
export function runSteps<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** SHA-256 (hex) of bytes in memory, a yield after every MiB. */
export function* sha256Steps(bytes: Uint8Array): Steps<string> {
  const h = createHash('sha256');
  for (let at = 0; at < bytes.length; at += 1 << 20) {
    h.update(bytes.subarray(at, Math.min(bytes.length, at + (1 << 20))));
    yield;
  }
  return h.digest('hex');
}
