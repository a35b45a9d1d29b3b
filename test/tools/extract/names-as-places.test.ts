// Names as addresses where names are made: nds_symbols set and remove take a place by a stored name
// (`bar+4`: an alias near bar; `foo`: foo's own place, renamed there since a place has one name; an
// ITCM name at its run address, owned by the copy; an overlay's name in its overlay where overlays
// overlap), and nds_signatures accept takes the proposals to store by name. The answer says which
// name resolved to which address; an unknown name is a typed refusal listing similar names.
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { formatAddress as hex } from '../../../src/core/vocabulary.js';
import { NAMES_META_KEY } from '../../../src/mcp/named-args.js';
import { Services } from '../../../src/services.js';
import { analysisTools } from '../../../src/tools/analysis/index.js';
import { extractTools } from '../../../src/tools/extract/index.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { ARM_KIT_BUILD_DIR, loadProgramTruth, truthFunction } from '../../kit/arm/index.js';
import { writeOverlayTargetRom } from '../../kit/desmume/index.js';
import { inProcess } from '../../kit/in-process.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { programRomBytes } from '../../kit/program-rom.js';

const a9 = loadProgramTruth('arm9-program');
const main = truthFunction(a9, 'main');
const itcmFn = truthFunction(a9, 'itcm_fast_copy');
const rom = 'roms/program.nds';
let root: string;
let w: ReturnType<typeof inProcess>;
let ovl: ReturnType<typeof writeOverlayTargetRom>;

before(async () => {
  root = await makeWorkspace('re-mcp-names-as-places-');
  await mkdir(join(root, 'roms'));
  await writeFile(join(root, rom), programRomBytes());
  ovl = writeOverlayTargetRom(join(root, 'roms/ovl.nds'));
  await copyFile(join(ARM_KIT_BUILD_DIR, 'arm9-program.elf'), join(root, 'program.elf'));
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  w = inProcess([...extractTools, ...analysisTools], services);
});
after(() => rm(root, { recursive: true, force: true }));

type Symbol = { name: string; address: string; component: string; overlayId: number | null };

test('nds_symbols set and remove take a place by name and name+offset', async () => {
  await w.ok('nds_symbols', { rom, action: 'import', file: 'program.elf' });
  // An alias near a name: a new place, said in the answer's first line and _meta.
  const r = await w.call('nds_symbols', { rom, action: 'set', address: 'main+0x8', name: 'main_body' });
  assert.notEqual(r.isError, true, r.content[0]?.text);
  assert.equal(r.structuredContent.changes.added, 1);
  const set = r.structuredContent.symbols[0] as Symbol;
  assert.deepEqual([set.name, set.address, set.component], ['main_body', hex(main.address + 8), 'main']);
  assert.match(
    r.content[0]!.text,
    new RegExp(`^names: address main\\+0x8 = arm9 ${hex(main.address + 8)}\n`),
  );
  assert.deepEqual((r as unknown as { _meta: Record<string, unknown> })._meta[NAMES_META_KEY], [
    {
      argument: 'address',
      name: 'main+0x8',
      processor: 'arm9',
      address: hex(main.address + 8),
      overlayId: null,
    },
  ]);
  // The new name is a name like any other: main_body+4 is main+12.
  const next = await w.ok('nds_symbols', { rom, action: 'set', address: 'main_body+4', name: 'main_tail' });
  assert.equal(next.symbols[0].address, hex(main.address + 12));
  // A name of code the start-up copies: its run address, owned by the copy.
  const itcm = await w.ok('nds_symbols', {
    rom,
    action: 'set',
    address: 'itcm_fast_copy+0x10',
    name: 'itcm_loop',
  });
  assert.deepEqual(
    [itcm.symbols[0].address, itcm.symbols[0].component],
    [hex(itcmFn.address + 0x10), 'copied'],
  );
  // A name for its own place: one name per place, so set renames it there.
  const renamed = await w.ok('nds_symbols', { rom, action: 'set', address: 'main_tail', name: 'main_end' });
  assert.equal(renamed.changes.replaced, 1);
  assert.equal(renamed.symbols[0].address, hex(main.address + 12));
  const mine = async () =>
    (await w.ok('nds_symbols', { rom, action: 'list', contains: 'main_', limit: 1000 })).symbols
      .map((s: Symbol) => s.name)
      .filter((n: string) => ['main_body', 'main_tail', 'main_end'].includes(n));
  assert.deepEqual(await mine(), ['main_body', 'main_end']);
  // remove by name: the place the name names.
  const removed = await w.ok('nds_symbols', { rom, action: 'remove', address: 'main_end' });
  assert.equal(removed.changes.removed, 1);
  assert.deepEqual(await mine(), ['main_body']);
});

test('nds_symbols refuses an unknown name with similar ones, and changes nothing', async () => {
  const before = (await w.ok('nds_symbols', { rom, action: 'list', limit: 1 })).total;
  const e = await w.fails('nds_symbols', { rom, action: 'set', address: 'mian+4', name: 'x' }, 'not-found');
  assert.match(e.message, /no name "mian" on arm9/);
  const near = await w.fails(
    'nds_symbols',
    { rom, action: 'set', address: 'main_bod', name: 'x' },
    'not-found',
  );
  assert.ok(
    ((near.details?.candidates ?? []) as string[]).includes('main_body'),
    JSON.stringify(near.details),
  );
  await w.fails('nds_symbols', { rom, action: 'remove', address: 'no_such_name' }, 'not-found');
  // Other processor: the name is arm9's.
  const other = await w.fails(
    'nds_symbols',
    { rom, action: 'set', processor: 'arm7', address: 'main', name: 'x' },
    'not-found',
  );
  assert.match(other.message, /it names arm9 .*give processor arm9/);
  assert.equal((await w.ok('nds_symbols', { rom, action: 'list', limit: 1 })).total, before);
});

