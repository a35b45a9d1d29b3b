// The long tool-level fuzz campaign (npm run test:fuzz-long): 1,000,000 tool calls on mutated ROMs
// across every static tool, ten seeds of 100,000. Prints its figures (cases, ROMs, outcomes, crashes,
// internal errors, slowest call, peak RSS).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runToolFuzz } from './tool-fuzz.js';

test('1,000,000 fuzzed tool calls: 0 crashes, 0 internal-error, no call over 10 s, RSS under 300 MB', async () => {
  let cases = 0;
  let roms = 0;
  let maxCallMs = 0;
  let peakRss = 0;
  const outcomes: Record<string, number> = {};
  const perTool: Record<string, number> = {};
  const crashes: string[] = [];
  const internalErrors: string[] = [];
  const started = performance.now();
  for (let seed = 1; seed <= 10; seed++) {
    const f = await runToolFuzz(100_000, seed * 104_729);
    cases += f.cases;
    roms += f.roms;
    maxCallMs = Math.max(maxCallMs, f.maxCallMs);
    peakRss = Math.max(peakRss, f.peakRssBytes);
    for (const [k, v] of Object.entries(f.outcomes)) outcomes[k] = (outcomes[k] ?? 0) + v;
    for (const [k, v] of Object.entries(f.perTool)) perTool[k] = (perTool[k] ?? 0) + v;
    crashes.push(...f.crashes);
    internalErrors.push(...f.internalErrors);
    console.log(
      `seed ${seed}: ${f.cases} cases, ${f.roms} ROMs, max call ${f.maxCallMs.toFixed(0)} ms (${f.slowest}), ` +
        `peak RSS ${(f.peakRssBytes / 2 ** 20).toFixed(0)} MiB, outcomes ${JSON.stringify(f.outcomes)}`,
    );
  }
  console.log(
    `tool fuzz total: ${JSON.stringify({ cases, roms, outcomes, perTool, crashes: crashes.length, internalErrors: internalErrors.length, maxCallMs: Math.round(maxCallMs), peakRssMiB: Math.round(peakRss / 2 ** 20), minutes: ((performance.now() - started) / 60_000).toFixed(1) })}`,
  );
  assert.deepEqual(crashes, []);
  assert.deepEqual(internalErrors, []);
  assert.ok(cases >= 1_000_000);
  assert.ok(maxCallMs < 10_000);
  assert.ok(peakRss < 300 * 2 ** 20);
});
