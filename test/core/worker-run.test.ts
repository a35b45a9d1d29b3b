// Kept workers (core/worker-run.ts KeptWorkers): reused between jobs; ended and replaced at a deadline,
// on cancellation, when the job's code throws or exits the thread, when the heap cap is reached, and
// when the answer says the worker is unfit; an idle worker holds its share of the memory budget and
// is ended when a reservation needs the room; an idle worker never keeps the process alive.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ReMcpError } from '../../src/core/errors.js';
import { MemoryBudget } from '../../src/core/memory-budget.js';
import { KeptWorkers } from '../../src/core/worker-run.js';
import { REPO_ROOT } from '../kit/mcp-harness.js';

// Each job: { kind, value }. The worker counts the jobs it has served, so an answer tells whether the
// same thread ran the earlier ones.
const CODE = `
const { parentPort } = require('node:worker_threads');
let served = 0;
parentPort.on('message', (job) => {
  served++;
  if (job.kind === 'echo') parentPort.postMessage({ value: job.value, served, thread: require('node:worker_threads').threadId });
  else if (job.kind === 'spin') { for (;;) {} }
  else if (job.kind === 'throw') throw new Error('thrown by the job');
  else if (job.kind === 'exit') process.exit(3);
  else if (job.kind === 'grow') { const keep = []; for (;;) keep.push(new Array(1e5).fill(served)); }
  else if (job.kind === 'unfit') parentPort.postMessage({ unfit: true, served });
  else if (job.kind === 'print') { console.log('to nobody'); console.error('to nobody'); parentPort.postMessage({ value: 'printed', served }); }
});
`;

interface Answer {
  value?: unknown;
  served: number;
  thread?: number;
  unfit?: boolean;
}

const pool = (idleBytes = 1024) =>
  new KeptWorkers<Answer>(
    { what: 'the test job', code: CODE, data: null, heapMb: 16, failure: 'limit-exceeded', idleBytes },
    (a) => a.unfit !== true,
  );

const rejectsWith = (p: Promise<unknown>, code: string) =>
  assert.rejects(p, (e: unknown) => e instanceof ReMcpError && e.code === code);

test('a kept worker serves job after job; its stdout and stderr reach nobody', async () => {
  const workers = pool();
  try {
    const a = await workers.run({ kind: 'echo', value: 1 }, { timeoutMs: 10_000 });
    const b = await workers.run({ kind: 'print' }, { timeoutMs: 10_000 });
    const c = await workers.run({ kind: 'echo', value: 3 }, { timeoutMs: 10_000 });
    assert.deepEqual([a.served, b.served, c.served], [1, 2, 3]);
    assert.equal(a.thread, c.thread);
    assert.equal(b.value, 'printed');
    assert.deepEqual(workers.counts, { started: 1, answered: 3, discarded: 0 });
    assert.equal(workers.idleWorkers, 1);
  } finally {
    await workers.close();
  }
  assert.equal(workers.idleWorkers, 0);
});

test('a worker is replaced after a deadline, a cancellation, a throw, an exit, its heap cap, an unfit answer', async () => {
  const workers = pool();
  try {
    const cases: Array<[string, () => Promise<unknown>, string | null]> = [
      ['spin', () => workers.run({ kind: 'spin' }, { timeoutMs: 200 }), 'timeout'],
      [
        'cancel',
        () => {
          const c = new AbortController();
          const p = workers.run({ kind: 'spin' }, { timeoutMs: 60_000, signal: c.signal });
          setTimeout(() => c.abort(), 100);
          return p;
        },
        'cancelled',
      ],
      ['throw', () => workers.run({ kind: 'throw' }, { timeoutMs: 10_000 }), 'limit-exceeded'],
      ['exit', () => workers.run({ kind: 'exit' }, { timeoutMs: 10_000 }), 'internal-error'],
      ['grow', () => workers.run({ kind: 'grow' }, { timeoutMs: 60_000 }), 'limit-exceeded'],
      ['unfit', () => workers.run({ kind: 'unfit' }, { timeoutMs: 10_000 }), null],
    ];
    for (const [name, run, code] of cases) {
      const before = { ...workers.counts };
      if (code === null) await run();
      else await rejectsWith(run(), code);
      assert.equal(workers.counts.discarded - before.discarded, 1, name);
      assert.equal(workers.idleWorkers, 0, name);
      // The next job runs on a new worker: it has served nothing before.
      const next = await workers.run({ kind: 'echo', value: name }, { timeoutMs: 10_000 });
      assert.equal(next.served, 1, name);
      assert.equal(next.value, name);
    }
  } finally {
    await workers.close();
  }
});