test('a name of an overlay places its alias in that overlay, where overlays overlap', async () => {
  const o = 'roms/ovl.nds';
  const s = ovl.symbols;
  assert.equal(s.aHelper, s.bWorker, 'the kit overlays overlap at one address');
  await w.ok('nds_symbols', {
    rom: o,
    action: 'set',
    address: s.aHelper,
    overlayId: ovl.ids.a,
    name: 'a_helper',
  });
  await w.ok('nds_symbols', {
    rom: o,
    action: 'set',
    address: s.bWorker,
    overlayId: ovl.ids.b,
    name: 'b_worker',
  });
  // A number there needs overlayId: two overlays hold it.
  const plain = await w.call('nds_symbols', { rom: o, action: 'set', address: s.aHelper + 4, name: 'x' });
  assert.equal(plain.isError, true);
  // By name: the name's own overlay.
  const a = await w.call('nds_symbols', { rom: o, action: 'set', address: 'a_helper+4', name: 'a_inner' });
  assert.notEqual(a.isError, true, a.content[0]?.text);
  assert.deepEqual(
    [a.structuredContent.symbols[0].address, a.structuredContent.symbols[0].overlayId],
    [hex(s.aHelper + 4), ovl.ids.a],
  );
  assert.match(
    a.content[0]!.text,
    new RegExp(`^names: address a_helper\\+4 = arm9 ${hex(s.aHelper + 4)} \\(overlay ${ovl.ids.a}\\)`),
  );
  const b = await w.ok('nds_symbols', { rom: o, action: 'set', address: 'b_worker+4', name: 'b_inner' });
  assert.deepEqual([b.symbols[0].address, b.symbols[0].overlayId], [hex(s.bWorker + 4), ovl.ids.b]);
  // overlayId picks among a name's places: a name outside that overlay is refused, never moved.
  const pinned = await w.fails(
    'nds_symbols',
    { rom: o, action: 'set', address: 'a_helper+8', overlayId: ovl.ids.b, name: 'x' },
    'invalid-argument',
  );
  assert.match(pinned.message, /"a_helper" names 1 places on arm9 .*\(overlay 0\)/);
  // remove by name: only that overlay's.
  await w.ok('nds_symbols', { rom: o, action: 'remove', address: 'a_inner' });
  const left = await w.ok('nds_symbols', { rom: o, action: 'list', contains: '_inner' });
  assert.deepEqual(
    left.symbols.map((x: Symbol) => [x.name, x.overlayId]),
    [['b_inner', ovl.ids.b]],
  );
});

test('nds_signatures accept takes the proposals to store by name and name+offset', async () => {
  // The same program padded (another SHA-256, so no names yet): the set from the program's own ELF
  // proposes its functions.
  await writeFile(join(root, 'roms/bare.nds'), Buffer.concat([programRomBytes(), Buffer.alloc(0x200, 0xff)]));
  const bare = 'roms/bare.nds';
  await w.ok('nds_signatures', { action: 'build', set: 'own', files: ['program.elf'] });
  const applied: any = await w.ok('nds_signatures', { action: 'apply', set: 'own', rom: bare, limit: 500 });
  const strong = applied.applied.proposals.filter((p: { tier: string }) => p.tier === 'strong');
  assert.ok(strong.length >= 3, `${strong.length} strong proposals`);
  const [p1, p2] = strong as { address: string; name: string }[];
  const at = (p: { address: string }) => Number.parseInt(p.address.slice(2), 16);
  // The user named two places: one proposal's own, and a place 8 bytes before another.
  await w.ok('nds_symbols', { rom: bare, action: 'set', address: p1!.address, name: 'first_pick' });
  await w.ok('nds_symbols', { rom: bare, action: 'set', address: hex(at(p2!) - 8), name: 'before_second' });
  const r = await w.call('nds_signatures', {
    action: 'accept',
    set: 'own',
    rom: bare,
    addresses: ['first_pick', 'before_second+8'],
  });
  assert.notEqual(r.isError, true, r.content[0]?.text);
  const accepted = r.structuredContent.accepted;
  // Exactly the two named proposals: the second stored, the first kept as the user named it.
  assert.equal(accepted.offered, 2);
  assert.equal(accepted.added, 1);
  assert.deepEqual(
    accepted.conflicts.map((c: { address: string }) => c.address),
    [p1!.address],
  );
  assert.match(
    r.content[0]!.text,
    new RegExp(
      `^names: addresses\\.0 first_pick = arm9 ${p1!.address}; addresses\\.1 before_second\\+8 = arm9 ${p2!.address}`,
    ),
  );
  const stored = await w.ok('nds_symbols', { rom: bare, action: 'list', contains: p2!.name });
  assert.ok(
    stored.symbols.some(
      (s: Symbol & { source: string }) => s.address === p2!.address && s.source === 'signature',
    ),
    JSON.stringify(stored.symbols),
  );
  // An unknown name: refused with similar names, nothing stored.
  const e = await w.fails(
    'nds_signatures',
    { action: 'accept', set: 'own', rom: bare, addresses: ['first_pik'] },
    'not-found',
  );
  assert.match(e.message, /similar: first_pick/);
  // A name needs the ROM whose store holds it.
  const noRom = await w.call('nds_signatures', { action: 'accept', set: 'own', addresses: ['first_pick'] });
  assert.equal(noRom.isError, true);
});
