// Patch bombs (the adversarial pass's shapes, made here): tiny BPS patches that each make a large
// result, applied many at once, each hold a window of their result, never the result (it streams to
// its file), and no more than the server's memory budget together (the rest wait, or are refused busy
// when they wait too long); output/patched/ has a quota; a BPS of millions of 1-byte actions and an
// IPS of a million runs are applied in slices (the event loop keeps turning) and still make exactly
// the reference result; a BPS of 100,000 short overlapping copies applies well within its deadline.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { APPLY_LIMITS } from '../../src/rebuild/apply.js';
import { applyStreamBytes } from '../../src/rebuild/apply-stream.js';
import { oneByteActions, zeroBomb } from '../kit/patch-bombs.js';
import { BpsBuilder, referenceApplyBps, referenceApplyIps, referenceCrc32 } from '../kit/patch-reference.js';
import { patchWorkspace } from '../kit/patch-workspace.js';

const MiB = 1024 * 1024;
const roots: string[] = [];
after(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

/** A workspace with a small ROM, the tools in-process, over a budget of `budget` bytes. */
async function setup(budget: number) {
  const s = await patchWorkspace('re-mcp-patch-bombs-', budget, new Uint8Array(4096).fill(0x11));
  roots.push(s.root);
  return s;
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Counts event-loop turns (setImmediate) while `work` runs. */
async function turnsDuring<T>(work: Promise<T>): Promise<{ value: T; turns: number }> {
  let turns = 0;
  let running = true;
  const spin = () => {
    if (!running) return;
    turns++;
    setImmediate(spin);
  };
  setImmediate(spin);
  try {
    return { value: await work, turns };
  } finally {
    running = false;
  }
}

test('eight concurrent BPS bombs each hold a window, not their result; past the budget they wait, and all finish', async () => {
  // Room for two calls at once (each holds its window and its patch), not three.
  const budget = 2 * applyStreamBytes() + 2 * MiB;
  const s = await setup(budget);
  const size = 24 * MiB;
  for (let i = 0; i < 8; i++) await writeFile(join(s.root, `bomb${i}.bps`), zeroBomb(s.rom, size, i));
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) => s.ok('nds_patch_apply', { patch: `bomb${i}.bps` })),
  );
  const expected = new Uint8Array(size);
  expected.set(s.rom);
  for (const r of results) {
    assert.equal(r.outputSize, size);
    assert.equal(r.outputSha256, sha(expected));
  }
  assert.ok(s.peak() <= budget, `peak reserved ${s.peak()}`);
  assert.ok(s.peak() >= 2 * applyStreamBytes(), `the calls did overlap (peak ${s.peak()})`);
  assert.equal(s.memory.reserved, 0, 'every reservation was released');
});

