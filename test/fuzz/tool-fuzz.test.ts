// The CI slice of the tool-level fuzz campaign (seeded; the long run is tool-fuzz.long.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadAllTools, toolsForProfile } from '../../src/tools/index.js';
import { runToolFuzz } from './tool-fuzz.js';

const ALL_TOOLS = await loadAllTools();

test('fuzzed ROMs through every static tool, the assembler and patch application: typed outcomes only, no internal-error, no call over 10 s', async () => {
  const figures = await runToolFuzz(3_000, 20_261_130);
  assert.deepEqual(figures.crashes, []);
  assert.deepEqual(figures.internalErrors, []);
  assert.ok(figures.maxCallMs < 10_000, `slowest call ${figures.maxCallMs} ms (${figures.slowest})`);
  assert.equal(
    Object.keys(figures.perTool).length,
    toolsForProfile(ALL_TOOLS, 'static').length + 2,
    `tools reached: ${Object.keys(figures.perTool).join(',')}`,
  );
  assert.ok((figures.outcomes.ok ?? 0) > 300, JSON.stringify(figures.outcomes));
});
