// The whole-program map on the kit's realistic programs (C/C++ at -O2 with newlib and libstdc++, a
// libnds-style crt0 copying ITCM, vectors and DTCM on the ARM9, the whole body into WRAM on the ARM7),
// scored against their ELF symbols and objdump's call sites: recall and precision per tier, every
// BL/BLX site among the map's cross-references, and the idioms real programs are made of, each on a
// named function of the programs.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EVIDENCE_IDS } from '../../../src/analysis/evidence/index.js';
import type { ProgramMap } from '../../../src/analysis/program-map/map.js';
import { getProgramMaps } from '../../../src/analysis/program-map/service.js';
import { ByteClass, TIER_RANK, TIERS, type Tier } from '../../../src/analysis/program-map/types.js';
import { loadConfig } from '../../../src/config/config.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { loadProgramTruth, type ProgramTruth, truthFunction } from '../../kit/arm/index.js';
import { scoreLines, scoreProgramMap } from '../../kit/arm/score.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { buildRom } from '../../kit/rom-builder.js';

const a9 = loadProgramTruth('arm9-program');
const a7 = loadProgramTruth('arm7-program');
const root = await makeWorkspace('re-mcp-program-map-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(
  join(root, 'roms/program.nds'),
  buildRom({
    arm9: { code: a9.bytes, ramAddress: a9.loadAddress, entry: a9.loadAddress },
    arm7: { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.loadAddress },
  }).bytes,
);
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
const store = getRomStore(services);

async function mapOf(processor: 'arm9' | 'arm7', evidence = EVIDENCE_IDS): Promise<ProgramMap> {
  return store.withRom('roms/program.nds', (rom) =>
    getProgramMaps(services).map(store, rom, {
      processor,
      evidence,
      maxCodeBytes: 16 << 20,
      maxSeconds: 300,
    }),
  );
}
const map9 = await mapOf('arm9');
const map7 = await mapOf('arm7');

for (const [map, truth] of [
  [map9, a9],
  [map7, a7],
] as const) {
  // Scored by the kit's shared scorer (test/kit/arm/score.ts, also the bench's). The assertions count
  // FUNC symbols alone as right, as they always have; the diagnostics also give the count with the
  // code labels without a FUNC type.
  const s = scoreProgramMap(map, truth);
  test(`${truth.name}: recall >= 95% with every tier; precision 100% proven, >= 99% referenced, >= 97% heuristic`, (t) => {
    for (const line of scoreLines(s)) t.diagnostic(line);
    assert.ok(s.tiers.heuristic.recall >= 0.95, `recall ${s.tiers.heuristic.recall}`);
    // Labels without a FUNC type (GCC's local `bx rN` stubs, assembly labels) count as right.
    const precision = (tier: Tier) => s.tiers[tier].precision ?? 0;
    assert.equal(precision('proven'), 1, s.tiers.proven.wrong.join(', '));
    assert.ok(precision('referenced') >= 0.99, s.tiers.referenced.wrong.join(', '));
    assert.ok(precision('heuristic') >= 0.97, s.tiers.heuristic.wrong.join(', '));
    // Each tier contributes (the programs are built to need all three).
    for (const tier of TIERS) assert.ok(s.tiers[tier].rightFunctions > 0, tier);
  });

  test(`${truth.name}: every BL/BLX call site of a function is a cross-reference of its callee in the map`, () => {
    // Call sites inside FUNC symbols: each program also holds a block of libgcc's double-precision
    // code linked without a symbol and reached by nothing, whose one BLEQ the shared scorer counts.
    const sites = truth.callSites.filter((c) =>
      truth.functions.some((f) => c.at >= f.address && c.at < f.address + f.bytes),
    );
    assert.ok(sites.length >= truth.callSites.length - 1);
    const missing = sites.filter(
      (c) => !map.xrefs(c.target, 'heuristic').some((x) => x.from === c.at && x.kind === 'direct-call'),
    );
    assert.deepEqual(
      missing.map((c) => `0x${c.at.toString(16)} -> 0x${c.target.toString(16)}`),
      [],
      `${missing.length} of ${sites.length} call sites missing`,
    );
    assert.ok(s.tiers.heuristic.callSitesFound >= sites.length);
  });

  test(`${truth.name}: with every tier every executable byte is classified, so the map is definitive there`, () => {
    const c = map.coverage('heuristic');
    assert.equal(c.unclassifiedBytes, 0);
    assert.equal(c.truncated, false);
    assert.equal(c.classifiedBytes + c.unavailableBytes, c.executableBytes);
    // Only at lower tiers: code only the sweep found is below them, and says so.
    const strict = map.coverage('referenced');
    assert.equal(strict.definitive, false);
    assert.ok(strict.belowTierBytes > 0);
    assert.ok(strict.notDefinitive.some((n) => n.includes('below the referenced tier')));
  });
}

