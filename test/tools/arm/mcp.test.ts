// The ARM tools through the real stdio server (the bundled build, whose lazy Capstone load must work
// from the bundle), on the demo ROM built from the kit's compiled code.
import assert from 'node:assert/strict';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DEMO_ROM_PATH } from '../../../scripts/make-demo-rom.js';
import { formatAddress as A } from '../../../src/core/vocabulary.js';
import { armSymbol, loadArmProgram } from '../../kit/arm/index.js';
import { type Harness, startServer } from '../../kit/mcp-harness.js';

let h: Harness;
const program = loadArmProgram('arm9-analysis');

before(async () => {
  h = await startServer();
  await cp(DEMO_ROM_PATH, join(h.workspace, 'demo.nds'));
});
after(() => h?.close());

test('nds_disassemble_range decodes the entry with proven call targets', async () => {
  const r = await h.ok<any>('nds_disassemble_range', {
    rom: 'demo.nds',
    processor: 'arm9',
    address: program.entry,
    mode: 'arm',
    maxInstructions: 8,
  });
  assert.equal(r.status, 'complete');
  assert.equal(r.instructions.length, 8);
  assert.equal(r.instructions[0].address, A(program.entry));
  const call = r.instructions.find((i: any) => i.flow === 'call' && i.target !== undefined);
  assert.ok(call, 'a direct call among the first instructions');
  assert.equal(call.target, A(armSymbol(program, 'arm_sum').address));
  const bytesHex = Buffer.from(program.bytes.subarray(0, 4)).toString('hex');
  assert.equal(r.instructions[0].bytes, bytesHex);
});

test('nds_analyze_control_flow follows the loop in arm_sum', async () => {
  const r = await h.ok<any>('nds_analyze_control_flow', {
    rom: 'demo.nds',
    processor: 'arm9',
    address: armSymbol(program, 'arm_sum').address,
    mode: 'arm',
  });
  assert.equal(r.status, 'complete');
  const starts = r.blocks.map((b: any) => b.start ?? b.address);
  assert.ok(starts.includes(A(armSymbol(program, 'arm_sum_loop').address)), JSON.stringify(starts));
});

test('nds_list_references reports the literal-pool slot, not the word in it', async () => {
  const r = await h.ok<any>('nds_list_references', {
    rom: 'demo.nds',
    processor: 'arm9',
    address: program.entry,
    mode: 'arm',
    maxInstructions: 16,
  });
  const kinds = new Set(r.references.map((x: any) => x.kind));
  assert.ok(kinds.has('literal-pool'));
  assert.ok(kinds.has('direct-call'));
});

test('auto mode is refused away from the entry point', async () => {
  const e = await h.fail('nds_disassemble_range', {
    rom: 'demo.nds',
    processor: 'arm9',
    address: armSymbol(program, 'arm_sum').address,
    mode: 'auto',
  });
  assert.equal(e.code, 'invalid-argument');
});
