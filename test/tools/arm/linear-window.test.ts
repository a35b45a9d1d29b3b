// The three ARM tools through the shared pipeline (schemas enforced) on a ROM built from the kit's
// real code: main ARM9/ARM7, overlapping overlays, a compressed overlay, a short overlay with an
// undefined instruction and a cut instruction, BSS.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { spanLookup } from '../../../src/analysis/code-source.js';
import { loadConfig } from '../../../src/config/config.js';
import { formatAddress as A } from '../../../src/core/vocabulary.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { armTools } from '../../../src/tools/arm/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { armSymbol, loadArmProgram } from '../../kit/arm/index.js';
import { inProcess } from '../../kit/in-process.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { buildRom } from '../../kit/rom-builder.js';

const a9 = loadArmProgram('arm9-analysis');
const a7 = loadArmProgram('arm7-analysis');
const at = (s: string) => armSymbol(a9, s).address;
const OV_SHARED = 0x02200000;
const OV_PACKED = 0x02300000;
const OV_SHORT = 0x02400000;
const OV_TWICE = 0x02500000;
const word = (w: number) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24];
// mov r0, r0 / mov r0, r0 / udf / mov r0, r0 / two bytes of a cut instruction
const SHORT = new Uint8Array([
  ...word(0xe1a00000),
  ...word(0xe1a00000),
  ...word(0xe7f000f0),
  ...word(0xe1a00000),
  0,
  0,
]);

const root = await makeWorkspace('re-mcp-armtools-');
after(() => rm(root, { recursive: true, force: true }));
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
await mkdir(join(root, 'roms'));
const built = buildRom({
  arm9: { code: a9.bytes, ramAddress: a9.loadAddress, entry: a9.entry },
  arm7: { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.entry },
  arm9Overlays: [
    { id: 0, ramAddress: OV_SHARED, data: a9.bytes, bssSize: 0x100 },
    { id: 1, ramAddress: OV_SHARED, data: a9.bytes, bssSize: 0x100 },
    // eight copies of the kit code: compressible, and the first copy sits at the overlay's start
    {
      id: 2,
      ramAddress: OV_PACKED,
      data: new Uint8Array(8 * a9.size).map((_, i) => a9.bytes[i % a9.size]),
      compress: true,
    },
    { id: 3, ramAddress: OV_SHORT, data: SHORT },
    // one overlay ID in two table records, at different RAM addresses (a real-dump oddity)
    { id: 4, ramAddress: OV_TWICE, data: a9.bytes },
    { id: 4, ramAddress: OV_TWICE + 0x100000, data: a9.bytes },
  ],
});
await writeFile(join(root, 'roms/kit.nds'), built.bytes);
const ROM = 'roms/kit.nds';

const { call, ok, fails } = inProcess(armTools, services, { rom: ROM, processor: 'arm9' });

test('static-profile, read-only tools that take rom and declare their limits', () => {
  assert.deepEqual(armTools.map((t) => t.name).sort(), [
    'nds_analyze_control_flow',
    'nds_disassemble_range',
    'nds_list_references',
  ]);
  for (const t of armTools) {
    assert.deepEqual(t.profiles, ['static']);
    assert.equal(t.annotations.readOnlyHint, true);
    assert.ok(t.limits && Object.keys(t.limits).length >= 2);
  }
});

