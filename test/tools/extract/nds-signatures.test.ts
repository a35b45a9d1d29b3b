// nds_signatures on real data: a set built from Debian's newlib, libgcc, libstdc++ and libsupc++ (the
// Thumb multilib the kit program links) applied to the kit program's ROM, built from its binary alone
// (no names stored), and scored against its ELF: every proposed name right (a wrong name is worse than
// none), recall of the library functions measured; the accepted names then show in the other tools as
// source `signature`. A set from the program's own ELF carries its names to the ROM. The set file
// round-trips through import; hostile sets, paths and arguments are typed refusals.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { parseElfObject, STT_FUNC, STT_NOTYPE, STT_OBJECT } from '../../../src/formats/objects/elf-object.js';
import { Services } from '../../../src/services.js';
import { analysisTools } from '../../../src/tools/analysis/index.js';
import { extractTools } from '../../../src/tools/extract/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { ARM_KIT_BUILD_DIR, type ArmRealisticProgram, loadProgramTruth } from '../../kit/arm/index.js';
import { inProcess } from '../../kit/in-process.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { kitRomBytes, programRomBytes } from '../../kit/program-rom.js';

const TOOLS = [...extractTools, ...analysisTools];
const truth = loadProgramTruth('arm9-program');
const rom = 'roms/program.nds';
const gcc = (arg: string) =>
  execFileSync('arm-none-eabi-g++', ['-mcpu=arm946e-s', '-mthumb', arg], { encoding: 'utf8' }).trim();
const LIBS = {
  'libc.a': gcc('-print-file-name=libc.a'),
  'libgcc.a': gcc('-print-libgcc-file-name'),
  'libstdc++.a': gcc('-print-file-name=libstdc++.a'),
  'libsupc++.a': gcc('-print-file-name=libsupc++.a'),
};
let root = '';
let w: ReturnType<typeof inProcess>;

before(async () => {
  root = await makeWorkspace('re-mcp-signatures-');
  await mkdir(join(root, 'roms'));
  await mkdir(join(root, 'libs'));
  await writeFile(join(root, rom), programRomBytes());
  for (const [name, path] of Object.entries(LIBS)) await copyFile(path, join(root, 'libs', name));
  await copyFile(join(ARM_KIT_BUILD_DIR, 'arm9-program.elf'), join(root, 'program.elf'));
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  w = inProcess(TOOLS, services);
});
after(() => rm(root, { recursive: true, force: true }));

/** Every name the ELF gives each address. */
const namesAt = new Map<number, Set<string>>();
for (const f of truth.functions) namesAt.set(f.address, (namesAt.get(f.address) ?? new Set()).add(f.name));

/** All proposals of one application, page by page. */
async function allProposals(set: string, on = rom): Promise<{ counts: any; proposals: any[] }> {
  const proposals: any[] = [];
  let offset: number | null = 0;
  let counts: any = null;
  while (offset !== null) {
    const r: any = await w.ok('nds_signatures', { action: 'apply', set, rom: on, offset, limit: 500 });
    counts = r.applied.counts;
    proposals.push(...r.applied.proposals);
    offset = r.applied.nextOffset;
  }
  return { counts, proposals };
}