const fnAt = (map: ProgramMap, truth: ProgramTruth, name: string) => {
  const t = truthFunction(truth, name);
  const f = map.functions.find((x) => x.address === t.address && x.mode === t.mode);
  assert.ok(f, `${name} (0x${t.address.toString(16)}) is a map function`);
  return f;
};
const classes = (f: { evidence: { class: string }[] }) => new Set(f.evidence.map((e) => e.class));

test('ARM switch (ldrls pc, [pc, r0, lsl #2]): its 13 cases are the function body, its table a jump table', () => {
  const t = truthFunction(a9, 'math_eval');
  const f = fnAt(map9, a9, 'math_eval');
  const comp = f.component;
  let table = 0;
  for (let a = t.address; a < t.address + t.size; a++)
    if (comp.cls[a - comp.start] === ByteClass.jumpTable) table++;
  assert.equal(table, 13 * 4);
  // No function entry inside its body: the cases are blocks of math_eval, not functions.
  assert.deepEqual(
    map9.functions
      .filter((g) => g.address > t.address && g.address < t.address + t.size)
      .map((g) => g.address),
    [],
  );
  assert.ok(f.blocks >= 13);
});

test('Thumb switch through the __gnu_thumb1_case_uqi helper: cases are intra-function, the helper call has no fall-through', () => {
  const t = truthFunction(a9, 'compact_opcode');
  const f = fnAt(map9, a9, 'compact_opcode');
  const comp = f.component;
  let table = 0;
  for (let a = t.address; a < t.address + t.size; a++)
    if (comp.cls[a - comp.start] === ByteClass.jumpTable) table++;
  assert.ok(table >= 12, `${table} table bytes`);
  assert.deepEqual(
    map9.functions
      .filter((g) => g.address > t.address && g.address < t.address + t.size)
      .map((g) => g.address),
    [],
  );
  fnAt(map9, a9, '__gnu_thumb1_case_uqi');
});

test('functions reached only through data carry the evidence that found them, at the referenced tier', () => {
  // A behaviour table in .rodata (struct entity_ops) and the math operator table.
  for (const name of ['walker_update', 'flyer_update', 'turret_update']) {
    const f = fnAt(map9, a9, name);
    assert.equal(f.tier, 'referenced', name);
    assert.ok(classes(f).has('pointer-table'), `${name}: ${[...classes(f)]}`);
  }
  // A handler installed by address (irq_set(mask, on_vblank)).
  const vblank = fnAt(map9, a9, 'on_vblank');
  assert.ok(classes(vblank).has('address-taken'), [...classes(vblank)].join());
  // A static constructor, reached from .init_array by __libc_init_array.
  const ctor = fnAt(map9, a9, '_GLOBAL__sub_I_cpp_scene_step');
  assert.ok(classes(ctor).has('init-array'), [...classes(ctor)].join());
  // The exception vectors' handlers, copied to ITCM by crt0: run-address code of a copied block.
  const irq = fnAt(map9, a9, 'irq_dispatch');
  assert.equal(irq.component.kind, 'copied');
  assert.ok(classes(irq).has('vector') || classes(irq).has('address-taken'), [...classes(irq)].join());
  // C++ virtual methods: vtables in .rodata, or the unwind index.
  const area = fnAt(map9, a9, '_ZNK12_GLOBAL__N_16Circle4areaEv');
  assert.ok(TIER_RANK[area.tier] <= TIER_RANK.referenced);
});

