// Every block instruction of control-flow graphs on the real shared ROMs agrees with objdump, and every
// objdump branch ends its block with the matching terminator kind: ARM9/ARM7 entries plus the direct
// call targets they reach (ARM and Thumb), all built in one process in a seeded shuffled order (a
// decoder state leaking from one decode into the next shows as a disagreement). Bounded to a number
// of graphs per binary here; cfg-objdump-agreement.long.ts runs every reachable call target.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NO_ROMS } from '../kit/shared-data.js';
import { measureCfgAgreement } from './cfg-objdump-agreement.js';

const SEED = Number(process.env.RE_MCP_CFG_SEED ?? 0x10cf6);

test('CFGs from entries and reached call targets agree with objdump (one process, shuffled)', async (t) => {
  const r = await measureCfgAgreement(SEED, 60);
  t.diagnostic(`seed ${r.seed} (RE_MCP_CFG_SEED replays it)`);
  t.diagnostic(JSON.stringify({ ...r, samples: undefined }));
  // With the corpus: 16 binaries; without it, the kit's two realistic programs.
  const [graphs, instructions, terminators] = NO_ROMS ? [50, 10_000, 1000] : [400, 20_000, 1000];
  assert.ok(r.graphs > graphs, `${r.graphs} graphs`);
  assert.ok(r.instructions > instructions, `${r.instructions} instructions`);
  assert.ok(r.terminatorsChecked > terminators, `${r.terminatorsChecked} terminators`);
  assert.equal(r.mismatches, 0, r.samples.join('\n'));
  assert.equal(r.agree, r.instructions);
});