test('a set from the Debian libraries names the library code of the stripped kit program, never wrongly', async (t) => {
  assert.deepEqual((await w.ok('nds_signatures', {})).sets, []);
  const built: any = await w.ok('nds_signatures', {
    action: 'build',
    set: 'debian-thumb',
    files: Object.keys(LIBS).map((n) => `libs/${n}`),
  });
  assert.equal(built.set.path, 'analysis/generated/signatures/debian-thumb.json');
  assert.deepEqual(
    built.built.inputs.map((i: any) => i.kind),
    ['archive', 'archive', 'archive', 'archive'],
  );
  assert.ok(built.set.functions > 5000, `${built.set.functions} function signatures`);
  const listed: any = await w.ok('nds_signatures', { action: 'list' });
  assert.deepEqual(
    listed.sets.map((s: any) => s.name),
    ['debian-thumb'],
  );

  const { counts, proposals: all } = await allProposals('debian-thumb');
  const proposals = all.filter((p) => p.mode !== 'data');
  // Data labels follow the library functions using them (newlib's impure pointer, malloc's state).
  const data = scoreData(all, 'arm9-program');
  t.diagnostic(`data labels: right ${data.right}, wrong ${data.wrong.length}, ambiguous ${data.ambiguous}`);
  assert.deepEqual(data.wrong, []);
  assert.ok(data.right >= 30, `${data.right} data labels`);
  assert.equal(counts.data, all.length - proposals.length);
  const setFile = JSON.parse(await readFile(join(root, built.set.path), 'utf8'));
  // Each name of the set and the library (archive) it comes from.
  const inSet = new Map<string, string>();
  for (const item of setFile.items)
    if (item.kind === 'function')
      for (const n of item.names) if (!inSet.has(n)) inSet.set(n, item.origin.split('(')[0]);
  // The library functions linked into the program: its ELF functions whose name the set has.
  const library = new Set(truth.functions.filter((f) => inSet.has(f.name)).map((f) => f.address));
  const libraryOf = new Map(
    truth.functions.filter((f) => inSet.has(f.name)).map((f) => [f.address, inSet.get(f.name)!]),
  );
  const perLibrary = new Map<string, { right: number; all: number }>();
  for (const lib of libraryOf.values())
    perLibrary.set(lib, { right: 0, all: (perLibrary.get(lib)?.all ?? 0) + 1 });
  let right = 0;
  const wrong: string[] = [];
  for (const p of proposals) {
    if (p.name === null) {
      assert.equal(p.tier, 'ambiguous');
      assert.ok(p.candidates.length > 1 || p.alsoAt.length > 0, JSON.stringify(p));
      continue;
    }
    const a = Number.parseInt(p.address.slice(2), 16);
    const names = [p.name, ...p.candidates[0].aliases];
    if (names.some((n: string) => namesAt.get(a)?.has(n))) {
      right++;
      const lib = libraryOf.get(a);
      if (lib !== undefined) perLibrary.get(lib)!.right++;
    } else wrong.push(`${p.address} ${p.name} (ELF: ${[...(namesAt.get(a) ?? [])].join(', ') || 'none'})`);
  }
  const named = right + wrong.length;
  const precision = right / named;
  const recall = right / library.size;
  t.diagnostic(`counts ${JSON.stringify(counts)}`);
  t.diagnostic(
    `named ${named}: right ${right}, precision ${precision.toFixed(4)}; library functions ${library.size}, recall ${recall.toFixed(3)}`,
  );
  // Measured: none wrong (the issue asks 99%; a wrong name is worse than none).
  assert.deepEqual(wrong, []);
  assert.ok(precision >= 0.99, wrong.slice(0, 20).join('; '));
  assert.ok(named > 300, `${named} named`);
  t.diagnostic(
    `per library: ${[...perLibrary].map(([lib, { right: r, all }]) => `${lib} ${r}/${all} ${(r / all).toFixed(3)}`).join('; ')}`,
  );
  // Measured 0.991 (0.718 before the sections of each object were laid out again between the named
  // ones; 0.59 before callers and vtables): what is left is identical code under several names that
  // nothing tells apart, reported ambiguous.
  assert.ok(recall >= 0.95, `recall ${recall}`);
  for (const [lib, { right: r, all }] of perLibrary) assert.ok(r / all >= 0.9, `${lib}: ${r} of ${all}`);
  // Functions the map did not find, placed by their object's layout (the unwinder's VFP/WMMX helpers).
  assert.ok(counts.outsideMap > 0, JSON.stringify(counts));
  for (const p of proposals.filter((x) => !x.inMap)) assert.equal(p.tier, 'supported');
  // Every proposal says why.
  for (const p of proposals.slice(0, 50)) assert.ok(p.reasons.length > 0);
  const memcpy = proposals.find((p) => p.name === 'memcpy');
  assert.ok(memcpy, 'memcpy is recognised');
  assert.equal(memcpy.tier, 'strong');
});

