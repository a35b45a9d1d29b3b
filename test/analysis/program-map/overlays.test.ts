// Overlays in the whole-program map: two overlays sharing a runtime range are two components, their
// functions distinct identities at one address; a call from an overlay into its own range names its
// own function; a call into a range several overlays share, from code that belongs to none of them,
// is ambiguous and counted as a coverage gap, never guessed.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EVIDENCE_IDS } from '../../../src/analysis/evidence/index.js';
import { getProgramMaps } from '../../../src/analysis/program-map/service.js';
import { loadConfig } from '../../../src/config/config.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { loadArmProgram } from '../../kit/arm/index.js';
import { writeOverlayTargetRom } from '../../kit/desmume/index.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';
import { buildRom } from '../../kit/rom-builder.js';

const root = await makeWorkspace('re-mcp-map-overlays-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
const target = writeOverlayTargetRom(join(root, 'roms/overlays.nds'));
const s = target.symbols;
// Main calls straight into the shared range [0x02200080, 0x02200100): BL 0x02200080; B .
const le = (...words: number[]) =>
  new Uint8Array(words.flatMap((w) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24]));
const arm7 = loadArmProgram('arm7-idle');
await writeFile(
  join(root, 'roms/ambiguous.nds'),
  buildRom({
    arm9: { code: le(0xeb08001e, 0xeafffffe), ramAddress: 0x02000000, entry: 0x02000000 },
    arm7: { code: arm7.bytes, ramAddress: arm7.loadAddress, entry: arm7.entry },
    arm9Overlays: [
      { id: 0, ramAddress: s.aEntry, data: target.overlays.a },
      { id: 1, ramAddress: s.bWorker, data: target.overlays.b },
    ],
  }).bytes,
);
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
const store = getRomStore(services);
const mapOf = (rom: string) =>
  store.withRom(rom, (h) =>
    getProgramMaps(services).map(store, h, {
      processor: 'arm9',
      evidence: EVIDENCE_IDS,
      maxCodeBytes: 1 << 20,
      maxSeconds: 60,
    }),
  );

test('functions of two overlays at one address are two identities, each called from its own overlay', async () => {
  assert.equal(s.aHelper, s.bWorker);
  const map = await mapOf('roms/overlays.nds');
  const shared = map.functions.filter((f) => f.address === s.aHelper);
  assert.deepEqual(shared.map((f) => [f.component.kind, f.component.overlayId]).sort(), [
    ['overlay', 0],
    ['overlay', 1],
  ]);
  assert.notEqual(shared[0]!.key, shared[1]!.key);
  // Each entry calls the function of its own overlay: the call records name the caller's component.
  const w = map.built.walker;
  for (const [entry, id] of [
    [s.aEntry, 0],
    [s.bEntry, 1],
  ] as const) {
    const call = [...w.calls].find(
      (c) =>
        c.target === s.aHelper && w.component(c.comp).overlayId === id && c.at > entry && c.at < entry + 16,
    );
    assert.ok(call, `overlay ${id}'s call`);
    assert.equal(w.component(call.targetComp!).overlayId, id);
    assert.equal(call.unresolved, null);
  }
  // The references to the shared address say which overlay each comes from.
  const from = map.xrefs(s.aHelper, 'proven').filter((x) => x.kind === 'direct-call');
  assert.deepEqual(from.map((x) => x.component.overlayId).sort(), [0, 1]);
});

test('a call into a range several overlays share is ambiguous: counted, never resolved', async () => {
  const map = await mapOf('roms/ambiguous.nds');
  const call = [...map.built.walker.calls].find((c) => c.at === 0x02000000)!;
  assert.ok(call);
  assert.equal(call.unresolved, 'ambiguous-code-source');
  assert.equal(call.targetComp, null);
  // No function entry came from that call.
  for (const f of map.functions)
    assert.ok(!f.evidence.some((e) => e.class === 'direct-call' && e.from === 0x02000000), f.key);
  const c = map.coverage('heuristic');
  assert.equal(c.unresolved.ambiguous, 1);
  assert.equal(c.definitive, false);
  assert.ok(
    c.notDefinitive.some((n) => n.includes('several overlays')),
    c.notDefinitive.join('; '),
  );
  // Its reference is still listed (the site is real; only its callee is unknown).
  assert.ok(map.xrefs(0x02200080, 'proven').some((x) => x.from === 0x02000000));
});
