// The patch check fed the source chunk by chunk: for random sources (past a megabyte, so the decoder's
// source requests are cut by chunk ends, some straddling two or more chunks), random pieces, grown
// and same-size outputs and chunk sizes from a few bytes to more than the source, it gives the patches
// makePatches makes with the same CRC-32s, and their BPS and IPS turn the source into the planned
// output under the tests' own decoders. A plan whose pieces are not the ones checked, a chunk fed out
// of order and a finish before the whole source was fed are refused, typed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isReMcpError } from '../../src/core/errors.js';
import { crc32 } from '../../src/formats/crc32.js';
import { StreamedPatchCheck } from '../../src/rebuild/patch-check.js';
import { makePatches, plannedOutputCrc } from '../../src/rebuild/patches.js';
import type { Plan } from '../../src/rebuild/plan/index.js';
import { referenceApplyBps, referenceApplyIps } from '../kit/patch-reference.js';
import { rng } from '../kit/rng.js';

const MiB = 1 << 20;

interface Case {
  source: Uint8Array;
  plan: Plan;
  out: Uint8Array;
}

function randomCase(next: () => number, sourceSize: number, grow: number): Case {
  const source = new Uint8Array(sourceSize);
  for (let i = 0; i < sourceSize; i += 4) {
    const w = Math.floor(next() * 2 ** 32);
    for (let k = 0; k < 4 && i + k < sourceSize; k++) source[i + k] = (w >>> (8 * k)) & 0xff;
  }
  const size = sourceSize + grow;
  const pieces: { offset: number; bytes: Uint8Array; owner: string }[] = [];
  for (let at = Math.floor(next() * 4000); at < size; ) {
    const n = Math.min(size - at, 1 + Math.floor(next() * 700));
    pieces.push({
      offset: at,
      bytes: Uint8Array.from({ length: n }, () => Math.floor(next() * 256)),
      owner: 't',
    });
    at += n + 1 + Math.floor(next() * (next() < 0.5 ? 5000 : 900_000));
  }
  const plan = {
    resolved: { source: { size: sourceSize, sha256: '' }, output: { size, romName: 'x.nds' } },
    pieces,
    ownedPrefix: [],
  } as unknown as Plan;
  const out = new Uint8Array(size);
  out.set(source);
  for (const p of pieces) out.set(p.bytes, p.offset);
  return { source, plan, out };
}

const reader = (source: Uint8Array) => (offset: number, length: number) =>
  source.subarray(offset, Math.min(source.length, offset + length));

/** Feeds `source` in chunks of `sizes` (cycled), each a copy that is overwritten once fed. */
function feedAll(check: StreamedPatchCheck, source: Uint8Array, sizes: number[]): void {
  for (let at = 0, i = 0; at < source.length; i++) {
    const n = Math.min(sizes[i % sizes.length]!, source.length - at);
    const chunk = source.slice(at, at + n);
    check.feed(at, chunk);
    // The stream reuses its buffers: the check must not keep bytes of a chunk it was fed.
    chunk.fill(0xa5);
    at += n;
  }
}

test('fed in chunks of any size, the check gives the patches of the plan, and they rebuild the output', () => {
  const next = rng(41);
  const chunkings = [
    [4 * MiB],
    [MiB],
    [MiB + 7],
    [333_333],
    [65_536, 3 * MiB + 1],
    [4096],
    [10 * MiB],
    [1, 999_999],
  ];
  for (let t = 0; t < chunkings.length * 2; t++) {
    const grow = t % 3 === 0 ? 0 : Math.floor(next() * 300_000);
    const { source, plan, out } = randomCase(next, Math.floor(2.5 * MiB + next() * MiB), grow);
    const sizes = chunkings[t % chunkings.length]!;
    const check = new StreamedPatchCheck(plan, reader(source));
    feedAll(check, source, sizes);
    const crcs = { source: crc32(source), output: crc32(out) };
    assert.equal(plannedOutputCrc(plan, crcs.source, reader(source)), crcs.output);
    const got = check.finish(crcs);
    const want = makePatches(plan, crcs, reader(source));
    const label = `case ${t}, chunks ${sizes.join('/')}`;
    assert.deepEqual(got.bps, want.bps, label);
    assert.deepEqual(got.ips, want.ips, label);
    assert.equal(got.ipsRefused, want.ipsRefused, label);
    assert.deepEqual(referenceApplyBps(got.bps, source, 2 ** 27), out, label);
    if (got.ips) assert.deepEqual(referenceApplyIps(got.ips, source, 2 ** 27), out, label);
  }
});