test('accepted proposals go to the symbol store as source signature, and the map tools show them', async () => {
  const r: any = await w.ok('nds_signatures', {
    action: 'accept',
    set: 'debian-thumb',
    rom,
    minScore: 16,
  });
  assert.ok(r.accepted.added > 300, JSON.stringify(r.accepted).slice(0, 300));
  assert.equal(
    r.accepted.offered,
    r.accepted.added + r.accepted.unchanged + r.accepted.replaced + r.accepted.conflicts.length,
  );
  const listed: any = await w.ok('nds_symbols', { rom, contains: 'memcpy', limit: 10 });
  const m = listed.symbols.find((s: any) => s.name === 'memcpy');
  assert.equal(m.source, 'signature');
  assert.equal(
    Number.parseInt(m.address.slice(2), 16),
    truth.functions.find((f) => f.name === 'memcpy')!.address,
  );
  // Accepting again changes nothing.
  const again: any = await w.ok('nds_signatures', {
    action: 'accept',
    set: 'debian-thumb',
    rom,
    minScore: 16,
  });
  assert.equal(again.accepted.added, 0);
  // The call graph names the callee of a call into the library.
  const memcpyAt = truth.functions.find((f) => f.name === 'memcpy')!.address;
  const x: any = await w.ok('nds_find_xrefs', {
    rom,
    processor: 'arm9',
    address: memcpyAt,
    scope: 'program',
  });
  assert.equal(x.target.name, 'memcpy');
  // An ambiguous proposal is never accepted, even when asked for by address.
  const { proposals } = await allProposals('debian-thumb');
  const ambiguous = proposals.filter((p) => p.tier === 'ambiguous').map((p) => p.address);
  assert.ok(ambiguous.length > 0);
  const none: any = await w.ok('nds_signatures', {
    action: 'accept',
    set: 'debian-thumb',
    rom,
    addresses: ambiguous,
  });
  assert.equal(none.accepted.offered, 0);
});

test("a set from the program's own ELF names its functions in the ROM built from its binary", async (t) => {
  const built: any = await w.ok('nds_signatures', {
    action: 'build',
    set: 'program',
    files: ['program.elf'],
  });
  assert.equal(built.built.inputs[0].kind, 'elf');
  const { counts, proposals: all } = await allProposals('program');
  const proposals = all.filter((p) => p.mode !== 'data');
  // Its data objects follow the code using them.
  const data = scoreData(all, 'arm9-program');
  t.diagnostic(`data labels: right ${data.right}, wrong ${data.wrong.length}, ambiguous ${data.ambiguous}`);
  assert.deepEqual(data.wrong, []);
  assert.ok(data.right >= 50, `${data.right} data labels`);
  let right = 0;
  const wrong: string[] = [];
  for (const p of proposals) {
    if (p.name === null) continue;
    const a = Number.parseInt(p.address.slice(2), 16);
    if ([p.name, ...p.candidates[0].aliases].some((n: string) => namesAt.get(a)?.has(n))) right++;
    else wrong.push(`${p.address} ${p.name}`);
  }
  t.diagnostic(`counts ${JSON.stringify(counts)}; right ${right}, wrong ${wrong.length}`);
  assert.deepEqual(wrong, []);
  assert.ok(right > truth.functions.length / 2, `${right} of ${truth.functions.length}`);
});

