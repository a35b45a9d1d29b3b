// The whole measure of cfg-objdump-agreement.test.ts: every reachable call target of every binary,
// under a fresh random seed each run (printed; RE_MCP_CFG_SEED replays one).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { measureCfgAgreement } from './cfg-objdump-agreement.js';

const SEED = Number(process.env.RE_MCP_CFG_SEED ?? Math.floor(Math.random() * 0x1_0000_0000));

test('every reachable CFG agrees with objdump (one process, shuffled)', async (t) => {
  const r = await measureCfgAgreement(SEED, 100_000);
  t.diagnostic(`seed ${r.seed} (RE_MCP_CFG_SEED replays it)`);
  t.diagnostic(JSON.stringify({ ...r, samples: undefined }));
  assert.ok(r.graphs > 500);
  assert.equal(r.mismatches, 0, r.samples.join('\n'));
});
