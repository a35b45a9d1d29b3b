// nds_symbols and the names other tools show: the kit program's ELF imported, a name changed, the
// store exported in every text format and re-imported into a fresh workspace to the same names; the
// disassembly names call targets, discovery and function_at name functions; names survive a restart;
// overlapping overlays are a conflict unless the file says which; hostile input is a typed refusal.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { parseElfSymbols } from '../../../src/formats/symbols/elf.js';
import { Services } from '../../../src/services.js';
import { analysisTools } from '../../../src/tools/analysis/index.js';
import { armTools } from '../../../src/tools/arm/index.js';
import { extractTools } from '../../../src/tools/extract/index.js';
import { ndsStructureTools } from '../../../src/tools/nds/index.js';
import { searchTools } from '../../../src/tools/search/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { ARM_KIT_BUILD_DIR, loadProgramTruth } from '../../kit/arm/index.js';
import { inProcess } from '../../kit/in-process.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { programRomBytes } from '../../kit/program-rom.js';
import { buildRom } from '../../kit/rom-builder.js';

const TOOLS = [...extractTools, ...armTools, ...analysisTools, ...ndsStructureTools, ...searchTools];
const truth = loadProgramTruth('arm9-program');
const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
const roots: string[] = [];

async function workspace() {
  const root = await makeWorkspace('re-mcp-symbols-');
  roots.push(root);
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, 'roms/program.nds'), programRomBytes());
  await copyFile(join(ARM_KIT_BUILD_DIR, 'arm9-program.elf'), join(root, 'program.elf'));
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  return { root, services, ...inProcess(TOOLS, services, { rom: 'roms/program.nds' }) };
}

let w: Awaited<ReturnType<typeof workspace>>;
before(async () => {
  w = await workspace();
});
after(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

/** Every name the ELF gives an address (aliases share one), as its own parser reads them. */
const namesAt = new Map<number, Set<string>>();
for (const f of parseElfSymbols(new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, 'arm9-program.elf'))))
  .symbols)
  namesAt.set(f.address, (namesAt.get(f.address) ?? new Set()).add(f.name));
const main = truth.functions.find((f) => f.name === 'main')!;

test('an ELF import names every function; aliases at one address are reported, not merged', async () => {
  // No format given: the file's magic says ELF.
  const r = await w.ok('nds_symbols', { action: 'import', file: 'program.elf' });
  assert.equal(r.format, 'elf');
  assert.ok(r.changes.added > truth.functions.length / 2, JSON.stringify(r.changes).slice(0, 300));
  // A label beside a FUNC is reported, never stored; an absolute constant is no name.
  assert.ok(r.changes.skipped.some((s: any) => /^label \.udivsi3_skip_div0_test: .* __udivsi3 /.test(s.why)));
  const labels = await w.ok('nds_symbols', { contains: 'udivsi3_skip', limit: 10 });
  assert.deepEqual(labels.symbols, []);
  assert.deepEqual((await w.ok('nds_symbols', { contains: '__itcm_lma', limit: 10 })).symbols, []);
  assert.equal(r.total, r.changes.added);
  assert.ok(
    r.changes.conflicts.some((c: any) => /names it .* too/.test(c.why)),
    'aliases are conflicts',
  );
  const listed = await w.ok('nds_symbols', { contains: 'main', limit: 1000 });
  const m = listed.symbols.find((s: any) => s.name === 'main');
  assert.deepEqual([m.address, m.mode, m.component, m.source], [hex(main.address), 'thumb', 'main', 'elf']);
  // The same import again changes nothing.
  const again = await w.ok('nds_symbols', { action: 'import', file: 'program.elf', format: 'elf' });
  assert.equal(again.changes.added, 0);
  assert.equal(again.total, r.total);
});

