// Cooperative loops (src/core/cooperative.ts) share one bound per turn of the event loop: with dozens
// of loops running (a flood of calls), each yielding after its own 10 ms slice, a turn ran all their
// slices before the loop read its input again. Counted in steps of known length, never in time: a
// preempted step only makes a turn hold fewer of them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  COOPERATIVE_SLICE_MS,
  driveSteps,
  MIN_SLICE_MS,
  SHARED_TURN_MS,
  type Steps,
  turnTaker,
} from '../../src/core/cooperative.js';

const STEP_MS = 0.25;
const LOOPS = 30;
const STEPS = 18;

/** Busy work of STEP_MS. */
function busy(): void {
  const until = performance.now() + STEP_MS;
  while (performance.now() < until) {}
}

/** Counts the steps every loop runs between two runs of a timer (one turn of the event loop each). */
function turnCounter() {
  let thisTurn = 0;
  let most = 0;
  let running = true;
  const tick = () => {
    most = Math.max(most, thisTurn);
    thisTurn = 0;
    if (running) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  return {
    step: () => thisTurn++,
    stop: () => {
      running = false;
      return Math.max(most, thisTurn);
    },
  };
}

/**
 * What one turn may hold: the shared bound, then the least slice (and one step past it) of each loop
 * twice: where it starts (the turn's poll phase here) and where it first resumes (its check phase).
 */
const bound = Math.ceil((SHARED_TURN_MS + 2 * LOOPS * (MIN_SLICE_MS + STEP_MS)) / STEP_MS) + 2 * LOOPS;
// Each loop alone would run all its steps in its first slice: one turn would hold every step.
assert.ok(STEPS * STEP_MS < COOPERATIVE_SLICE_MS && bound < LOOPS * STEPS);

test('thirty driveSteps loops together yield once the turn has run its shared bound', async () => {
  const turns = turnCounter();
  function* loop(n: number): Steps<number> {
    for (let i = 0; i < STEPS; i++) {
      busy();
      turns.step();
      yield;
    }
    return n;
  }
  const done = await Promise.all(Array.from({ length: LOOPS }, (_, n) => driveSteps(loop(n))));
  const most = turns.stop();
  assert.deepEqual(
    done,
    Array.from({ length: LOOPS }, (_, n) => n),
  );
  assert.ok(most <= bound, `one turn ran ${most} steps of ${STEP_MS} ms (bound ${bound})`);
});

test('thirty turnTaker loops together yield once the turn has run its shared bound', async () => {
  const turns = turnCounter();
  const loop = async (n: number) => {
    const turn = turnTaker(undefined, 1);
    for (let i = 0; i < STEPS; i++) {
      busy();
      turns.step();
      const pause = turn();
      if (pause) await pause;
    }
    return n;
  };
  const done = await Promise.all(Array.from({ length: LOOPS }, (_, n) => loop(n)));
  const most = turns.stop();
  assert.equal(done.length, LOOPS);
  assert.ok(most <= bound, `one turn ran ${most} steps of ${STEP_MS} ms (bound ${bound})`);
});