test('short source reads cut by chunk ends are put together from both chunks before they are compared', () => {
  // Gaps of 300 bytes between pieces: each is one short source read, gathered with the next piece and
  // compared; chunks of 97 bytes cut almost every one of them.
  const source = Uint8Array.from({ length: 60_000 }, (_, i) => (i * 7 + (i >> 8)) & 0xff);
  const pieces: { offset: number; bytes: Uint8Array; owner: string }[] = [];
  for (let at = 50; at + 40 < source.length; at += 340)
    pieces.push({ offset: at, bytes: new Uint8Array(40).fill(at & 0xff), owner: 't' });
  const plan = {
    resolved: {
      source: { size: source.length, sha256: '' },
      output: { size: source.length, romName: 'x.nds' },
    },
    pieces,
    ownedPrefix: [],
  } as unknown as Plan;
  const out = source.slice();
  for (const p of pieces) out.set(p.bytes, p.offset);
  for (const sizes of [[97], [1], [299, 301]]) {
    const check = new StreamedPatchCheck(plan, reader(source));
    feedAll(check, source, sizes);
    const got = check.finish({ source: crc32(source), output: crc32(out) });
    assert.deepEqual(referenceApplyBps(got.bps, source), out);
  }
});

test('fed chunks as large as those of the stream, the check reads next to nothing of the source itself', () => {
  const next = rng(42);
  for (const sizes of [[4 * MiB], [MiB + 7]]) {
    const { source, plan, out } = randomCase(next, 3 * MiB, 0);
    let read = 0;
    const counted = (offset: number, length: number) => {
      read += Math.min(length, source.length - offset);
      return reader(source)(offset, length);
    };
    const check = new StreamedPatchCheck(plan, counted);
    const before = read;
    feedAll(check, source, sizes);
    check.finish({ source: crc32(source), output: crc32(out) });
    const pieceBytes = plan.pieces.reduce((n, p) => n + p.bytes.length, 0);
    // What it reads: the source under the pieces (for the patches and the comparisons) and short reads.
    assert.ok(read - before < 4 * pieceBytes + 64 * 1024, `read ${read - before} bytes of ${source.length}`);
  }
});

test('an empty source: nothing is fed and the patch makes the output from its own bytes', () => {
  const source = new Uint8Array(0);
  const pieces = [{ offset: 10, bytes: Uint8Array.of(1, 2, 3), owner: 't' }];
  const plan = {
    resolved: { source: { size: 0, sha256: '' }, output: { size: 20, romName: 'x.nds' } },
    pieces,
    ownedPrefix: [],
  } as unknown as Plan;
  const out = new Uint8Array(20);
  out.set(pieces[0]!.bytes, 10);
  const check = new StreamedPatchCheck(plan, reader(source));
  check.feed(0, source);
  const got = check.finish({ source: 0, output: crc32(out) });
  assert.deepEqual(referenceApplyBps(got.bps, source), out);
});

function refused(fn: () => unknown, code: string, pattern: RegExp): void {
  assert.throws(
    fn,
    (error: unknown) => isReMcpError(error) && error.code === code && pattern.test(error.message),
  );
}

test('a plan changed after the patch was made, chunks out of order and an early finish are refused', () => {
  const next = rng(43);
  const { source, plan, out } = randomCase(next, 2 * MiB, 1000);
  const crcs = { source: crc32(source), output: crc32(out) };
  // The pieces change after the check made its patch: the decoded result is not the planned output.
  const check = new StreamedPatchCheck(plan, reader(source));
  for (const p of plan.pieces) p.bytes[0]! ^= 1;
  refused(
    () => feedAll(check, source, [MiB]),
    'verification-failed',
    /BPS patch does not rebuild the output/,
  );
  // Chunks must come in order, each where the last ended.
  const skipped = new StreamedPatchCheck(plan, reader(source));
  skipped.feed(0, source.subarray(0, 1000));
  refused(() => skipped.feed(2000, source.subarray(2000, 3000)), 'internal-error', /fed 2000, not 1000/);
  // Every source byte must have been fed before the patches are made.
  const early = new StreamedPatchCheck(plan, reader(source));
  early.feed(0, source.subarray(0, MiB));
  refused(() => early.finish(crcs), 'internal-error', /fed 1048576 source bytes/);
});