test('the disassembly names call targets; discovery and function_at name functions', async () => {
  const d = await w.ok('nds_disassemble_range', {
    processor: 'arm9',
    mode: main.mode,
    address: main.address,
    maxInstructions: 64,
  });
  const calls = d.instructions.filter((i: any) => i.flow === 'call' && i.target);
  assert.ok(calls.length > 0);
  for (const c of calls) {
    const t = Number.parseInt(c.target.slice(2), 16);
    if (namesAt.has(t)) assert.ok(namesAt.get(t)!.has(c.targetName), `${c.address}: ${c.targetName}`);
  }
  assert.ok(
    calls.some((c: any) => c.targetName),
    'some call target is named',
  );
  const at = await w.ok('nds_function_at', {
    processor: 'arm9',
    address: main.address + 8,
    scope: 'program',
  });
  assert.ok(
    at.matches.some((m: any) => m.name === 'main'),
    JSON.stringify(at.matches.map((m: any) => [m.identity.address, m.name])),
  );
  // Who calls the busiest function: each caller named by the function holding its call site.
  const counts = new Map<number, number>();
  for (const c of truth.callSites) counts.set(c.target, (counts.get(c.target) ?? 0) + 1);
  const busiest = [...counts].sort((a, b) => b[1] - a[1])[0]![0];
  const x = await w.ok('nds_find_xrefs', {
    processor: 'arm9',
    address: busiest,
    scope: 'program',
    maxXrefs: 512,
  });
  assert.ok(namesAt.get(busiest)!.has(x.target.name), JSON.stringify(x.target));
  const callers = x.xrefs.filter((r: any) => r.kind === 'direct-call');
  assert.ok(callers.length > 10);
  for (const r of callers) {
    const from = Number.parseInt(r.from.slice(2), 16);
    const holder = truth.functions.find((f) => f.address <= from && from < f.address + f.size);
    if (!holder) continue;
    const [base, off] = r.fromName.split('+');
    assert.ok(namesAt.get(holder.address)!.has(base), `${r.from}: ${r.fromName} (in ${holder.name})`);
    assert.equal(Number(off ?? 0), from - holder.address, r.fromName);
  }
  const found = await w.ok('nds_discover_functions', { processor: 'arm9', scope: 'program', limit: 1024 });
  const named = found.functions.filter((f: any) => f.name !== undefined);
  assert.ok(named.length > 100, `${named.length} named`);
  for (const f of named) {
    const a = Number.parseInt(f.identity.address.slice(2), 16);
    if (!f.name.includes('+'))
      assert.ok(namesAt.get(a)?.has(f.name) ?? true, `${f.identity.address} ${f.name}`);
  }
});

test('a rename shows at once; export and re-import into a fresh workspace give the same names', async () => {
  const set = await w.ok('nds_symbols', {
    action: 'set',
    address: main.address,
    name: 'game_main',
    comment: 'the loop',
  });
  assert.equal(set.changes.replaced, 1);
  assert.deepEqual(
    [set.symbols[0].name, set.symbols[0].comment, set.symbols[0].source],
    ['game_main', 'the loop', 'user'],
  );
  const at = await w.ok('nds_function_at', { processor: 'arm9', address: main.address, scope: 'program' });
  assert.ok(at.matches.some((m: any) => m.name === 'game_main'));
  const exported = await w.ok('nds_symbols', { action: 'export', format: 'csv' });
  assert.match(exported.exported, /^analysis\/generated\/nds\/[0-9a-f]{16}\/symbols\.csv$/);
  const fresh = await workspace();
  await copyFile(join(w.root, exported.exported), join(fresh.root, 'names.csv'));
  const back = await fresh.ok('nds_symbols', { action: 'import', file: 'names.csv' });
  assert.equal(back.format, 'csv');
  assert.deepEqual(back.changes.conflicts, []);
  const storeOf = async (root: string, path: string) =>
    JSON.parse(await readFile(join(root, path), 'utf8')).symbols.map(
      ({ source: _, ...rest }: Record<string, unknown>) => rest,
    );
  assert.deepEqual(await storeOf(fresh.root, back.store), await storeOf(w.root, set.store));
  // The other text formats carry every arm9 name too.
  for (const format of ['nosgba', 'plain', 'symbols-txt'] as const) {
    const e = await w.ok('nds_symbols', { action: 'export', format });
    const again = await workspace();
    await copyFile(join(w.root, e.exported), join(again.root, 'names.txt'));
    const r = await again.ok('nds_symbols', { action: 'import', file: 'names.txt', format });
    // no$gba cannot carry a name starting with '.'; the export says which it left out.
    const omitted = e.changes?.skipped.length ?? 0;
    if (format === 'nosgba')
      assert.ok(omitted > 0 && e.changes.skipped.every((s: any) => s.why.startsWith('.')));
    assert.equal(r.total, set.total - omitted, format);
    const listed = await again.ok('nds_symbols', { contains: 'game_main' });
    assert.equal(listed.symbols[0].address, hex(main.address), format);
  }
});