test('disassemble: auto only at the entry; default window; ROM offset of the start; compact output', async () => {
  const s = await ok('nds_disassemble_range', { address: a9.entry, mode: 'auto' });
  assert.equal(s.status, 'complete');
  assert.equal(s.instructions.length, 32); // 128 default bytes / 4
  assert.deepEqual(s.source, {
    processor: 'arm9',
    component: 'main',
    overlayId: null,
    mode: 'arm',
    start: A(a9.entry),
    romOffset: A(built.layout.arm9.rom.start),
    derived: false,
  });
  const perInstruction = JSON.stringify(s.instructions).length / s.instructions.length;
  assert.ok(perInstruction <= 200, `${perInstruction} bytes per instruction`);
  await fails('nds_disassemble_range', { address: at('arm_sum'), mode: 'auto' }, 'invalid-argument');
  await fails('nds_disassemble_range', { address: at('arm_sum') + 2, mode: 'arm' }, 'invalid-argument');
  await fails(
    'nds_disassemble_range',
    { address: at('thumb_worker') + 1, mode: 'thumb' },
    'invalid-argument',
  );
  await fails('nds_disassemble_range', { mode: 'arm' }, 'invalid-argument');
  await fails(
    'nds_disassemble_range',
    { address: 0x02000000, romOffset: 0x200, mode: 'arm' },
    'invalid-argument',
  );
});

test('disassemble: a Thumb start by ROM offset; limits bound the window', async () => {
  const romOffset = built.layout.arm9.rom.start + (at('thumb_worker') - a9.loadAddress);
  const s = await ok('nds_disassemble_range', { romOffset, mode: 'thumb', maxInstructions: 5 });
  assert.equal(s.source.start, A(at('thumb_worker')));
  assert.equal(s.instructions.length, 5);
  assert.equal(s.instructions[0].mnemonic, 'push');
  const bytes = await ok('nds_disassemble_range', {
    address: at('thumb_worker'),
    mode: 'thumb',
    maxBytes: 7,
  });
  // 7 bytes: three 16-bit instructions; the fourth would need bytes past the limit: the window completed
  assert.deepEqual([bytes.status, bytes.stop, bytes.instructions.length], ['complete', null, 3]);
  await fails(
    'nds_disassemble_range',
    { address: a9.entry, mode: 'arm', maxInstructions: 257 },
    'invalid-argument',
  );
  await fails(
    'nds_disassemble_range',
    { address: a9.entry, mode: 'arm', maxBytes: 1025 },
    'invalid-argument',
  );
});

test('disassemble: stops at undecodable bytes, the component end and a cut instruction', async () => {
  const stopped = await ok('nds_disassemble_range', { address: OV_SHORT, mode: 'arm' });
  assert.deepEqual(
    [stopped.status, stopped.stop, stopped.instructions.length],
    ['decode-stopped', { reason: 'undecodable', address: A(OV_SHORT + 8) }, 2],
  );
  const cut = await ok('nds_disassemble_range', { address: OV_SHORT + 12, mode: 'arm' });
  assert.deepEqual(
    [cut.status, cut.stop, cut.instructions.length],
    ['component-end', { reason: 'truncated-instruction', address: A(OV_SHORT + 16) }, 1],
  );
  assert.equal(cut.source.component, 'overlay');
  assert.equal(cut.source.overlayId, 3);
  // The byte limit ending exactly at the component end does not hide the instruction crossing it.
  const exact = await ok('nds_disassemble_range', { address: OV_SHORT + 12, mode: 'arm', maxBytes: 6 });
  assert.deepEqual(
    [exact.status, exact.stop, exact.instructions.length],
    ['component-end', { reason: 'truncated-instruction', address: A(OV_SHORT + 16) }, 1],
  );
  const end = await ok('nds_disassemble_range', {
    address: a7.loadAddress + a7.size - 4,
    mode: 'arm',
    processor: 'arm7',
  });
  assert.equal(end.status, 'component-end');
});

