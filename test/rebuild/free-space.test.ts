// nds_free_space on the kit's compiled program with an overlay that has a BSS: the NitroFS append is
// offered with its room, the overlay's BSS as the rebuild's rule but not proven, and every padding run
// offered is, byte for byte, alignment padding the whole-program map classified at the proven tier
// with no reference landing in it; zero runs the sweep found are never offered.
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { EVIDENCE_IDS } from '../../src/analysis/evidence/index.js';
import { getProgramMaps } from '../../src/analysis/program-map/service.js';
import { ByteClass, TIER_RANK } from '../../src/analysis/program-map/types.js';
import { loadConfig } from '../../src/config/config.js';
import { invokeTool } from '../../src/mcp/invoke.js';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { getRomStore } from '../../src/roms/rom-store.js';
import { Services } from '../../src/services.js';
import { rebuildTools } from '../../src/tools/rebuild/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { loadProgramTruth } from '../kit/arm/index.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { buildRom } from '../kit/rom-builder.js';

const root = await makeWorkspace('re-mcp-free-space-');
after(() => rm(root, { recursive: true, force: true }));
await mkdir(join(root, 'roms'));
const a9 = loadProgramTruth('arm9-program');
const a7 = loadProgramTruth('arm7-program');
const rom = buildRom({
  arm9: { code: a9.bytes, ramAddress: a9.loadAddress, entry: a9.loadAddress },
  arm7: { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.loadAddress },
  arm9Overlays: [{ id: 0, ramAddress: 0x02300000, data: new Uint8Array(0x100).fill(0x11), bssSize: 0x400 }],
}).bytes;
await writeFile(join(root, 'roms/p.nds'), rom);
const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));

type Candidate = {
  kind: string;
  bytes: number;
  fits: boolean;
  proven: boolean;
  overlayId: number | null;
  start: string | null;
  end: string | null;
};

async function freeSpace(args: Record<string, unknown>) {
  const tool = (rebuildTools as unknown as ToolDefinition[]).find((t) => t.name === 'nds_free_space')!;
  const r = (await invokeTool(tool, { rom: 'roms/p.nds', processor: 'arm9', ...args }, services, {
    signal: new AbortController().signal,
    log: () => {},
  })) as unknown as { isError?: boolean; structuredContent: { candidates: Candidate[]; needed: number } };
  assert.ok(!r.isError, JSON.stringify(r.structuredContent));
  return r.structuredContent;
}

test('the NitroFS append, the overlay BSS (not proven) and proven padding, each as the map proves it', async () => {
  const r = await freeSpace({ bytes: 2, maxCandidates: 256 });
  const nitro = r.candidates.find((c) => c.kind === 'nitrofs-add-file')!;
  assert.equal(nitro.bytes, 512 * 1024 * 1024 - rom.length);
  assert.equal(nitro.proven, true);
  const bss = r.candidates.find((c) => c.kind === 'overlay-bss')!;
  assert.deepEqual(
    [bss.overlayId, bss.bytes, bss.proven, bss.start, bss.end],
    [0, 0x400, false, '0x02300100', '0x02300500'],
  );
  const padding = r.candidates.filter((c) => c.kind === 'proven-padding');
  assert.ok(padding.length > 0, 'the compiled program has alignment padding between functions');
  // Against the map itself: every offered byte is proven padding, and no reference lands in it.
  const store = getRomStore(services);
  const map = await store.withRom('roms/p.nds', (h) =>
    getProgramMaps(services).map(store, h, {
      processor: 'arm9',
      evidence: [...EVIDENCE_IDS],
      maxCodeBytes: 16 << 20,
      maxSeconds: 120,
    }),
  );
  for (const c of padding) {
    const start = Number(c.start);
    const comp = map.set.list.find((k) => start >= k.start && start < k.end)!;
    for (let a = start; a < Number(c.end); a++) {
      assert.equal(comp.cls[a - comp.start], ByteClass.padding, `0x${a.toString(16)}`);
      assert.ok(comp.tier[a - comp.start]! <= TIER_RANK.proven);
      assert.equal(map.built.walker.refs.to_(a).length, 0);
    }
  }
  // Zero runs the sweep classified (heuristic) are in the map but never offered.
  const heuristicZeros = map.set.list.some((k) =>
    k.cls.some((cls, o) => cls === ByteClass.padding && k.tier[o]! > TIER_RANK.proven),
  );
  if (heuristicZeros)
    for (const c of padding) {
      const start = Number(c.start);
      const comp = map.set.list.find((k) => start >= k.start && start < k.end)!;
      assert.ok(comp.tier[start - comp.start]! <= TIER_RANK.proven);
    }
});

test('what fits comes first; a need larger than any proven run is met only by the NitroFS append', async () => {
  const big = await freeSpace({ bytes: 1 << 20 });
  assert.equal(big.candidates[0]?.kind, 'nitrofs-add-file');
  assert.deepEqual(
    big.candidates.filter((c) => c.fits).map((c) => c.kind),
    ['nitrofs-add-file'],
  );
  const small = await freeSpace({ bytes: 2, maxCandidates: 3 });
  assert.equal(small.candidates.length, 3);
  assert.ok(small.candidates.every((c) => c.fits));
});
