// Nothing a check starts outlives the call: background children die with the process group, and a
// child that left the group with setsid() dies with the PID namespace. Both containment paths are
// exercised: the namespace (where unshare works, as on CI) and the process-group fallback, whose
// documented limit is exactly the setsid escape.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runBounded } from '../../src/core/bounded-process.js';
import { containment, forceContainment } from '../../src/core/containment.js';
import { killAll, processesWith, uniqueSleep, waitGone } from '../kit/processes.js';

let base: string;
before(async () => {
  base = await mkdtemp(join(tmpdir(), 're-mcp-contain-'));
});
after(async () => {
  forceContainment(null);
  await rm(base, { recursive: true, force: true });
});

const run = (script: string, timeoutMs = 20_000) =>
  runBounded({
    argv: ['sh', '-c', script],
    cwd: base,
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs,
    maxOutputBytes: 4096,
    killGraceMs: 200,
  });

test('this machine contains checks in a PID namespace (unshare works here)', () => {
  assert.equal(containment().mode, 'pid-namespace');
});

test('pid namespace: a setsid child of a check that passed does not outlive it', async () => {
  forceContainment(null);
  const escaped = uniqueSleep();
  const background = uniqueSleep();
  const r = await run(`setsid sleep ${escaped} & sleep ${background} & sleep 0.3; exit 0`);
  assert.equal(r.exitCode, 0);
  const left = [...(await waitGone(escaped, 3_000)), ...(await waitGone(background, 3_000))];
  killAll(left);
  assert.deepEqual(left, [], 'processes survived the check');
});

test('pid namespace: a timeout still stops the check, its setsid child included', async () => {
  forceContainment(null);
  const escaped = uniqueSleep();
  const r = await run(`setsid sleep ${escaped} & sleep 30`, 500);
  assert.equal(r.timedOut, true);
  const left = await waitGone(escaped, 3_000);
  killAll(left);
  assert.deepEqual(left, []);
});

test('pid namespace: a missing executable is still a spawn error', async () => {
  forceContainment(null);
  const r = await runBounded({
    argv: ['no-such-command-re-mcp'],
    cwd: base,
    env: { PATH: '/usr/bin:/bin' },
    timeoutMs: 5_000,
    maxOutputBytes: 100,
  });
  assert.match(String(r.spawnError), /ENOENT/);
});

test('process-group fallback: background children die with the group', async () => {
  forceContainment('process-group');
  try {
    const background = uniqueSleep();
    const escaped = uniqueSleep();
    const r = await run(`sleep ${background} & setsid sleep ${escaped} & sleep 0.3; exit 0`);
    assert.equal(r.exitCode, 0);
    const left = await waitGone(background, 3_000);
    // The documented limit of the fallback: a setsid child leaves the group. Clean it up here.
    killAll(processesWith(escaped));
    killAll(left);
    assert.deepEqual(left, []);
  } finally {
    forceContainment(null);
  }
});