test('names survive a restart; remove takes one away', async () => {
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: w.root }), new Workspace(w.root));
  const restarted = inProcess(TOOLS, services, { rom: 'roms/program.nds' });
  const listed = await restarted.ok('nds_symbols', { contains: 'game_main' });
  assert.equal(listed.symbols.length, 1);
  const removed = await restarted.ok('nds_symbols', { action: 'remove', address: main.address });
  assert.equal(removed.changes.removed, 1);
  assert.equal((await w.ok('nds_symbols', { contains: 'game_main' })).symbols.length, 0);
});

test('an address two overlays hold is a conflict unless the file names the overlay', async () => {
  const root = await makeWorkspace('re-mcp-symbols-ov-');
  roots.push(root);
  await mkdir(join(root, 'roms'));
  const code = new Uint8Array(0x100).fill(0);
  const rom = buildRom({
    arm9: { code, ramAddress: 0x02000000, entry: 0x02000000 },
    arm7: { code: new Uint8Array(16), ramAddress: 0x037f8000, entry: 0x037f8000 },
    arm9Overlays: [
      { id: 0, ramAddress: 0x02300000, data: new Uint8Array(0x100).fill(1) },
      { id: 1, ramAddress: 0x02300000, data: new Uint8Array(0x100).fill(2) },
    ],
  });
  await writeFile(join(root, 'roms/ov.nds'), rom.bytes);
  await writeFile(join(root, 'plain.txt'), '0x02300010 shared_thing\n0x02000010 in_main\n');
  await writeFile(
    join(root, 'named.csv'),
    'address,name,mode,processor,overlay\n0x02300010,ov1_thing,arm,arm9,1\n',
  );
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  const t = inProcess(TOOLS, services, { rom: 'roms/ov.nds' });
  const plain = await t.ok('nds_symbols', { action: 'import', file: 'plain.txt', format: 'plain' });
  assert.equal(plain.changes.added, 1);
  assert.match(plain.changes.conflicts[0].why, /overlays 0, 1 all hold this address/);
  const csv = await t.ok('nds_symbols', { action: 'import', file: 'named.csv', format: 'csv' });
  assert.equal(csv.changes.added, 1);
  const listed = await t.ok('nds_symbols', {});
  assert.deepEqual(
    listed.symbols.map((s: any) => [s.name, s.component, s.overlayId]),
    [
      ['in_main', 'main', null],
      ['ov1_thing', 'overlay', 1],
    ],
  );
  await t.fails('nds_symbols', { action: 'set', address: 0x02300020, name: 'x' }, 'invalid-argument');
  await t.ok('nds_symbols', { action: 'set', address: 0x02300020, overlayId: 0, name: 'ov0_x' });
  // The same name again changes nothing; a removal names its overlay like a set must.
  const again = await t.ok('nds_symbols', {
    action: 'set',
    address: 0x02300020,
    overlayId: 0,
    name: 'ov0_x',
  });
  assert.deepEqual([again.changes.unchanged, again.changes.replaced], [1, 0]);
  await t.fails('nds_symbols', { action: 'remove', address: 0x02300020 }, 'invalid-argument');
  const gone = await t.ok('nds_symbols', { action: 'remove', address: 0x02300020, overlayId: 0 });
  assert.equal(gone.changes.removed, 1);
  // An address in main needs no overlay to be removed.
  assert.equal((await t.ok('nds_symbols', { action: 'remove', address: 0x02000010 })).changes.removed, 1);
});

