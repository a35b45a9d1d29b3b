// A few thousand mutation cases in the normal run (the 100,000-case run is fuzz.long.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runNdsFuzz } from './fuzz-cases.js';

test('mutated real headers and builder tables: every case is a model or a typed error', () => {
  const stats = runNdsFuzz(3000, 0x5eed);
  assert.equal(stats.cases, 3000);
  // Both outcomes must occur, or the mutations are not reaching the checks.
  assert.ok(stats.models > 100, JSON.stringify(stats));
  assert.ok((stats.refusals['invalid-rom'] ?? 0) > 100, JSON.stringify(stats));
  assert.deepEqual(Object.keys(stats.refusals), ['invalid-rom']);
  assert.ok(stats.maxCaseMs < 2000, `slowest case took ${stats.maxCaseMs} ms`);
});