test('code nothing references is found only by the sweep, labelled heuristic', () => {
  for (const name of ['unused_debug_dump', 'unused_checksum_all']) {
    const f = fnAt(map9, a9, name);
    assert.equal(f.tier, 'heuristic', name);
    assert.deepEqual([...classes(f)], ['sweep'], name);
  }
  const dead7 = fnAt(map7, a7, 'arm7_unused_reset');
  assert.equal(dead7.tier, 'heuristic');
});

test('copied code is analysed at its run address: ITCM on the ARM9, the WRAM body on the ARM7', () => {
  const copy = fnAt(map9, a9, 'itcm_fast_copy');
  assert.equal(copy.component.kind, 'copied');
  assert.equal(copy.tier, 'proven');
  // Its load-address bytes are the copy's source, not code of their own.
  const itcm = a9.sections.find((s) => s.name === '.itcm')!;
  const main = map9.set.list.find((c) => c.kind === 'main')!;
  assert.equal(main.cls[itcm.lma + (copy.address - itcm.vma) - main.start], ByteClass.copiedSource);
  // The ARM7 body runs in WRAM: main() there is proven through crt0's call.
  const main7 = fnAt(map7, a7, 'main');
  assert.equal(main7.component.kind, 'copied');
  assert.equal(main7.tier, 'proven');
});

test('calls through a register stub (bl to `bx r3`) name the loaded function; the stub is a function of its own', () => {
  const w = map7.built.walker;
  const stubCalls = [...w.calls].filter((c) => c.kind === 'stub');
  assert.ok(stubCalls.length > 0);
  for (const c of stubCalls)
    assert.ok(
      map7.functions.some((f) => f.address === c.via && f.mode === c.viaMode),
      'the stub is listed',
    );
  const resolved = stubCalls.filter((c) => c.target !== null);
  assert.ok(resolved.length > 0, 'some stub call has a constant register');
  for (const c of resolved) {
    const callee = map7.functions.find((f) => f.address === c.target && f.mode === c.targetMode);
    assert.ok(callee, `stub call at 0x${c.at.toString(16)} names a function`);
    assert.ok(
      map7.xrefs(c.target!, 'proven').some((x) => x.from === c.at),
      `0x${c.at.toString(16)} is an xref of 0x${c.target!.toString(16)}`,
    );
  }
});

test('`mov lr, pc` before a PC write is a call whose fall-through is code (the ITCM IRQ dispatcher)', () => {
  const t = truthFunction(a9, 'irq_dispatch');
  const f = fnAt(map9, a9, 'irq_dispatch');
  const comp = f.component;
  // Every instruction of the dispatcher is code (the code after the call through the handler table included).
  let code = 0;
  for (let a = t.address; a < t.address + t.size; a += 4) {
    const c = comp.cls[a - comp.start]!;
    if (c === ByteClass.armHead) code++;
  }
  const regions = a9.functions.filter((x) => x.name === 'irq_dispatch');
  assert.equal(regions.length, 1);
  assert.ok(code >= (t.size - 8) / 4, `${code} of ${t.size / 4} words are ARM code`);
});

test('a narrower evidence set is a different map, and loses what only the left-out classes find', async () => {
  const strict = await mapOf('arm9', ['program-entry', 'direct-call', 'constant-register-call']);
  assert.notEqual(strict, map9);
  assert.ok(!strict.functions.some((f) => f.address === truthFunction(a9, 'walker_update').address));
  // Without copied-code, ITCM is not even a component.
  assert.ok(!strict.set.list.some((c) => c.kind === 'copied'));
  const c = strict.coverage('heuristic');
  assert.equal(c.definitive, false);
  assert.ok(c.unclassifiedBytes > 0);
  // And the same request again is the kept map (a lookup).
  assert.equal(await mapOf('arm9', ['direct-call', 'program-entry', 'constant-register-call']), strict);
});
