// The CI slice of the tool-level fuzz campaign (seeded; the long run is tool-fuzz.long.ts). Every
// fuzzed tool is reached, and each with calls that pass its argument checks: a tool whose drawn
// arguments never do needs a case of its own in argsFor (./tool-fuzz.ts), or `needs` in its definition.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadAllTools } from '../../src/tools/index.js';
import { fuzzedTools, runToolFuzz } from './tool-fuzz.js';

const ALL_TOOLS = await loadAllTools();

test('fuzzed ROMs through every static tool, the assembler and patch application: typed outcomes only, no internal-error, no call over 10 s', async () => {
  const figures = await runToolFuzz(3_000, 20_261_130);
  assert.deepEqual(figures.crashes, []);
  assert.deepEqual(figures.internalErrors, []);
  assert.ok(figures.maxCallMs < 10_000, `slowest call ${figures.maxCallMs} ms (${figures.slowest})`);
  const tools = fuzzedTools(ALL_TOOLS).map((t) => t.name);
  assert.deepEqual(
    tools.filter((name) => !figures.perTool[name]),
    [],
    'fuzzed tools never drawn in 3,000 cases (give a slow one a weight in WEIGHTS of test/fuzz/tool-fuzz.ts)',
  );
  assert.deepEqual(
    tools.filter((name) => !figures.passed[name]),
    [],
    'fuzzed tools whose every call was refused as invalid-argument: give each a case in argsFor (test/fuzz/tool-fuzz.ts) or `needs` in its definition',
  );
  assert.ok((figures.outcomes.ok ?? 0) > 300, JSON.stringify(figures.outcomes));
  console.log(
    `calls past the argument checks: ${JSON.stringify(figures.passed)} of ${JSON.stringify(figures.perTool)}`,
  );
});
