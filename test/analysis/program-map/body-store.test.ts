// The function bodies as sections of the map's file (body-store.ts): what functionBodies made comes
// back exactly (blocks, tail calls, second entries, the owners of every block) on a kit program with
// tail calls and fall-into entries; each kind of damage is refused with its reason; and no column,
// however hostile, makes reading them throw.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EVIDENCE_IDS } from '../../../src/analysis/evidence/index.js';
import { bodiesFromSections, bodySections } from '../../../src/analysis/program-map/body-store.js';
import type { BuiltMap } from '../../../src/analysis/program-map/build.js';
import type { SectionArray } from '../../../src/analysis/program-map/columns.js';
import { getProgramMaps } from '../../../src/analysis/program-map/service.js';
import { loadConfig } from '../../../src/config/config.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { kitRomBytes } from '../../kit/program-rom.js';

const root = await makeWorkspace('re-mcp-body-store-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
await writeFile(join(root, 'roms/interp.nds'), kitRomBytes('arm9-interp', 'arm7-program'));
const services = new Services(
  loadConfig({ RE_MCP_WORKSPACE_ROOT: root, RE_MCP_MAP_CACHE: 'off' }),
  new Workspace(root),
);
const store = getRomStore(services);
const built: BuiltMap = await store.withRom('roms/interp.nds', async (rom) => {
  const map = await getProgramMaps(services).map(store, rom, {
    processor: 'arm9',
    evidence: EVIDENCE_IDS,
    maxCodeBytes: 64 << 20,
    maxSeconds: 600,
  });
  return map.built;
});
const columns = () => {
  const cols = bodySections(built.bodies, built.walker.entries);
  return new Map<string, SectionArray>(Object.entries(cols).map(([k, v]) => [`body.${k}`, v.slice()]));
};

/** Everything a body and the owners say, as one comparable value. */
function facts(bodies: BuiltMap['bodies'], owners: BuiltMap['owners']) {
  const out: unknown[] = [];
  for (const [key, b] of bodies)
    out.push([key, b.entry.key, b.blocks, b.blockCount, b.tailCalls, b.secondaryOf, b.holds(b.blocks[0]!)]);
  for (let id = 0; id < built.walker.blocks.length; id++) out.push(owners.of(id));
  return out;
}

test('the bodies come back exactly as functionBodies made them', async () => {
  const back = await bodiesFromSections(columns(), built.walker);
  assert.notEqual(typeof back, 'string', String(back));
  if (typeof back === 'string') return;
  assert.deepEqual(facts(back.bodies, back.owners), facts(built.bodies, built.owners));
  // What the kit program is there for: tail calls and second entries are in the round trip.
  const all = [...built.bodies.values()];
  assert.ok(all.some((b) => b.tailCalls.length > 0));
  assert.ok(all.some((b) => b.secondaryOf !== null));
  assert.ok(all.some((b) => b.blockCount > 100));
});

test('each kind of damage is refused with its reason', async () => {
  const cases: [string, (s: Map<string, SectionArray>) => void, RegExp][] = [
    ['a missing column', (s) => s.delete('body.tails'), /columns missing/],
    [
      'a column of another type',
      (s) => s.set('body.count', new Uint32Array(s.get('body.count')!)),
      /missing/,
    ],
    ['a short column', (s) => s.set('body.count', s.get('body.count')!.slice(1)), /different lengths/],
    ['an entry out of range', (s) => (s.get('body.entry')![0] = 1 << 30), /body 0 names no entry/],
    ['an entry twice', (s) => (s.get('body.entry')![1] = s.get('body.entry')![0]!), /body 1 .* twice/],
    ['no blocks', (s) => (s.get('body.count')![0] = 0), /body 0 with blocks out of range/],
    ['too many blocks', (s) => (s.get('body.count')![0] = 1 << 30), /body 0 with blocks out of range/],
    ['a block out of range', (s) => (s.get('body.blocks')![0] = -1), /out of range or order/],
    [
      'a run not ascending',
      (s) => {
        const counts = s.get('body.count')!;
        const i = [...counts].findIndex((c) => c > 1);
        let first = 0;
        for (let k = 0; k < i; k++) first += counts[k]!;
        s.get('body.blocks')![first + 1] = s.get('body.blocks')![first]!;
      },
      /out of range or order/,
    ],
    ['a second entry out of range', (s) => (s.get('body.secondary')![0] = -2), /second to no entry/],
    ['a tail call out of range', (s) => (s.get('body.tails')![0] = 1 << 30), /tail-calls no entry/],
    ['tail runs out of range', (s) => (s.get('body.tailStart')![0] = 1), /tail calls out of range/],
    [
      'tail runs out of order',
      (s) => {
        const t = s.get('body.tailStart')!;
        t[1] = t[t.length - 1]! + 5;
      },
      /tail calls out of order|tail-calls no entry/,
    ],
    [
      'blocks left over',
      (s) => {
        const b = s.get('body.blocks')!;
        const longer = new Int32Array(b.length + 1);
        longer.set(b);
        longer[b.length] = b[b.length - 1]!;
        s.set('body.blocks', longer);
      },
      /another length/,
    ],
  ];
  for (const [what, damage, why] of cases) {
    const s = columns();
    damage(s);
    const back = await bodiesFromSections(s, built.walker);
    assert.equal(typeof back, 'string', what);
    assert.match(back as string, why, what);
  }
});

test('fuzz: random words in the body columns never make reading them throw', async () => {
  let seed = 0xb0d1e5;
  const rand = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed;
  };
  const names = ['entry', 'count', 'secondary', 'tailStart', 'tails', 'blocks'];
  const counts = { refused: 0, accepted: 0 };
  for (let i = 0; i < 500; i++) {
    const s = columns();
    for (let k = 1 + (rand() % 4); k > 0; k--) {
      const col = s.get(`body.${names[rand() % names.length]}`)!;
      if (col.length === 0) continue;
      const values = [0, -1, 1, rand() | 0, col[rand() % col.length]!, (col[rand() % col.length]! + 1) | 0];
      col[rand() % col.length] = values[rand() % values.length]!;
    }
    const back = await bodiesFromSections(s, built.walker);
    if (typeof back === 'string') counts.refused++;
    else {
      counts.accepted++;
      // Whatever passes the checks answers without throwing.
      facts(back.bodies, back.owners);
    }
  }
  assert.ok(counts.refused > 0 && counts.accepted > 0, JSON.stringify(counts));
});