test('hostile arguments and files are typed refusals; a damaged store is said, not trusted', async () => {
  const t = await workspace();
  await writeFile(join(t.root, 'junk.bin'), 'not an elf at all');
  const refusals: Array<[Record<string, unknown>, string]> = [
    [{ action: 'set', address: 0x02000000, name: 'two words' }, 'invalid-argument'],
    [{ action: 'set', address: 0x02000000, name: 'ok', comment: 'line\nbreak' }, 'invalid-argument'],
    [{ action: 'set', address: 0x02000000, name: 'x\u202ey' }, 'invalid-argument'],
    [{ action: 'set', name: 'no_address' }, 'invalid-argument'],
    [{ action: 'list', name: 'not_for_list' }, 'invalid-argument'],
    [{ action: 'import', file: '../outside.elf', format: 'elf' }, 'workspace-escape'],
    [{ action: 'import', file: 'junk.bin', format: 'elf' }, 'invalid-argument'],
    // Neither ELF nor a text format its parsers read: refused, asking for the format.
    [{ action: 'import', file: 'junk.bin' }, 'invalid-argument'],
    [{ action: 'import', file: 'missing.sym', format: 'nosgba' }, 'not-found'],
    [{ action: 'export', format: 'elf' }, 'invalid-argument'],
    [{ action: 'frobnicate' }, 'invalid-argument'],
  ];
  for (const [args, code] of refusals) await t.fails('nds_symbols', args, code);
  const ok = await t.ok('nds_symbols', { action: 'set', address: 0x02000000, name: 'start' });
  await writeFile(join(t.root, ok.store), '{"version": 1, "sourceSha256": "nope", "symbols": []}');
  await t.fails('nds_symbols', {}, 'invalid-argument');
  await t.fails(
    'nds_disassemble_range',
    { processor: 'arm9', mode: 'arm', address: 0x02000000 },
    'invalid-argument',
  );
});

test('names beside addresses in the other static tools: resolve, references, search hits, strings', async () => {
  const t = await workspace();
  await t.ok('nds_symbols', { action: 'import', file: 'program.elf', format: 'elf' });
  const fn = truth.functions.find((f) => f.name === 'main')!;
  const proof = await t.ok('nds_analyze_function', {
    processor: 'arm9',
    address: fn.address,
    mode: fn.mode,
    scope: 'program',
  });
  assert.equal(proof.name, 'main');
  const cfg = await t.ok('nds_analyze_control_flow', {
    processor: 'arm9',
    mode: fn.mode,
    address: fn.address,
  });
  const namedCalls = cfg.blocks.flatMap((b: any) => b.calls).filter((c: any) => c.targetName);
  assert.ok(namedCalls.length > 0, JSON.stringify(cfg.blocks[0]));
  for (const c of namedCalls)
    assert.ok(namesAt.get(Number.parseInt(c.target.slice(2), 16))?.has(c.targetName), c.targetName);
  const rows = await t.ok('nds_read_bytes', {
    region: { kind: 'arm9' },
    offset: fn.address - truth.loadAddress,
    length: 32,
  });
  assert.deepEqual(
    rows.rows.map((row: any) => row.name),
    ['main', 'main+0x10'],
  );
  const r = await t.ok('nds_resolve_runtime_address', { processor: 'arm9', address: fn.address });
  assert.equal(r.candidates[0].name, 'main');
  const off = await t.ok('nds_resolve_rom_offset', { offset: r.candidates[0].romOffset });
  assert.ok(
    off.owners.some((o: any) => o.runtimeName === 'main'),
    JSON.stringify(off.owners),
  );
  const refs = await t.ok('nds_list_references', { processor: 'arm9', mode: fn.mode, address: fn.address });
  const call = refs.references.find((x: any) => x.kind === 'direct-call');
  assert.ok(call?.toName, JSON.stringify(refs.references.slice(0, 4)));
  const bytes = truth.bytes.subarray(fn.address - truth.loadAddress, fn.address - truth.loadAddress + 8);
  const hits = await t.ok('nds_search_pattern', {
    pattern: {
      kind: 'byte-signature',
      signature: Buffer.from(bytes).toString('hex').replace(/../g, '$& ').trim(),
    },
    scope: { kind: 'components', components: [{ kind: 'arm9' }] },
  });
  assert.ok(
    hits.matches.some((m: any) => m.owners.some((o: any) => o.runtimeName === 'main')),
    JSON.stringify(hits.matches),
  );
  // A string named by the assistant, and the function that loads it named from the ELF.
  const s = (await t.ok('nds_list_strings', { in: 'arm9', contains: 'guru meditation' })).strings[0];
  await t.ok('nds_symbols', { action: 'set', address: s.address, name: 'msg_guru', mode: 'data' });
  const named = (
    await t.ok('nds_list_strings', { in: 'arm9', contains: 'guru meditation', references: true })
  ).strings[0];
  assert.equal(named.name, 'msg_guru');
  assert.ok(
    named.refs.some((x: any) => x.function !== null && typeof x.functionName === 'string'),
    JSON.stringify(named.refs),
  );
});
