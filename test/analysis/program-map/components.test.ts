// The component set takes only components below 2^31 (their addresses are then exact small integers
// throughout the walk); anything above is refused with a typed error, never wrapped to a negative.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { EVIDENCE_IDS } from '../../../src/analysis/evidence/index.js';
import { ADDRESS_LIMIT, ComponentSet } from '../../../src/analysis/program-map/components.js';
import { getProgramMaps } from '../../../src/analysis/program-map/service.js';
import { loadConfig } from '../../../src/config/config.js';
import { ReMcpError } from '../../../src/core/errors.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { loadArmProgram } from '../../kit/arm/index.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { buildRom } from '../../kit/rom-builder.js';

const le = (...words: number[]) =>
  new Uint8Array(words.flatMap((w) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24]));

const component = (start: number, size: number, extent = size) => ({
  kind: 'overlay' as const,
  overlayId: 1,
  autoloadIndex: null,
  copiedIndex: null,
  tableIndex: 0,
  start,
  extentEnd: start + extent,
  bytes: new Uint8Array(size),
  romOffset: null,
  derived: false,
  copied: null,
  staticInit: null,
});

test('a component ending just below the limit is taken with its addresses unchanged', () => {
  const set = new ComponentSet('arm9');
  const c = set.add(component(0x7fffff00, 0xfc, 0xff));
  assert.equal(c.start, 0x7fffff00);
  assert.equal(c.end, 0x7ffffffc);
  assert.equal(c.extentEnd, ADDRESS_LIMIT - 1);
});

for (const [what, start, size, extent] of [
  ['starts above 2^31', 0xf0000000, 0x100, 0x100],
  ['runs past 2^31', 0x7fffff00, 0x200, 0x200],
  ['ends exactly at 2^31', 0x7fffff00, 0x100, 0x100],
  ['has its BSS past 2^31', 0x7ffff000, 0x100, 0x2000],
  ['starts below zero', -4, 0x100, 0x100],
] as const) {
  test(`a component that ${what} is refused as unsupported`, () => {
    const set = new ComponentSet('arm9');
    assert.throws(
      () => set.add(component(start, size, extent)),
      (e: unknown) => e instanceof ReMcpError && e.code === 'unsupported' && /address space/.test(e.message),
    );
    assert.equal(set.list.length, 0);
  });
}

test('a ROM whose overlay runs above 2^31 maps, the overlay unavailable and the answer not definitive', async () => {
  const root = await makeWorkspace('re-mcp-map-high-');
  try {
    await mkdir(join(root, 'roms'));
    const arm7 = loadArmProgram('arm7-idle');
    // Main: B . (a function that never returns); overlay 0: BX LR, at 0x90000000.
    await writeFile(
      join(root, 'roms/high.nds'),
      buildRom({
        arm9: { code: le(0xeafffffe), ramAddress: 0x02000000, entry: 0x02000000 },
        arm7: { code: arm7.bytes, ramAddress: arm7.loadAddress, entry: arm7.entry },
        arm9Overlays: [{ id: 0, ramAddress: 0x90000000, data: le(0xe12fff1e) }],
      }).bytes,
    );
    const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
    const store = getRomStore(services);
    const map = await store.withRom('roms/high.nds', (h) =>
      getProgramMaps(services).map(store, h, {
        processor: 'arm9',
        evidence: EVIDENCE_IDS,
        maxCodeBytes: 1 << 20,
        maxSeconds: 60,
      }),
    );
    assert.deepEqual(
      map.set.list.map((c) => c.kind),
      ['main'],
    );
    assert.equal(map.set.unavailable.length, 1);
    assert.equal(map.set.unavailable[0]!.start, 0x90000000);
    assert.match(map.set.unavailable[0]!.reason, /^unsupported: .*address space/);
    const coverage = map.coverage('heuristic');
    assert.equal(coverage.definitive, false);
    assert.ok(coverage.notDefinitive.some((why) => /could not be read/.test(why)));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