test('the set file imports back; hostile sets, paths and arguments are typed refusals', async () => {
  await copyFile(join(root, 'analysis/generated/signatures/program.json'), join(root, 'shared.json'));
  await rm(join(root, 'analysis/generated/signatures/program.json'));
  const imported: any = await w.ok('nds_signatures', { action: 'import', files: ['shared.json'] });
  assert.equal(imported.set.name, 'program');
  assert.ok(imported.set.functions > 100);
  const text = await readFile(join(root, 'shared.json'), 'utf8');
  // The server keeps the set it decoded and its application; a changed file is read anew, so a name
  // changed in the file shows at once (and the old one is gone).
  const first: any = await w.ok('nds_signatures', { action: 'apply', set: 'program', rom, limit: 50 });
  const again: any = await w.ok('nds_signatures', { action: 'apply', set: 'program', rom, limit: 50 });
  assert.deepEqual(again.applied, first.applied);
  const p = first.applied.proposals.find((x: any) => x.tier === 'strong' && x.mode !== 'data');
  const json = JSON.parse(text);
  const item = json.items.find((i: any) => i.names[0] === p.name);
  item.names[0] = `${p.name}_renamed`;
  const setFile = join(root, 'analysis/generated/signatures/program.json');
  await writeFile(setFile, JSON.stringify(json));
  const renamed: any = await w.ok('nds_signatures', { action: 'apply', set: 'program', rom, limit: 50 });
  const there = renamed.applied.proposals.find((x: any) => x.address === p.address);
  assert.equal(there.name, `${p.name}_renamed`);
  await writeFile(setFile, text);
  const back: any = await w.ok('nds_signatures', { action: 'apply', set: 'program', rom, limit: 50 });
  assert.deepEqual(back.applied, first.applied);
  const hostile: [string, string][] = [
    ['truncated', text.slice(0, Math.floor(text.length / 2))],
    ['not json', '\u0000\u0001'],
    ['other format', JSON.stringify({ format: 'x', version: 1 })],
    ['newer version', text.replace('"version":2', '"version":99')],
    ['bad pattern', text.replace(/"pattern":"[0-9a-f.]{4}/, '"pattern":"zz')],
    ['bad name', text.replace(/"names":\["[^"]+"/, '"names":["a b"')],
    ['ref past the bytes', text.replace(/"refs":\[\[\d+,/, '"refs":[[999999,')],
    ['path-like set name', text.replace(/"name":"program"/, '"name":"../x"')],
  ];
  for (const [what, body] of hostile) {
    await writeFile(join(root, 'bad.json'), body);
    await w
      .fails('nds_signatures', { action: 'import', files: ['bad.json'] }, 'invalid-argument')
      .catch((e) => {
        throw new Error(`${what}: ${e.message}`);
      });
  }
  await w.fails('nds_signatures', { action: 'import', files: ['../outside.json'] }, 'workspace-escape');
  await w.fails(
    'nds_signatures',
    { action: 'build', set: 'x', files: ['libs/../../etc/passwd'] },
    'workspace-escape',
  );
  await w.fails('nds_signatures', { action: 'build', set: 'x', files: [rom] }, 'invalid-argument');
  await w.fails(
    'nds_signatures',
    { action: 'build', set: '../x', files: ['program.elf'] },
    'invalid-argument',
  );
  await w.fails('nds_signatures', { action: 'apply', set: 'nothing-here', rom }, 'not-found');
  await w.fails('nds_signatures', { action: 'apply', set: 'program' }, 'invalid-argument');
  await w.fails('nds_signatures', { action: 'list', set: 'program' }, 'invalid-argument');
});

/**
 * Every name an ELF gives each address: its functions (a constructor's C1 and C2 aliases both) and the
 * code labels without a type (a second entry, like libgcc's `.divsi3_skip_div0_test`); never its
 * mapping symbols.
 */
function elfNamesAt(program: string): Map<number, Set<string>> {
  const names = new Map<number, Set<string>>();
  for (const f of parseElfObject(new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, `${program}.elf`))))
    .symbols)
    if ((f.type === STT_FUNC || f.type === STT_NOTYPE) && f.name !== null && !f.name.startsWith('$'))
      names.set(f.value & ~1, (names.get(f.value & ~1) ?? new Set()).add(f.name));
  return names;
}

/** Every data object's names by address (the ELF's OBJECT symbols). */
function elfDataAt(program: string): Map<number, Set<string>> {
  const names = new Map<number, Set<string>>();
  for (const s of parseElfObject(new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, `${program}.elf`))))
    .symbols)
    if (s.type === STT_OBJECT && s.name !== null)
      names.set(s.value, (names.get(s.value) ?? new Set()).add(s.name));
  return names;
}

