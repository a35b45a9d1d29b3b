// Patch bombs (the adversarial pass's shapes, made here): tiny BPS patches that each make a large
// result, applied many at once, hold no more than the server's memory budget together (the rest wait,
// or are refused busy when they wait too long); output/patched/ has a quota; a BPS of millions of
// 1-byte actions and an IPS of a million runs are applied in slices (the event loop keeps turning) and
// still make exactly the reference result.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { APPLY_LIMITS } from '../../src/rebuild/apply.js';
import { Services } from '../../src/services.js';
import { rebuildTools } from '../../src/tools/rebuild/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { inProcess } from '../kit/in-process.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { peakTrackedBudget } from '../kit/memory.js';
import { oneByteActions, zeroBomb } from '../kit/patch-bombs.js';
import { referenceApplyBps, referenceApplyIps } from '../kit/patch-reference.js';
import { buildRom } from '../kit/rom-builder.js';

const MiB = 1024 * 1024;
const roots: string[] = [];
after(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

/** A workspace with a small ROM, the tools in-process, over a budget of `budget` bytes. */
async function setup(budget: number) {
  const root = await makeWorkspace('re-mcp-patch-bombs-');
  roots.push(root);
  await mkdir(join(root, 'roms'));
  const { bytes: rom } = buildRom({
    arm9: { code: new Uint8Array(4096).fill(0x11), ramAddress: 0x02000000, entry: 0x02000000 },
    arm7: { code: new Uint8Array(1024).fill(0x22), ramAddress: 0x02380000, entry: 0x02380000 },
  });
  await writeFile(join(root, 'roms/game.nds'), rom);
  const { memory, peak } = peakTrackedBudget(budget);
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root), memory);
  return {
    root,
    rom,
    memory,
    peak,
    ...inProcess(rebuildTools, services, { rom: 'roms/game.nds' }),
  };
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

test('eight concurrent BPS bombs hold no more than the memory budget together, and all finish', async () => {
  const s = await setup(80 * MiB);
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
  // Each call holds its patch and its 24 MiB result: three fit in 80 MiB, never more.
  assert.ok(s.peak() <= 80 * MiB, `peak reserved ${s.peak()}`);
  assert.ok(s.peak() >= 2 * size, `the calls did overlap (peak ${s.peak()})`);
  assert.equal(s.memory.reserved, 0, 'every reservation was released');
});

test('a result larger than the whole budget is refused limit-exceeded, and nothing is written', async () => {
  const s = await setup(16 * MiB);
  await writeFile(join(s.root, 'big.bps'), zeroBomb(s.rom, 32 * MiB, 1));
  const e = await s.fails('nds_patch_apply', { patch: 'big.bps' }, 'limit-exceeded');
  assert.match(e.message, /needs \d+ bytes of memory; the server's budget/);
  assert.equal(s.memory.reserved, 0);
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
