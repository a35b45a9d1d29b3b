// Issue 48, pings under the admitted concurrency: with dozens of calls working cooperatively, the
// server must read its input between their slices, not after all of them. Here the real loops of the
// server (driveSteps over a hash, turnTaker pauses of an async builder, the program map's walk clock)
// run 36 at once while a client echoes bytes over a Unix socket (input the event loop polls, as it
// polls stdin). Asserted by order, never by time: between two deliveries of the echo, the turn gate
// let at most a few loops go (one per turn of the event loop), however many wait; before the gate,
// every loop that yielded resumed in the same turn (36 slices between two reads).
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { WalkClock } from '../../src/analysis/program-map/walk-clock.js';
import { COOPERATIVE_SLICE_MS, driveSteps, type Steps, turnTaker } from '../../src/core/cooperative.js';
import { turnGate } from '../../src/core/turn-gate.js';

/** Busy work until the loop's slice is surely due (its own slice spent). */
function work(): void {
  const until = performance.now() + COOPERATIVE_SLICE_MS + 0.5;
  while (performance.now() < until) {}
}

const LOOPS_PER_KIND = 12;
const SLICES = 6;

function* stepsLoop(): Steps<number> {
  for (let i = 0; i < SLICES; i++) {
    work();
    yield;
  }
  return SLICES;
}

async function takerLoop(): Promise<number> {
  const turn = turnTaker(undefined, 1);
  for (let i = 0; i < SLICES; i++) {
    work();
    const pause = turn();
    if (pause) await pause;
  }
  return SLICES;
}

async function walkLoop(): Promise<number> {
  const clock = new WalkClock({ codeBytes: 1, deadline: Date.now() + 600_000 });
  for (let i = 0; i < SLICES; i++) {
    work();
    // The clock looks at the time every 64 checkpoints.
    for (let k = 0; k < 64; k++) {
      const pause = clock.checkpoint(() => 0);
      if (pause) await pause;
    }
  }
  return SLICES;
}

test('36 cooperative loops of three kinds: the event loop reads a socket between any few of their slices', async () => {
  const dir = await mkdtemp(join(tmpdir(), 're-mcp-gate-'));
  const path = join(dir, 'echo.sock');
  const server = createServer((s) => {
    s.on('data', (d) => s.write(d));
    // The client goes first at the end; its last echo may meet a closed socket.
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const client: Socket = createConnection(path);
  await new Promise<void>((resolve) => client.once('connect', resolve));
  let lastPasses = turnGate.passes;
  let most = 0;
  let echoes = 0;
  let running = true;
  client.on('data', () => {
    echoes++;
    most = Math.max(most, turnGate.passes - lastPasses);
    lastPasses = turnGate.passes;
    if (running) client.write('p');
  });
  try {
    const before = turnGate.passes;
    client.write('p');
    const done = await Promise.all([
      ...Array.from({ length: LOOPS_PER_KIND }, () => driveSteps(stepsLoop())),
      ...Array.from({ length: LOOPS_PER_KIND }, takerLoop),
      ...Array.from({ length: LOOPS_PER_KIND }, walkLoop),
    ]);
    running = false;
    assert.equal(
      done.reduce((a, b) => a + b, 0),
      3 * LOOPS_PER_KIND * SLICES,
    );
    // Every kind of loop waited at the gate: nearly every slice but the first of each loop.
    const passes = turnGate.passes - before;
    assert.ok(passes >= 3 * LOOPS_PER_KIND * (SLICES - 2), `${passes} passes through the gate`);
    // A round trip is two turns of the event loop (the server side reads and writes, the client reads).
    assert.ok(most <= 3, `${most} loops went between two echoes`);
    assert.ok(echoes >= passes / 4, `${echoes} echoes during ${passes} passes`);
  } finally {
    client.end();
    client.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  }
});