/** The data labels among `proposals`, scored against `program`'s ELF: right, and the wrong ones. */
function scoreData(proposals: any[], program: string): { right: number; wrong: string[]; ambiguous: number } {
  const dataAt = elfDataAt(program);
  let right = 0;
  let ambiguous = 0;
  const wrong: string[] = [];
  for (const p of proposals.filter((x) => x.mode === 'data')) {
    assert.equal(p.inMap, null);
    if (p.name === null) {
      ambiguous++;
      continue;
    }
    const a = Number.parseInt(p.address.slice(2), 16);
    if ([p.name, ...p.candidates[0].aliases].some((n: string) => dataAt.get(a)?.has(n))) right++;
    else wrong.push(`${p.address} ${p.name} (ELF: ${[...(dataAt.get(a) ?? [])].join(', ') || 'none'})`);
  }
  return { right, wrong, ambiguous };
}

/**
 * The names a set built from the named kit ROM proposes for program B's ROM, scored against B's ELF:
 * right and wrong proposals, and the functions of B (by address) that A names too, less those
 * `changed` (their source differs between the builds); `missed` lists those shared left unnamed.
 */
async function carried(set: string, romB: string, programB: ArmRealisticProgram, changed: string[] = []) {
  const namesB = elfNamesAt(programB);
  const { counts, proposals: all } = await allProposals(set, romB);
  const proposals = all.filter((p) => p.mode !== 'data');
  const data = scoreData(all, programB);
  const wrong: string[] = [];
  const rightAt = new Set<number>();
  for (const p of proposals) {
    if (p.name === null) continue;
    const a = Number.parseInt(p.address.slice(2), 16);
    if ([p.name, ...p.candidates[0].aliases].some((n: string) => namesB.get(a)?.has(n))) rightAt.add(a);
    else wrong.push(`${p.address} ${p.name} (ELF: ${[...(namesB.get(a) ?? [])].join(', ') || 'none'})`);
  }
  const inA = new Set(truth.functions.map((f) => f.name));
  const sharedAt = new Map<number, string>();
  for (const f of loadProgramTruth(programB).functions)
    if (inA.has(f.name) && !changed.includes(f.name)) sharedAt.set(f.address, f.name);
  const right = [...rightAt].filter((a) => sharedAt.has(a)).length;
  const missed = [...sharedAt].filter(([a]) => !rightAt.has(a)).map(([, name]) => name);
  return { counts, proposals, named: rightAt.size, right, wrong, shared: sharedAt.size, missed, data };
}

