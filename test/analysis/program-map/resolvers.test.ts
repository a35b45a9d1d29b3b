// The walk's resolvers (src/analysis/program-map/resolvers/): the registry's shape, and that each
// resolver carries its idiom: on the idioms fixture (test/kit/arm/src/arm9-idioms.s, one labelled case
// per idiom) a walk without any one resolver classifies the program differently from the full walk.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EVIDENCE_CLASSES } from '../../../src/analysis/evidence/index.js';
import { type BuiltMap, buildProgramMap } from '../../../src/analysis/program-map/build.js';
import { loadComponents } from '../../../src/analysis/program-map/components.js';
import { RESOLVERS } from '../../../src/analysis/program-map/resolvers/index.js';
import type { Resolver } from '../../../src/analysis/program-map/resolvers/resolver.js';
import { loadConfig } from '../../../src/config/config.js';
import { getRomStore } from '../../../src/nds/rom-store.js';
import { Services } from '../../../src/services.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { idiomsRomBytes } from '../../kit/program-rom.js';

const root = await makeWorkspace('re-mcp-resolvers-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(join(root, 'roms/idioms.nds'), idiomsRomBytes());
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

async function walk(resolvers: readonly Resolver[]): Promise<string> {
  return store.withRom('roms/idioms.nds', async (rom) => {
    const set = await loadComponents(store, rom, 'arm9', []);
    const built = await buildProgramMap({
      set,
      processor: 'arm9',
      entry: rom.model.arm9.entryAddress,
      classes: EVIDENCE_CLASSES,
      resolvers,
      codeBytes: 1 << 20,
      deadline: Date.now() + 60_000,
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
  assert.equal(await walk(RESOLVERS), full, 'a walk is deterministic');
  for (const r of RESOLVERS) {
    const without = await walk(RESOLVERS.filter((x) => x !== r));
    assert.notEqual(without, full, `the idioms fixture needs ${r.id}`);
  }
});
