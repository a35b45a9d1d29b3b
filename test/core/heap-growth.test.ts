// The program-map service fixes V8's heap growing factor before its first build (src/core/heap-growth.ts). Measured in
// fresh processes on a workload shaped like a map build (a live set that keeps growing while far more
// short-lived objects are made): with the limit the heap's peak is well below V8's own choice.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { HEAP_GROWING_PERCENT, ownHeapGrowth } from '../../src/core/heap-growth.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { kitRomBytes } from '../kit/program-rom.js';

const MODULE = pathToFileURL(join(import.meta.dirname, '../../src/core/heap-growth.ts')).href;

/** Runs the workload in a fresh process; `limit` calls limitHeapGrowth first. Peak heap in MiB. */
function peakHeap(
  limit: boolean,
  flags: string[] = [],
): { peakMiB: number; set: boolean | null; again: boolean | null } {
  const script = `
    const { limitHeapGrowth } = await import(${JSON.stringify(MODULE)});
    const set = ${limit} ? limitHeapGrowth() : null;
    const again = ${limit} ? limitHeapGrowth() : null;
    const keep = []; let roll = []; let peak = 0;
    for (let i = 0; i < 800; i++) {
      for (let j = 0; j < 300; j++) keep.push({ a: j, b: [j, i], s: 'k' + i });
      for (let g = 0; g < 6000; g++) { roll.push({ g, c: [g, i] }); if (roll.length > 50000) roll = []; }
      if (i % 16 === 0) peak = Math.max(peak, process.memoryUsage().heapTotal);
    }
    process.stdout.write(JSON.stringify({ peakMiB: peak / 1048576, set, again, kept: keep.length }));`;
  const r = spawnSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
    timeout: 120_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { peakMiB: number; set: boolean | null; again: boolean | null };
}

test('a process given its own heap-growing percent keeps it', () => {
  assert.equal(ownHeapGrowth([], undefined), false);
  assert.equal(ownHeapGrowth(['--max-old-space-size=512'], '--enable-source-maps'), false);
  assert.equal(ownHeapGrowth(['--heap-growing-percent=50'], undefined), true);
  assert.equal(ownHeapGrowth([], '--enable-source-maps --heap_growing_percent=30'), true);
  assert.ok(HEAP_GROWING_PERCENT > 0 && HEAP_GROWING_PERCENT <= 50);
});

test('with the growth limited, a growing heap peaks well below what V8 picks alone', () => {
  const own = peakHeap(false);
  const limited = peakHeap(true);
  assert.equal(limited.set, true);
  // Once per process: a later call changes nothing.
  assert.equal(limited.again, false);
  assert.ok(
    limited.peakMiB <= own.peakMiB * 0.85,
    `peak heap ${limited.peakMiB.toFixed(1)} MiB limited, ${own.peakMiB.toFixed(1)} MiB not`,
  );
  // Started with a value of its own, the process keeps it: nothing is set.
  assert.equal(peakHeap(true, ['--heap-growing-percent=300']).set, false);
});

test('a map build leaves the growth limited; importing the map service alone does not', async () => {
  const root = await makeWorkspace();
  writeFileSync(join(root, 'program.nds'), kitRomBytes('arm9-program', 'arm7-program'));
  const src = (p: string) => JSON.stringify(pathToFileURL(join(import.meta.dirname, '../..', p)).href);
  const run = (build: boolean) => {
    const script = `
      const { getProgramMaps } = await import(${src('src/analysis/program-map/service.ts')});
      const { EVIDENCE_IDS } = await import(${src('src/analysis/evidence/index.ts')});
      const { loadConfig } = await import(${src('src/config/config.ts')});
      const { getRomStore } = await import(${src('src/roms/rom-store.ts')});
      const { Services } = await import(${src('src/services.ts')});
      const { Workspace } = await import(${src('src/workspace/workspace.ts')});
      const { limitHeapGrowth } = await import(${JSON.stringify(MODULE)});
      let functions = 0;
      if (${build}) {
        const root = ${JSON.stringify(root)};
        const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root, RE_MCP_MAP_CACHE: 'off' }), new Workspace(root));
        const store = getRomStore(services);
        functions = await store.withRom('program.nds', async (h) => (await getProgramMaps(services).map(store, h, {
          processor: 'arm9', evidence: EVIDENCE_IDS, maxCodeBytes: 1 << 24, maxSeconds: 120,
        })).functions.length);
      }
      process.stdout.write(JSON.stringify({ functions, setNow: limitHeapGrowth() }));`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '' },
      timeout: 120_000,
    });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { functions: number; setNow: boolean };
  };
  const built = run(true);
  assert.ok(built.functions > 500, `the build found ${built.functions} functions`);
  assert.equal(built.setNow, false, 'the build set the limit already');
  assert.equal(run(false).setNow, true, 'importing the service sets nothing');
});