test('overlays: ambiguous without overlayId, BSS refused, compressed decoded with romOffset null', async () => {
  await fails('nds_disassemble_range', { address: OV_SHARED, mode: 'arm' }, 'ambiguous-code-source');
  const picked = await ok('nds_disassemble_range', {
    address: OV_SHARED,
    mode: 'arm',
    overlayId: 1,
    maxInstructions: 3,
  });
  assert.deepEqual(
    [picked.source.component, picked.source.overlayId, picked.source.derived],
    ['overlay', 1, false],
  );
  await fails(
    'nds_disassemble_range',
    { address: OV_SHARED + a9.size + 8, mode: 'arm', overlayId: 0 },
    'not-code',
  );
  await fails('nds_disassemble_range', { address: 0x02800000, mode: 'arm' }, 'not-code');
  // Excluded by the disambiguator is not "outside every component": the message says which.
  const excluded = await call('nds_disassemble_range', { address: OV_SHARED, mode: 'arm', overlayId: 2 });
  assert.equal(excluded.structuredContent.error?.code, 'not-code');
  assert.match(excluded.content[0]!.text, /excluded by overlayId 2/);
  await fails('nds_disassemble_range', { address: OV_SHARED, mode: 'arm', overlayId: 9 }, 'not-found');
  // A repeated overlay ID: the record whose extent holds the address is the source, never refused
  // for the other record, and a branch into it is followed like any other.
  for (const base of [OV_TWICE, OV_TWICE + 0x100000]) {
    const twice = await ok('nds_disassemble_range', { address: base, mode: 'arm', maxInstructions: 2 });
    assert.deepEqual([twice.source.component, twice.source.overlayId], ['overlay', 4]);
    assert.equal(
      twice.source.romOffset,
      A(built.layout.overlays.find((o) => o.ramAddress === base)!.file.start),
    );
  }
  const packed = await ok('nds_disassemble_range', { address: OV_PACKED, mode: 'arm', maxInstructions: 4 });
  assert.deepEqual([packed.source.romOffset, packed.source.derived], [null, true]);
  const main = await ok('nds_disassemble_range', { address: a9.entry, mode: 'arm', maxInstructions: 4 });
  assert.deepEqual(
    packed.instructions.map((i: { bytes: string; mnemonic: string }) => [i.bytes, i.mnemonic]),
    main.instructions.map((i: { bytes: string; mnemonic: string }) => [i.bytes, i.mnemonic]),
  );
});

test('control flow: the kit function graph, calls annotated, each limit reported', async () => {
  const g = await ok('nds_analyze_control_flow', { address: at('arm_sum'), mode: 'arm' });
  assert.deepEqual([g.status, g.truncation, g.totals.blocks], ['complete', [], 3]);
  assert.equal(g.blocks[0].instructions, undefined);
  const withIns = await ok('nds_analyze_control_flow', {
    address: at('arm_sum'),
    mode: 'arm',
    includeInstructions: true,
  });
  assert.equal(withIns.blocks[0].instructions.length, 3);
  const start = await ok('nds_analyze_control_flow', { address: a9.entry, mode: 'auto' });
  const calls = start.blocks.flatMap((b: { calls: unknown[] }) => b.calls);
  assert.ok(
    calls.some(
      (c: { target?: string; targetMode?: string }) =>
        c.target === A(at('thumb_worker')) && c.targetMode === 'thumb',
    ),
  );
  for (const [limit, reason] of [
    ['maxBlocks', 'block-limit'],
    ['maxInstructions', 'instruction-limit'],
    ['maxEdges', 'edge-limit'],
  ] as const) {
    const t = await ok('nds_analyze_control_flow', { address: at('arm_sum'), mode: 'arm', [limit]: 1 });
    assert.deepEqual([t.status, t.truncation], ['truncated', [reason]]);
  }
  const b = await ok('nds_analyze_control_flow', { address: at('arm_sum'), mode: 'arm', maxBytes: 6 });
  assert.deepEqual([b.status, b.truncation], ['truncated', ['byte-limit']]);
  await fails(
    'nds_analyze_control_flow',
    { address: at('arm_sum'), mode: 'arm', maxBlocks: 257 },
    'invalid-argument',
  );
});

