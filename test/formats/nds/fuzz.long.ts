// Long fuzz run (npm run test:fuzz-long): at least 100,000 mutation cases over several seeds, with a
// memory check that the parser's retained heap does not grow with the case count.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fuzzTargets, runNdsFuzz } from './fuzz-cases.js';

test('100,000 NDS mutation cases: models or typed errors only, bounded time and memory', () => {
  const targets = fuzzTargets();
  let total = 0;
  let models = 0;
  const heapBefore = process.memoryUsage().heapUsed;
  for (let seed = 1; seed <= 10; seed++) {
    const stats = runNdsFuzz(10_000, seed * 7919, targets);
    total += stats.cases;
    models += stats.models;
    assert.deepEqual(
      Object.keys(stats.refusals).filter((c) => c !== 'invalid-rom'),
      [],
    );
    assert.ok(stats.maxCaseMs < 2000, `seed ${seed}: slowest case ${stats.maxCaseMs} ms`);
  }
  assert.ok(total >= 100_000);
  assert.ok(models > 1000);
  const growth = process.memoryUsage().heapUsed - heapBefore;
  assert.ok(growth < 256 * 1024 * 1024, `heap grew by ${growth} bytes`);
});