test('names carried build to build: a set from the named ROM applied to the same code in another layout', async (t) => {
  // ROM A: the kit program, named from its ELF. ROM B: arm9-calico, the same sources linked in current
  // devkitARM's start-up layout (a bootstub first, everything else moved).
  await writeFile(join(root, 'roms/calico.nds'), kitRomBytes('arm9-calico', 'arm7-blocksds'));
  await w.ok('nds_symbols', { rom, action: 'import', file: 'program.elf' });
  const built: any = await w.ok('nds_signatures', { action: 'build', set: 'from-a', rom });
  assert.equal(built.built.inputs[0].kind, 'rom');
  assert.equal(built.set.sources[0].path, rom);
  const { counts, proposals, named, right, wrong, shared, missed, data } = await carried(
    'from-a',
    'roms/calico.nds',
    'arm9-calico',
  );
  // The data labels of A (the ELF's objects, imported with it) follow the code using them: few yet
  // (measured 5), as the signatures built from a ROM's map see few of the words naming data.
  t.diagnostic(`data labels: right ${data.right}, wrong ${data.wrong.length}, ambiguous ${data.ambiguous}`);
  assert.deepEqual(data.wrong, []);
  assert.ok(data.right >= 3, `${data.right} data labels`);
  const places = proposals.filter((p) => p.alsoAt.length > 0).length;
  t.diagnostic(
    `ambiguous by several places ${places}, by several names ${proposals.filter((p) => p.candidates.length > 1).length}`,
  );
  t.diagnostic(
    `counts ${JSON.stringify(counts)}; right ${right}, wrong ${wrong.length}; functions of B named in A ${shared}, recall ${(right / shared).toFixed(3)}`,
  );
  if (wrong.length > 0) t.diagnostic(`wrong: ${wrong.slice(0, 10).join('; ')}`);
  t.diagnostic(`missed (${missed.length}): ${missed.slice(0, 40).join(', ')}`);
  assert.ok(named / (named + wrong.length) >= 0.99, wrong.slice(0, 20).join('; '));
  // Measured 0.969 (0.51 before the places of named functions named their neighbours, 0.919 before
  // the linker's stubs were carried by what they reach). The rest: the unwind library's VFP/WMMX
  // save/restore routines and their stubs (no caller: not in the map), and a few functions whose
  // every reference is to code that moved differently.
  assert.ok(right / shared >= 0.95, `recall ${right / shared}`);
});