test('a budget too small for one window is refused limit-exceeded, and nothing is written', async () => {
  const s = await setup(applyStreamBytes() - 1);
  await writeFile(join(s.root, 'big.bps'), zeroBomb(s.rom, 32 * MiB, 1));
  const e = await s.fails('nds_patch_apply', { patch: 'big.bps' }, 'limit-exceeded');
  assert.match(e.message, /needs \d+ bytes of memory; the server's budget/);
  assert.equal(s.memory.reserved, 0);
  assert.equal(await readdir(join(s.root, 'output/patched')).catch(() => null), null);
});

test('a call that waits past its bound for memory is refused busy', async () => {
  const s = await setup(32 * MiB);
  await writeFile(join(s.root, 'b.bps'), zeroBomb(s.rom, 8 * MiB, 2));
  const hog = await s.memory.reserve(30 * MiB, 'a test hog');
  try {
    const budget = s.memory;
    const e = await budget.reserve(8 * MiB, 'a waiter', { waitMs: 50 }).then(
      () => null,
      (error: { code: string; message: string }) => error,
    );
    assert.equal(e?.code, 'busy');
    assert.match(e!.message, /waited 50 ms for \d+ bytes of memory that other calls hold/);
    // Cancelled while waiting: cancelled, and the waiter leaves the queue.
    const ac = new AbortController();
    const cancelled = budget.reserve(8 * MiB, 'a cancelled waiter', { signal: ac.signal }).catch((x) => x);
    ac.abort();
    assert.equal(((await cancelled) as { code: string }).code, 'cancelled');
    // Released: the tool's call goes through.
    hog.release();
    assert.equal((await s.ok('nds_patch_apply', { patch: 'b.bps' })).outputSize, 8 * MiB);
  } finally {
    hog.release();
  }
});

test('output/patched/ has a quota: a result past it is refused, naming what is there', async () => {
  const s = await setup(64 * MiB);
  await writeFile(join(s.root, 'q.bps'), zeroBomb(s.rom, 2 * MiB, 3));
  // Earlier results (sparse: their size is what counts) fill the quota to within 1 MiB.
  await mkdir(join(s.root, 'output/patched/0123456789abcdef'), { recursive: true });
  const old = await open(join(s.root, 'output/patched/0123456789abcdef/old.nds'), 'w');
  await old.truncate(APPLY_LIMITS.patchedBytes.max - MiB);
  await old.close();
  const e = await s.fails('nds_patch_apply', { patch: 'q.bps' }, 'limit-exceeded');
  assert.match(e.message, /output\/patched\/ holds \d+ bytes; this 2097152-byte result would pass its quota/);
  assert.equal(s.memory.reserved, 0);
  // Removing the old result makes room.
  await rm(join(s.root, 'output/patched/0123456789abcdef/old.nds'));
  const r = await s.ok('nds_patch_apply', { patch: 'q.bps' });
  // Applying the same patch again replaces its own result: it is not counted twice.
  const old2 = await open(join(s.root, 'output/patched/0123456789abcdef/old.nds'), 'w');
  await old2.truncate(APPLY_LIMITS.patchedBytes.max - 3 * MiB);
  await old2.close();
  assert.equal((await s.ok('nds_patch_apply', { patch: 'q.bps' })).output, r.output);
});

test('a BPS of millions of 1-byte actions and an IPS of a million runs are applied in slices, exactly', async () => {
  const s = await setup(256 * MiB);
  const target = new Uint8Array(3 * MiB);
  for (let i = 0; i < target.length; i++) target[i] = (i * 7 + (i >>> 11)) & 0xff;
  const bps = oneByteActions(s.rom, target);
  await writeFile(join(s.root, 'tiny.bps'), bps);
  const b = await turnsDuring(s.ok('nds_patch_apply', { patch: 'tiny.bps' }));
  assert.equal(b.value.outputSha256, sha(target));
  assert.deepEqual(referenceApplyBps(bps, s.rom), target);
  assert.ok(b.turns > 1, `the event loop turned ${b.turns} times while the BPS was applied`);
  // A million runs of 256 bytes over a 16 MiB result, overlapping.
  const records = 1_000_000;
  const ips = new Uint8Array(5 + records * 8 + 3);
  ips.set([0x50, 0x41, 0x54, 0x43, 0x48]);
  for (let r = 0; r < records; r++) {
    const o = 5 + r * 8;
    const offset = (r * 4099) % (16 * MiB - 0x10000);
    ips.set([offset >>> 16, (offset >>> 8) & 0xff, offset & 0xff, 0, 0, 0x01, 0x00, r & 0xff], o);
  }
  ips.set([0x45, 0x4f, 0x46], 5 + records * 8);
  await writeFile(join(s.root, 'runs.ips'), ips);
  const i = await turnsDuring(s.ok('nds_patch_apply', { patch: 'runs.ips' }));
  assert.equal(i.value.outputSha256, sha(referenceApplyIps(ips, s.rom)));
  assert.ok(i.turns > 1, `the event loop turned ${i.turns} times while the IPS was applied`);
  assert.equal(sha(await readFile(join(s.root, i.value.output))), i.value.outputSha256);
  assert.equal(s.memory.reserved, 0);
});

test('a BPS of 100,000 short overlapping copies applies exactly within its deadline (each copy a tile its size)', async () => {
  // Each copy repeats the byte before it twice; a tile of a megabyte a copy took 190 s for these.
  const s = await setup(256 * MiB);
  const copies = 100_000;
  const b = new BpsBuilder(s.rom.length, s.rom.length + 1 + 2 * copies)
    .sourceRead(s.rom.length)
    .targetRead([0x5a]);
  b.targetCopy(2, s.rom.length);
  for (let i = 1; i < copies; i++) b.targetCopy(2, 0);
  const target = new Uint8Array(s.rom.length + 1 + 2 * copies).fill(0x5a);
  target.set(s.rom);
  const patch = b.finish(referenceCrc32(s.rom), referenceCrc32(target));
  assert.deepEqual(referenceApplyBps(patch, s.rom), target);
  await writeFile(join(s.root, 'short-copies.bps'), patch);
  const r = await s.ok('nds_patch_apply', { patch: 'short-copies.bps' });
  assert.equal(r.outputSha256, sha(target));
  assert.equal(s.memory.reserved, 0);
});
