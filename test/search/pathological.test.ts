// Patterns that used to freeze the server: thousands of exact padding bytes verified for every anchor
// candidate over padding. The work is bounded (whole-pattern indexOf without wildcards, a rare anchor,
// a verification-work cap with its own truncation reason) and the scan gives the event loop a turn
// regularly, checked here with the event-loop delay monitor (generous bound: the design target is a
// turn every ~8 ms, the bound tolerates a loaded shared machine).
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { test } from 'node:test';
import { compilePattern } from '../../src/search/pattern.js';
import { scanSegments } from '../../src/search/scan.js';
import { bufferReader } from './memory-io.js';

const MiB = 1024 * 1024;
const MAX_LOOP_DELAY_MS = 1_000;

async function scanWatched(signature: string, data: Uint8Array, maxMatches = 1_000_000) {
  const pattern = compilePattern({ kind: 'byte-signature', signature });
  const monitor = monitorEventLoopDelay({ resolution: 5 });
  monitor.enable();
  const result = await scanSegments(pattern, bufferReader(data), {
    segments: [{ start: 0, end: data.length }],
    maxScanBytes: data.length,
    maxMatches,
    chunkSize: 4 * MiB,
  });
  monitor.disable();
  return { result, maxDelayMs: monitor.max / 1e6 };
}

test('4,095 x 00 then 01 over zero padding: complete, no match, the event loop keeps turning', async () => {
  const { result, maxDelayMs } = await scanWatched(`${'00 '.repeat(4095)}01`, new Uint8Array(8 * MiB));
  assert.deepEqual(result.reasons, []);
  assert.deepEqual(result.offsets, []);
  assert.equal(result.scannedBytes, 8 * MiB);
  assert.ok(maxDelayMs < MAX_LOOP_DELAY_MS, `event loop blocked for ${maxDelayMs.toFixed(0)} ms`);
});

test('FF...FF 00 over FF padding: the same', async () => {
  const { result, maxDelayMs } = await scanWatched(
    `${'FF '.repeat(4095)}00`,
    new Uint8Array(8 * MiB).fill(0xff),
  );
  assert.deepEqual(result.reasons, []);
  assert.deepEqual(result.offsets, []);
  assert.ok(maxDelayMs < MAX_LOOP_DELAY_MS, `event loop blocked for ${maxDelayMs.toFixed(0)} ms`);
});

test('a wildcard pattern verified over thousands of bytes per candidate stops at the work limit', async () => {
  const signature = `${'00 '.repeat(2047)}?? ${'00 '.repeat(2047)}00`;
  const { result, maxDelayMs } = await scanWatched(signature, new Uint8Array(8 * MiB));
  assert.ok(result.reasons.includes('verification-work-limit'), JSON.stringify(result.reasons));
  assert.ok(result.scannedBytes < 8 * MiB, 'the scan stopped early');
  // Every reported start is a real match (all zeros), in order, and none is missing before the stop.
  assert.deepEqual(result.offsets.slice(0, 5), [0, 1, 2, 3, 4]);
  assert.ok(maxDelayMs < MAX_LOOP_DELAY_MS, `event loop blocked for ${maxDelayMs.toFixed(0)} ms`);
});

test('cancellation is honoured inside a chunk', async () => {
  const pattern = compilePattern({ kind: 'byte-signature', signature: `${'00 '.repeat(2047)}?? 00` });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 20);
  const started = performance.now();
  await assert.rejects(
    scanSegments(pattern, bufferReader(new Uint8Array(8 * MiB)), {
      segments: [{ start: 0, end: 8 * MiB }],
      maxScanBytes: 8 * MiB,
      maxMatches: 10_000_000,
      chunkSize: 8 * MiB,
      maxVerifyWork: Number.MAX_SAFE_INTEGER,
      signal: controller.signal,
    }),
    { code: 'cancelled' },
  );
  assert.ok(performance.now() - started < 5_000, 'cancelled promptly');
});