test('references: calls with proven modes, literal slots and ADR addresses', async () => {
  const r = await ok('nds_list_references', { address: a9.entry, mode: 'arm', maxInstructions: 18 });
  const calls = r.references.filter((x: { kind: string }) => x.kind === 'direct-call');
  assert.deepEqual(
    calls.map((x: { to: string; targetMode: string }) => [Number(x.to), x.targetMode]),
    [
      [at('arm_sum'), 'arm'],
      [at('thumb_worker'), 'thumb'],
      [at('c_checksum'), 'thumb'],
      [at('c_apply'), 'thumb'],
    ],
  );
  assert.ok(
    r.references.some(
      (x: { kind: string; to: string }) => x.kind === 'pc-relative-address' && x.to === A(at('fn_table')),
    ),
  );
  assert.ok(
    r.references.some(
      (x: { kind: string; targetMode?: string }) => x.kind === 'literal-pool' && x.targetMode === undefined,
    ),
  );
  assert.deepEqual(r.decoded, { instructions: 18, bytes: 72 });
});

test('a code component larger than any DS RAM is refused (limit-exceeded), never read whole', async () => {
  // A header whose ARM7 size claims 40 MiB of appended junk: every call would read it all.
  const big = buildRom({
    arm9: { code: a9.bytes, ramAddress: a9.loadAddress, entry: a9.entry },
    arm7: { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.entry },
    appended: { length: 40 * 1024 * 1024, seed: 7 },
  });
  const bytes = big.bytes;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  view.setUint32(0x3c, bytes.length - view.getUint32(0x30, true), true); // ARM7 size: to the end
  view.setUint32(0x38, 0x02000000, true); // ARM7 RAM address with room for it
  view.setUint32(0x34, 0x02000000, true); // entry
  await writeFile(join(root, 'roms/big.nds'), bytes);
  const r = await call('nds_disassemble_range', {
    rom: 'roms/big.nds',
    processor: 'arm7',
    address: 0x02000000,
    mode: 'arm',
    maxInstructions: 1,
  });
  assert.equal(r.isError, true, JSON.stringify(r.structuredContent).slice(0, 300));
  assert.equal(r.structuredContent.error?.code, 'limit-exceeded');
  assert.ok(armTools.find((t) => t.name === 'nds_disassemble_range')?.limits?.sourceComponentBytes);
});

test('control flow: a branch into its own overlay BSS that another overlay overlaps is bss, not ambiguous', async () => {
  const OWN = 0x02600000;
  const OTHERS = 0x02700000;
  const NOP = word(0xe1a00000);
  const own = new Uint8Array([
    ...word(0x0a00000e), // beq OWN + 0x40: in this overlay's BSS, where overlay 6 also lies
    ...word(0xea03fffd), // b OTHERS: overlays 7 and 8 both hold it (genuinely ambiguous)
    ...Array.from({ length: 6 }, () => NOP).flat(),
  ]);
  const nops = new Uint8Array(Array.from({ length: 8 }, () => NOP).flat());
  const layered = buildRom({
    arm9: { code: a9.bytes, ramAddress: a9.loadAddress, entry: a9.entry },
    arm7: { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.entry },
    arm9Overlays: [
      { id: 5, ramAddress: OWN, data: own, bssSize: 0x100 },
      { id: 6, ramAddress: OWN + 0x40, data: nops },
      { id: 7, ramAddress: OTHERS, data: nops },
      { id: 8, ramAddress: OTHERS, data: nops },
    ],
  });
  await writeFile(join(root, 'roms/layered.nds'), layered.bytes);
  const g = await ok('nds_analyze_control_flow', { rom: 'roms/layered.nds', address: OWN, mode: 'arm' });
  const edge = (target: number) => g.edges.find((e: { target: string }) => e.target === A(target));
  assert.deepEqual([edge(OWN + 0x40).to, edge(OWN + 0x40).unresolved], [null, 'bss']);
  assert.deepEqual([edge(OTHERS).to, edge(OTHERS).unresolved], [null, 'ambiguous-code-source']);
  // Without a branch from overlay 5 naming the source, the address stays ambiguous.
  await fails(
    'nds_disassemble_range',
    { rom: 'roms/layered.nds', address: OWN + 0x40, mode: 'arm' },
    'ambiguous-code-source',
  );
});

