// Each code idiom of the whole-program map on its own labelled case (test/kit/arm/src/arm9-idioms.s):
// switch tables as intra-function edges bounded by their compare, calls through stubs, MOV LR, PC and
// BLX Rn with their fall-through walked, long-branch BLs, tail calls, veneers, BX to a computed address,
// handlers installed by address or into the IRQ slot, pointer and constructor tables, a string used
// through a table, a call that never returns, and a function nothing references.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EVIDENCE_IDS } from '../../../src/analysis/evidence/index.js';
import type { ProgramMap } from '../../../src/analysis/program-map/map.js';
import { getProgramMaps } from '../../../src/analysis/program-map/service.js';
import { ByteClass, byteClassName } from '../../../src/analysis/program-map/types.js';
import { loadConfig } from '../../../src/config/config.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { armSymbol, loadArmProgram } from '../../kit/arm/index.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { idiomsRomBytes } from '../../kit/program-rom.js';

const p = loadArmProgram('arm9-idioms');
const root = await makeWorkspace('re-mcp-idioms-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(join(root, 'roms/idioms.nds'), idiomsRomBytes());
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
const store = getRomStore(services);
const map: ProgramMap = await store.withRom('roms/idioms.nds', (rom) =>
  getProgramMaps(services).map(store, rom, {
    processor: 'arm9',
    evidence: EVIDENCE_IDS,
    maxCodeBytes: 1 << 20,
    maxSeconds: 60,
  }),
);
const main = map.set.list.find((c) => c.kind === 'main')!;
const at = (name: string) => armSymbol(p, name).address;
const cls = (name: string) => byteClassName(main.cls[at(name) - main.start]!);
const fn = (name: string) => map.functions.find((f) => f.address === at(name));
/** The functions whose bodies hold the code at `name`. */
const owners = (name: string) =>
  map.holders(at(name), 'heuristic').flatMap((h) => h.functions.map((f) => f.fn.address));
const classes = (name: string) => new Set(fn(name)?.evidence.map((e) => e.class));

function inBody(host: string, labels: string[]) {
  for (const l of labels) {
    assert.equal(fn(l), undefined, `${l} is no function of its own`);
    assert.deepEqual(owners(l), [at(host)], `${l} belongs to ${host}`);
    assert.equal(main.tier[at(l) - main.start], 0, `${l} is walked at the proven tier`);
  }
}

test('ARM LDRLS PC table: four cases in the function, the table words a jump table, the default too', () => {
  assert.equal(fn('arm_switch_ldr')?.tier, 'proven');
  inBody(
    'arm_switch_ldr',
    [0, 1, 2, 3].map((i) => `arm_switch_ldr_case${i}`).concat('arm_switch_ldr_default'),
  );
  for (let i = 0; i < 16; i++)
    assert.equal(main.cls[at('arm_switch_ldr_table') + i - main.start], ByteClass.jumpTable);
});

test('ARM ADDLS PC, PC, rN, LSL #2 over branches: every case in the function', () => {
  inBody(
    'arm_switch_add',
    [0, 1, 2, 3].map((i) => `arm_switch_add_case${i}`).concat('arm_switch_add_default'),
  );
});

test('Thumb table after a BL to a helper that computes its return from LR', () => {
  inBody('thumb_switch', [0, 1, 2, 3].map((i) => `thumb_switch_case${i}`).concat('thumb_switch_default'));
  assert.equal(cls('thumb_switch_table'), 'jump-table');
  // The helper is a routine the BL proves; the call has no fall-through (the table follows it).
  assert.equal(fn('case_helper_uqi')?.tier, 'proven');
  const call = [...map.built.walker.calls].find((c) => c.kind === 'helper');
  assert.ok(call);
  assert.equal(call.continuation, 'pending');
});

test('ldr r3, =f; bl call_via_r3: a call of f through the stub, itself a function (a register stub)', () => {
  const stub = [...map.built.walker.calls].find((c) => c.at === at('site_stub_call'))!;
  assert.equal(stub.kind, 'stub');
  assert.equal(stub.target, at('stub_target'));
  assert.equal(stub.via, at('call_via_r3'));
  assert.equal(fn('stub_target')?.tier, 'proven');
  assert.ok(classes('stub_target').has('constant-register-call'));
  assert.equal(fn('call_via_r3')?.tier, 'proven');
  assert.equal(cls('call_via_r3'), 'thumb-code');
  // Its `bx r3` goes where each caller's register says: no unresolved indirect branch.
  assert.equal(
    map.built.walker.blocks.termOf(map.built.walker.blockAt(main, 'thumb', at('call_via_r3'))!.id),
    'stub',
  );
  assert.ok(map.xrefs(at('stub_target'), 'proven').some((x) => x.from === at('site_stub_call')));
});

test('MOV LR, PC before BX / LDR PC and BLX Rn are calls: the code after each is walked', () => {
  inBody('mov_lr_pc_caller', ['mov_lr_pc_after', 'mov_lr_pc_after2', 'blx_after']);
  // The BX through a constant register proves its target.
  assert.equal(fn('mlp_target')?.tier, 'proven');
  assert.ok(classes('mlp_target').has('constant-register-call'));
  // The other two go through unknown registers: counted, never guessed.
  assert.ok(map.coverage('proven').unresolved.indirectCalls >= 2);
});

test('a Thumb BL into code that restores the caller frame is a branch inside the function, no call', () => {
  inBody('long_branch_fn', ['long_branch_rest']);
  assert.ok(![...map.built.walker.calls].some((c) => c.at === at('site_long_branch')));
  assert.ok(
    map
      .xrefs(at('long_branch_rest'), 'proven')
      .some((x) => x.from === at('site_long_branch') && x.kind === 'direct-branch'),
  );
});

test('a tail branch to a known entry is a tail call, not a merge of the two bodies', () => {
  const caller = fn('tail_caller')!;
  const callee = fn('tail_callee')!;
  assert.deepEqual(caller.tailCalls, [callee.key]);
  assert.deepEqual(owners('tail_callee'), [at('tail_callee')]);
});

test('a Thumb-to-ARM veneer: the BL calls the ARM function through it', () => {
  const call = [...map.built.walker.calls].find((c) => c.at === at('site_veneer_call'))!;
  assert.equal(call.kind, 'veneer');
  assert.equal(call.target, at('veneer_arm_target'));
  assert.equal(call.targetMode, 'arm');
  assert.equal(fn('veneer_arm_target')?.tier, 'proven');
});

test('BX to an address the block computes (ADD IP, PC; ORR IP, #1) continues in Thumb', () => {
  inBody('bx_computed', ['bx_computed_thumb']);
  assert.equal(cls('bx_computed_thumb'), 'thumb-code');
});

test('handlers installed by address and into the BIOS IRQ slot are referenced functions', () => {
  assert.equal(fn('handler_by_address')?.tier, 'referenced');
  assert.equal(fn('handler_by_address')?.mode, 'thumb');
  assert.ok(classes('handler_by_address').has('address-taken'));
  assert.equal(fn('irq_slot_handler')?.tier, 'referenced');
  assert.ok(classes('irq_slot_handler').has('vector'), [...classes('irq_slot_handler')].join());
});

test('a pointer table names its functions (mode from bit 0), each slot a reference with its loader', () => {
  for (const [name, mode] of [
    ['table_op_a', 'arm'],
    ['table_op_b', 'thumb'],
    ['table_op_c', 'arm'],
  ] as const) {
    const f = fn(name)!;
    assert.equal(f.mode, mode, name);
    assert.ok(classes(name).has('pointer-table'), name);
    // Two loads near an indirect call are no constructor table unless the code relates them.
    assert.ok(!classes(name).has('init-array'), name);
    const slot = map.xrefs(at(name), 'referenced').find((x) => x.kind === 'table-entry')!;
    assert.equal(slot.table, at('op_table'));
    assert.ok(slot.loadedBy.includes(at('site_load_op_table')), `${name} table is loaded by run_table`);
  }
  assert.equal(cls('op_table'), 'pointer-table');
});

test('a string used only through a table is found by value, with its slot and the code loading the table', () => {
  const x = map.xrefs(at('msg_bye'), 'heuristic');
  const word = x.find((r) => r.kind === 'data-word');
  assert.ok(word, JSON.stringify(x));
  assert.equal(word.from, at('msg_table') + 4);
  assert.equal(word.table, at('msg_table'));
  assert.ok(word.loadedBy.includes(at('site_load_msg_table')));
  assert.equal(cls('msg_hello'), 'string');
});

test('a constructor table walked from start to end', () => {
  for (const name of ['ctor_a', 'ctor_b']) assert.ok(classes(name).has('init-array'), name);
});

test('after a call that never returns nothing is walked; a function nothing references is heuristic', () => {
  assert.equal(fn('never_returns')?.returns, false);
  assert.notEqual(main.tier[at('after_noreturn_data') - main.start], 0);
  assert.ok(!cls('after_noreturn_data').endsWith('code'));
  assert.equal(fn('dead_function')?.tier, 'heuristic');
  assert.deepEqual([...classes('dead_function')], ['sweep']);
  // Below the heuristic tier it is a coverage gap that keeps every answer from being definitive.
  const c = map.coverage('referenced');
  assert.equal(c.definitive, false);
  assert.ok(
    map.gaps('referenced').some((g) => g.start <= at('dead_function') && g.end > at('dead_function')),
  );
});
