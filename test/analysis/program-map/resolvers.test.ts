// The walk's resolvers (src/analysis/program-map/resolvers/): the registry's shape, and that each
// resolver carries its idiom: on the idioms fixture (test/kit/arm/src/arm9-idioms.s, one labelled case
// per idiom) or the kit's interpreter program (arm9-interp: ITCM code branching into main RAM), a walk
// without any one resolver classifies the program differently from the full walk.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EVIDENCE_CLASSES } from '../../../src/analysis/evidence/index.js';
import { type BuiltMap, buildProgramMap } from '../../../src/analysis/program-map/build.js';
import { loadComponents } from '../../../src/analysis/program-map/components.js';
import { stubRegister, veneerLanding } from '../../../src/analysis/program-map/idioms.js';
import { RESOLVERS } from '../../../src/analysis/program-map/resolvers/index.js';
import { IdiomMemo } from '../../../src/analysis/program-map/resolvers/memo.js';
import type { Resolver } from '../../../src/analysis/program-map/resolvers/resolver.js';
import { getProgramMaps } from '../../../src/analysis/program-map/service.js';
import { loadDecoder } from '../../../src/arm/decoder.js';
import { loadConfig } from '../../../src/config/config.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { idiomsRomBytes, kitRomBytes } from '../../kit/program-rom.js';

const root = await makeWorkspace('re-mcp-resolvers-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(join(root, 'roms/idioms.nds'), idiomsRomBytes());
await writeFile(join(root, 'roms/interp.nds'), kitRomBytes('arm9-interp', 'arm7-program'));
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
const store = getRomStore(services);

/** A digest of what a walk established: every byte's class and tier, block, call, reference and entry. */
function digest(built: BuiltMap): string {
  const h = createHash('sha256');
  const w = built.walker;
  for (const c of w.set.list) h.update(c.cls).update(c.tier);
  for (let i = 0; i < w.blocks.length; i++) {
    const b = w.blocks.get(i);
    h.update(`${b.start}:${b.end}:${b.term}:${w.edges.targets(b.edges).join(',')};`);
  }
  for (let i = 0; i < w.calls.length; i++) {
    const c = w.calls.get(i);
    h.update(`${c.at}:${c.kind}:${c.target}:${c.via}:${c.continuation};`);
  }
  for (let i = 0; i < w.refs.size; i++) h.update(JSON.stringify(w.refs.get(i)));
  for (const e of w.entries.values()) h.update(`${e.key}:${e.tier}:${e.state}:${e.orphan};`);
  return h.digest('hex');
}

async function walk(resolvers: readonly Resolver[], rom = 'idioms'): Promise<string> {
  return store.withRom(`roms/${rom}.nds`, async (handle) => {
    const found = await getProgramMaps(services).copied(store, handle, 'arm9');
    const set = await loadComponents(store, handle, 'arm9', found.copies, undefined, found.dataCopies);
    const built = await buildProgramMap({
      set,
      processor: 'arm9',
      entry: handle.model.arm9.entryAddress,
      classes: EVIDENCE_CLASSES,
      resolvers,
      codeBytes: 1 << 22,
      deadline: Date.now() + 120_000,
    });
    return digest(built);
  });
}

test('every resolver has its own id, a description and at least one hook', () => {
  assert.equal(new Set(RESOLVERS.map((r) => r.id)).size, RESOLVERS.length);
  for (const r of RESOLVERS) {
    assert.ok(r.description.length > 10, r.id);
    assert.ok(r.branch || r.call || r.tailBranch || r.continuation, `${r.id} has a hook`);
  }
});

test('the walk is the same twice with every resolver, and differs without any one of them', async () => {
  const full = await walk(RESOLVERS);
  const interp = await walk(RESOLVERS, 'interp');
  assert.equal(await walk(RESOLVERS), full, 'a walk is deterministic');
  for (const r of RESOLVERS) {
    const rest = RESOLVERS.filter((x) => x !== r);
    if ((await walk(rest)) !== full) continue;
    assert.notEqual(await walk(rest, 'interp'), interp, `the idioms fixture or arm9-interp needs ${r.id}`);
  }
});

test('the idiom memo answers as the idioms do, once per routine', async () => {
  await loadDecoder();
  await store.withRom('roms/idioms.nds', async (handle) => {
    const found = await getProgramMaps(services).copied(store, handle, 'arm9');
    const set = await loadComponents(store, handle, 'arm9', found.copies, undefined, found.dataCopies);
    const memo = new IdiomMemo(set, 'arm9');
    let stubs = 0;
    let landings = 0;
    for (const comp of set.list) {
      for (let address = comp.start; address + 4 <= comp.end; address += 2) {
        for (const mode of address % 4 === 0 ? (['thumb', 'arm'] as const) : (['thumb'] as const)) {
          const reg = memo.stubRegister(comp, address, mode);
          assert.equal(reg, stubRegister(comp, address, mode, 'arm9'), `stub at ${address.toString(16)}`);
          assert.equal(memo.stubRegister(comp, address, mode), reg);
          const landing = memo.veneerLanding(comp, address, mode);
          assert.deepEqual(landing, veneerLanding(set, comp, address, mode, 'arm9'));
          // Asked again: the kept answer itself.
          assert.equal(memo.veneerLanding(comp, address, mode), landing);
          if (reg !== null) stubs++;
          if (landing !== null) landings++;
        }
      }
    }
    // The fixture has a `bx rN` stub and mode-switch veneers of each shape.
    assert.ok(stubs > 0, 'a stub was found');
    assert.ok(landings > 0, 'a veneer was found');
  });
});