test('control flow: one operation reads a stored component once, however many branches enter it', async () => {
  const store = getRomStore(services);
  const reads: number[] = [];
  await store.withRom(ROM, async (rom) => {
    const counted = {
      ...rom,
      readBytes: (offset: number, length: number) => {
        reads.push(length);
        return rom.readBytes(offset, length);
      },
    };
    const lookup = spanLookup(store, counted, 'arm9');
    const from = { component: 'overlay', overlayId: 3, start: OV_SHORT, bytes: SHORT };
    for (const symbol of ['arm_sum', 'arm_sum_loop', 'thumb_worker', 'arm_sum'])
      assert.ok('span' in (await lookup(at(symbol), 'arm', from)));
  });
  assert.deepEqual(reads, [a9.size], 'the main ARM9 was read once, whole');
});

test('literal pools: a slot a window load reads is data with its value; references carry the loaded word', async () => {
  const d = await ok('nds_disassemble_range', {
    address: a9.entry,
    mode: 'arm',
    maxInstructions: 64,
    maxBytes: 1024,
  });
  const data = d.instructions.filter((i: { kind?: string }) => i.kind === 'literal-pool-data');
  const badf00d = data.find((i: { value: string }) => i.value === '0x0badf00d');
  assert.ok(badf00d, JSON.stringify(data));
  assert.deepEqual(badf00d.loadedBy, [A(at('literal_arm'))]);
  assert.equal(badf00d.size, 4);
  assert.equal(badf00d.bytes, '0df0ad0b');
  // Every marked word is named by a literal load earlier in the same window, and is not decoded.
  const loads = d.instructions.filter(
    (i: { pcRelative?: { kind: string } }) => i.pcRelative?.kind === 'literal-pool',
  );
  for (const w of data) {
    assert.ok(
      loads.some(
        (l: { address: string; pcRelative: { address: string } }) =>
          l.pcRelative.address === w.address && w.loadedBy.includes(l.address),
      ),
    );
    assert.ok(
      !d.instructions.some(
        (i: { address: string; mnemonic?: string }) => i.mnemonic && i.address === w.address,
      ),
    );
  }
  assert.ok(data.length >= 3, `${data.length} pool words`);
  // The function-pointer table after the pool is not named by a literal load: still decoded.
  assert.ok(
    d.instructions.some(
      (i: { address: string; mnemonic?: string }) => i.address === A(at('fn_table')) && i.mnemonic,
    ),
  );

  const r = await ok('nds_list_references', { address: a9.entry, mode: 'arm', maxInstructions: 18 });
  const pool = r.references.filter((x: { kind: string }) => x.kind === 'literal-pool');
  const byFrom = (from: number) => pool.find((x: { from: string }) => x.from === A(from));
  const constant = byFrom(at('literal_arm'));
  assert.equal(constant.value, '0x0badf00d');
  assert.equal(constant.valueTarget, undefined, 'not a mapped runtime address');
  const blob = byFrom(at('call_c_thumb'));
  assert.equal(blob.value, A(at('data_blob')));
  assert.equal(blob.valueTarget.modeBit, 0);
  assert.equal(blob.valueTarget.address, A(at('data_blob')));
  assert.equal(blob.valueTarget.status, 'resolved');
  assert.deepEqual(blob.valueTarget.owners, [{ component: 'main', overlayId: null, region: 'file-backed' }]);
  const fn = pool.find(
    (x: { value: string }) => x.value === A(at('c_apply_target') | 1) || x.value === A(at('c_apply_target')),
  );
  assert.ok(fn, JSON.stringify(pool));
  assert.equal(fn.valueTarget.address, A(at('c_apply_target') & ~1));
});