test('an idle worker holds its share of the budget and goes when a reservation needs the room', async () => {
  const memory = new MemoryBudget(1000);
  const workers = pool(400);
  try {
    const job = await memory.reserve(600, 'the job');
    await workers.run({ kind: 'echo', value: 1 }, { timeoutMs: 10_000, memory, reserved: job });
    // The job's reservation was given back before the idle share was taken.
    assert.equal(memory.reserved, 400);
    assert.equal(workers.idleWorkers, 1);
    // 700 does not fit beside the idle share: the worker is ended for it.
    const big = await memory.reserve(700, 'another call');
    assert.equal(workers.idleWorkers, 0);
    assert.equal(memory.reserved, 700);
    // With no room for its share, a worker is not kept.
    await workers.run({ kind: 'echo', value: 2 }, { timeoutMs: 10_000, memory });
    assert.equal(workers.idleWorkers, 0);
    big.release();
    await workers.run({ kind: 'echo', value: 3 }, { timeoutMs: 10_000, memory });
    assert.equal(workers.idleWorkers, 1);
    assert.equal(memory.reserved, 400);
  } finally {
    await workers.close();
  }
  assert.equal(memory.reserved, 0);
});

test('a process whose kept worker is idle ends by itself; what the worker prints reaches neither stream', () => {
  const dir = mkdtempSync(join(tmpdir(), 're-mcp-kept-'));
  const file = join(dir, 'idle.mts');
  writeFileSync(
    file,
    `
import { KeptWorkers } from ${JSON.stringify(join(REPO_ROOT, 'src/core/worker-run.ts'))};
const w = new KeptWorkers({ what: 'x', code: ${JSON.stringify(CODE)}, data: null, heapMb: 16, failure: 'limit-exceeded', idleBytes: 1 });
await w.run({ kind: 'print' }, { timeoutMs: 10000 });
const a = await w.run({ kind: 'echo', value: 'done' }, { timeoutMs: 10000 });
console.log(a.value, w.idleWorkers);
`,
  );
  const r = spawnSync(process.execPath, ['--import', 'tsx', file], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  rmSync(dir, { recursive: true, force: true });
  assert.equal(r.signal, null, 'the process had to be killed: the idle worker held it open');
  assert.equal(r.status, 0, r.stderr);
  // What the worker printed reached neither of the process's streams.
  assert.equal(r.stdout, 'done 1\n');
  assert.doesNotMatch(r.stderr, /to nobody/);
});

test('a worker thread runs below the main thread (nice +10 on Linux): it never holds the event loop off a core', {
  skip: process.platform !== 'linux' ? 'thread priorities are per thread on Linux only' : false,
}, async () => {
  const { getPriority } = await import('node:os');
  const { runInWorker } = await import('../../src/core/worker-run.js');
  const code = `
const { parentPort } = require('node:worker_threads');
const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
parentPort.postMessage({ tid, nice: require('node:os').getPriority(tid) });
`;
  const answer = await runInWorker<{ tid: number; nice: number }>(code, null, {
    what: 'a priority probe',
    timeoutMs: 30_000,
    heapMb: 64,
    failure: 'internal-error',
  });
  assert.notEqual(answer.tid, process.pid, 'the job ran on a thread of its own');
  assert.equal(answer.nice, Math.min(19, getPriority(process.pid) + 10));
  assert.equal(getPriority(process.pid), getPriority(), 'the main thread keeps its priority');
});
