// Memory scans against a real headless RetroArch over MCP: the test ROMs' frame counters are found by
// "increased" after frame advances (mGBA: memory map, EWRAM; Nestopia: achievements RAM).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Harness, startServer } from '../../kit/mcp-harness.js';
import { launchRetroArch } from '../../kit/retroarch/launch.js';
import { GBA, GBA_ROM, NES, NES_ROM } from '../../kit/retroarch/roms.js';

type Teardown = { after(fn: () => Promise<void>): void };
type Scan = {
  scanId: string;
  candidates: number;
  space: string | null;
  bytesRead: number;
  page: Array<{ address: string; value: number; previous: number }>;
  more: boolean;
};
const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

async function setup(t: Teardown, core: 'mgba' | 'nestopia'): Promise<Harness> {
  const ra = await launchRetroArch({ core, rom: core === 'mgba' ? GBA_ROM : NES_ROM });
  t.after(() => ra.stop());
  const mcp = await startServer({
    env: { RE_MCP_PROFILE: 'retroarch', RETROARCH_PORT: String(ra.port), RETROARCH_TIMEOUT_MS: '1000' },
  });
  t.after(() => mcp.close());
  await mcp.ok('retroarch_set_paused', { paused: true });
  return mcp;
}

async function findCounter(mcp: Harness, start: Record<string, unknown>, steps: number): Promise<Scan> {
  const s = await mcp.ok<Scan>('retroarch_memory_scan_start', start);
  let last: Scan = s;
  for (let i = 0; i < steps; i++) {
    await mcp.ok('retroarch_frame_advance', { frames: 2 });
    last = await mcp.ok<Scan>('retroarch_memory_scan_narrow', { scanId: s.scanId, comparison: 'increased' });
  }
  // Nothing ran since: "unchanged" keeps every survivor.
  const same = await mcp.ok<Scan>('retroarch_memory_scan_narrow', {
    scanId: s.scanId,
    comparison: 'unchanged',
  });
  assert.equal(same.candidates, last.candidates);
  return same;
}

test('mGBA: the frame counter is found in EWRAM by "increased"; refusals', async (t) => {
  const mcp = await setup(t, 'mgba');
  const found = await findCounter(mcp, { address: '0x02000000', length: 256 * 1024, size: 4 }, 4);
  assert.equal(found.space, 'memory');
  assert.ok(
    found.page.some((c) => c.address === hex(GBA.frameCounter)),
    `frame counter missing: ${JSON.stringify(found.page)}`,
  );
  assert.ok(found.candidates <= 4, `${found.candidates} candidates left`);
  const c = found.page.find((x) => x.address === hex(GBA.frameCounter))!;
  // Paged results agree with the narrow step.
  const all = await mcp.ok<Scan>('retroarch_memory_scan_results', { scanId: found.scanId, limit: 500 });
  assert.deepEqual(all.page, found.page);
  assert.equal(all.more, false);
  // equal to the value just read.
  const eq = await mcp.ok<Scan>('retroarch_memory_scan_narrow', {
    scanId: found.scanId,
    comparison: 'equal',
    value: c.value,
  });
  assert.ok(eq.page.some((x) => x.address === hex(GBA.frameCounter)));
  // The value in the "0x…" form every address argument takes: the same step.
  const eqHex = await mcp.ok<Scan>('retroarch_memory_scan_narrow', {
    scanId: found.scanId,
    comparison: 'equal',
    value: `0x${c.value.toString(16)}`,
  });
  assert.deepEqual(eqHex.page, eq.page);
  assert.equal(
    (
      await mcp.fail('retroarch_memory_scan_narrow', {
        scanId: found.scanId,
        comparison: 'equal',
        value: '0xZZ',
      })
    ).code,
    'invalid-argument',
  );

  // Refusals: unknown scan, a value-less "equal", a value out of range, a region RetroArch cuts short.
  assert.equal(
    (await mcp.fail('retroarch_memory_scan_results', { scanId: 'retroarch-scan99' })).code,
    'not-found',
  );
  assert.equal(
    (await mcp.fail('retroarch_memory_scan_narrow', { scanId: found.scanId, comparison: 'equal' })).code,
    'invalid-argument',
  );
  assert.equal(
    (await mcp.fail('retroarch_memory_scan_narrow', { scanId: found.scanId, comparison: 'less', value: -1 }))
      .code,
    'invalid-argument',
  );
  const cut = await mcp.fail('retroarch_memory_scan_start', {
    address: hex(GBA.ewramEnd - 4096),
    length: 8192,
    size: 4,
  });
  assert.equal(cut.code, 'invalid-argument');
  assert.equal(cut.details?.readable, 4096);
});

test('Nestopia: the frame counter is found in achievements RAM by "increased"', async (t) => {
  const mcp = await setup(t, 'nestopia');
  const found = await findCounter(mcp, { space: 'ram', address: 0, length: NES.ramSize, size: 2 }, 4);
  assert.equal(found.space, 'ram');
  assert.ok(
    found.page.some((c) => c.address === hex(NES.frameCounter)),
    `frame counter missing: ${JSON.stringify(found.page)}`,
  );
  // Without a memory map the "memory" space is refused as such.
  assert.equal(
    (await mcp.fail('retroarch_memory_scan_start', { address: 0, length: 16 })).code,
    'no-memory-map',
  );
});
