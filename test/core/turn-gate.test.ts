// The server's turn gate (src/core/turn-gate.ts): loops that want to go on after their slice are let
// go one per turn of the event loop, in order of arrival. Asserted by order, never by time: which loop
// goes when (a scheduler the test runs turn by turn), how many slices run between two deliveries of a
// message port (input the event loop polls), cancellation out of order, and no waiter ever left behind.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COOPERATIVE_SLICE_MS, driveSteps, type Steps } from '../../src/core/cooperative.js';
import { TurnGate, turnGate } from '../../src/core/turn-gate.js';

/** A scheduler the test drives: turn() runs what was scheduled before it, one callback a turn. */
function manualTurns() {
  const pending: Array<() => void> = [];
  return {
    schedule: (run: () => void) => pending.push(run),
    get pending() {
      return pending.length;
    },
    /** Runs one scheduled callback, then lets the promise continuations it caused run. */
    async turn(): Promise<boolean> {
      const run = pending.shift();
      if (!run) return false;
      run();
      for (let i = 0; i < 20; i++) await Promise.resolve();
      return true;
    },
  };
}

test('loops are let go in order of arrival, one a turn, and a loop that comes back goes last', async () => {
  const turns = manualTurns();
  const gate = new TurnGate(turns.schedule);
  const order: string[] = [];
  const loop = async (name: string, slices: number) => {
    for (let i = 0; i < slices; i++) {
      await gate.pass();
      order.push(`${name}${i}`);
    }
  };
  const all = Promise.all([loop('a', 3), loop('b', 3), loop('c', 2)]);
  // Each turn releases exactly one waiter.
  const perTurn: number[] = [];
  for (let before = order.length; await turns.turn(); before = order.length)
    perTurn.push(order.length - before);
  await all;
  assert.deepEqual(order, ['a0', 'b0', 'c0', 'a1', 'b1', 'c1', 'a2', 'b2']);
  assert.deepEqual(perTurn, [1, 1, 1, 1, 1, 1, 1, 1]);
  assert.equal(gate.waiting, 0);
  assert.equal(gate.passes, 8);
  assert.equal(turns.pending, 0, 'nothing stays scheduled once nobody waits');
});

test('no lost wake-ups: waiters that arrive while the pump runs, after it emptied, or in bursts all pass', async () => {
  const turns = manualTurns();
  const gate = new TurnGate(turns.schedule);
  let passed = 0;
  let asked = 0;
  const ask = () => {
    asked++;
    return gate.pass().then(() => {
      passed++;
    });
  };
  // A deterministic pseudo-random mix of arrivals between turns, and arrivals from inside a release.
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed;
  };
  const waits: Promise<void>[] = [];
  for (let round = 0; round < 400; round++) {
    const burst = rand() % 4;
    for (let i = 0; i < burst; i++) waits.push(ask());
    if (rand() % 3 === 0) waits.push(ask().then(() => void waits.push(ask())));
    if (rand() % 2 === 0) await turns.turn();
  }
  while (await turns.turn()) {}
  await Promise.all(waits);
  assert.equal(passed, asked);
  assert.equal(gate.passes, asked);
  assert.equal(gate.waiting, 0);
  assert.equal(turns.pending, 0);
  // Once idle, a new waiter schedules the pump again.
  const late = ask();
  assert.equal(turns.pending, 1);
  await turns.turn();
  await late;
  assert.equal(passed, asked);
});

test('a cancelled waiter is let go at once, out of order; the others keep their order', async () => {
  const turns = manualTurns();
  const gate = new TurnGate(turns.schedule);
  const order: string[] = [];
  const stop = new AbortController();
  const w = (name: string, signal?: AbortSignal) => gate.pass(signal).then(() => void order.push(name));
  const all = [w('a'), w('b'), w('cancelled', stop.signal), w('c')];
  await turns.turn();
  stop.abort();
  await Promise.resolve();
  assert.deepEqual(order, ['a', 'cancelled']);
  assert.equal(gate.waiting, 2);
  while (await turns.turn()) {}
  await Promise.all(all);
  assert.deepEqual(order, ['a', 'cancelled', 'b', 'c']);
  assert.equal(gate.passes, 3, 'the cancelled waiter took no turn');
  // Already cancelled: not queued at all.
  await gate.pass(stop.signal);
  assert.equal(turns.pending, 0);
});

test('driveSteps behind a long queue sees its cancellation without waiting for the queue', async () => {
  const stop = new AbortController();
  let steps = 0;
  function* endless(): Steps<void> {
    for (;;) {
      const until = performance.now() + COOPERATIVE_SLICE_MS + 1;
      while (performance.now() < until) {}
      steps++;
      yield;
    }
  }
  const run = driveSteps(endless(), { signal: stop.signal });
  // The first slice ran synchronously and the loop now waits at the gate.
  assert.equal(steps, 1);
  stop.abort();
  await assert.rejects(run, (e: unknown) => (e as { code?: string }).code === 'cancelled');
  assert.equal(steps, 1);
});

test('with 40 loops working at the gate, the event loop polls its input between any two slices', async () => {
  // A message port's messages are delivered in the event loop's poll phase, as stdin's data is: a
  // ping-pong counts the slices that ran between two deliveries.
  const { port1, port2 } = new MessageChannel();
  let slicesSinceMessage = 0;
  let most = 0;
  let messages = 0;
  let running = true;
  port2.on('message', () => {
    messages++;
    most = Math.max(most, slicesSinceMessage);
    slicesSinceMessage = 0;
    if (running) port1.postMessage(0);
  });
  port1.postMessage(0);
  const LOOPS = 40;
  const SLICES = 25;
  const loop = async () => {
    for (let i = 0; i < SLICES; i++) {
      await turnGate.pass();
      slicesSinceMessage++;
    }
  };
  await Promise.all(Array.from({ length: LOOPS }, loop));
  running = false;
  port1.close();
  port2.close();
  // Without the gate (setImmediate) all 40 loops resume in one check phase: 40 slices a turn.
  assert.ok(most <= 2, `${most} slices ran between two messages`);
  assert.ok(messages >= (LOOPS * SLICES) / 3, `${messages} messages during ${LOOPS * SLICES} slices`);
});