test('names carried to a later revision: a changed and an added function, one file built otherwise, the rest moved', async (t) => {
  // ROM B: arm9-revision, the kit program's sources as a later revision (build.sh): cmd_gold changed,
  // cmd_heal and its strings added in game.c (everything after them moved), math_arm.c at -O1.
  await writeFile(join(root, 'roms/revision.nds'), kitRomBytes('arm9-revision', 'arm7-program'));
  await w.ok('nds_symbols', { rom, action: 'import', file: 'program.elf' });
  await w.ok('nds_signatures', { action: 'build', set: 'from-a-rev', rom });
  const { counts, named, right, wrong, shared, missed } = await carried(
    'from-a-rev',
    'roms/revision.nds',
    'arm9-revision',
    ['cmd_gold'],
  );
  t.diagnostic(
    `counts ${JSON.stringify(counts)}; right ${right}, wrong ${wrong.length}; unchanged functions of B named in A ${shared}, recall ${(right / shared).toFixed(3)}`,
  );
  if (wrong.length > 0) t.diagnostic(`wrong: ${wrong.slice(0, 10).join('; ')}`);
  t.diagnostic(`missed (${missed.length}): ${missed.slice(0, 60).join(', ')}`);
  assert.ok(named / (named + wrong.length) >= 0.99, wrong.slice(0, 20).join('; '));
  // Measured 0.967: the functions of the file built at -O1 are named by their callers (directly or
  // through a linker stub), the three reached only through a table of pointers by that table (found
  // by the two of its functions whose bytes did not change); the rest are what the layout test misses
  // too.
  assert.ok(right / shared >= 0.95, `recall ${right / shared}`);
  // What B added is named nothing it is not.
  const added = loadProgramTruth('arm9-revision').functions.find((f) => f.name === 'cmd_heal')!;
  const there = (await allProposals('from-a-rev', 'roms/revision.nds')).proposals.find(
    (p) => Number.parseInt(p.address.slice(2), 16) === added.address,
  );
  assert.equal(there?.name ?? null, null);
  // What B added and changed is listed unmatched on B's side; what A had and B changed on A's.
  const applied = await w.call('nds_signatures', {
    action: 'apply',
    set: 'from-a-rev',
    rom: 'roms/revision.nds',
    limit: 1,
  });
  const r: any = applied.structuredContent;
  const un = r.applied.unmatched;
  const gold = loadProgramTruth('arm9-revision').functions.find((f) => f.name === 'cmd_gold')!;
  const listedB = new Set(un.functions.listed.map((f: any) => Number.parseInt(f.address.slice(2), 16)));
  assert.ok(
    un.functions.total >= 2 && un.functions.total < counts.functions / 10,
    JSON.stringify(un.functions.total),
  );
  assert.ok(listedB.has(added.address), 'the added cmd_heal is unmatched in B');
  assert.ok(!un.signatures.listed.includes('cmd_heal'), 'A has no cmd_heal');
  // The changed cmd_gold: its bytes match nothing, but the command table holding it is found by the
  // handlers that did not change, and its slot names it (the reason says its bytes changed).
  const goldThere = (await allProposals('from-a-rev', 'roms/revision.nds')).proposals.find(
    (p) => Number.parseInt(p.address.slice(2), 16) === gold.address,
  );
  assert.equal(goldThere?.name, 'cmd_gold');
  assert.equal(goldThere.tier, 'supported');
  assert.match(goldThere.reasons.join(' '), /held by \S+ \(0x[0-9a-f]+\) at \+\d+/);
  assert.match(goldThere.reasons.join(' '), /its bytes are not the signature's/);
  assert.ok(!listedB.has(gold.address), 'the changed cmd_gold is named, not unmatched');
  assert.ok(un.signatures.total < 100, `${un.signatures.total} of A's functions unmatched`);
  assert.match(applied.content[0]!.text, /unmatched: \d+ function\(s\) of the program, \d+ of the set/);
});

test("an ARM build of the same libraries against the program's Thumb build: the Thumb code unmatched, nothing named wrongly", async (t) => {
  // Debian's ARM multilib of newlib and libgcc: the C code compiled as ARM, the assembly the same.
  const arm = (arg: string) =>
    execFileSync('arm-none-eabi-gcc', ['-mcpu=arm946e-s', arg], { encoding: 'utf8' }).trim();
  await mkdir(join(root, 'libs-arm'), { recursive: true });
  await copyFile(arm('-print-file-name=libc.a'), join(root, 'libs-arm/libc.a'));
  await copyFile(arm('-print-libgcc-file-name'), join(root, 'libs-arm/libgcc.a'));
  await writeFile(join(root, 'roms/stripped-arm-libs.nds'), programRomBytes());
  await w.ok('nds_signatures', {
    action: 'build',
    set: 'debian-arm',
    files: ['libs-arm/libc.a', 'libs-arm/libgcc.a'],
  });
  const { counts, proposals } = await allProposals('debian-arm', 'roms/stripped-arm-libs.nds');
  const modeAt = new Map(truth.functions.map((f) => [f.address, f.mode]));
  const wrong: string[] = [];
  let right = 0;
  let thumb = 0;
  for (const p of proposals) {
    if (p.name === null) continue;
    const a = Number.parseInt(p.address.slice(2), 16);
    if (modeAt.get(a) === 'thumb') thumb++;
    if ([p.name, ...p.candidates[0].aliases].some((n: string) => namesAt.get(a)?.has(n))) right++;
    else wrong.push(`${p.address} ${p.name} (ELF: ${[...(namesAt.get(a) ?? [])].join(', ') || 'none'})`);
  }
  const thumbLibrary = truth.functions.filter((f) => f.mode === 'thumb').length;
  t.diagnostic(
    `counts ${JSON.stringify(counts)}; named ${right + wrong.length}: right ${right}, wrong ${wrong.length}; Thumb functions named ${thumb} of ${thumbLibrary}`,
  );
  assert.deepEqual(wrong, []);
  // Expected unmatched: the program's Thumb-compiled library code has no ARM twin in bytes, so only
  // what both builds share (ARM assembly, e.g. libgcc's division) is named, and no Thumb function by
  // its bytes (a caller may still name one).
  assert.ok(right > 0, 'the shared ARM assembly is named');
  assert.ok(thumb <= right / 4, `${thumb} Thumb functions named`);
});
