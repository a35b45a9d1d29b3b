// Live-feature figures against the real emulators over MCP stdio: a conditional breakpoint passing N
// hits versus N manual continues (DeSmuME), and memory-scan narrowing of 256 KiB of GBA EWRAM across
// 10 frame-advance steps (RetroArch + mGBA).
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DESMUME_CLI, killDesmumeProcesses, writeDebugTargetRom } from '../test/kit/desmume/index.js';
import { makeWorkspace, startServer } from '../test/kit/mcp-harness.js';
import { launchRetroArch } from '../test/kit/retroarch/launch.js';
import { GBA_ROM } from '../test/kit/retroarch/roms.js';

const N = 30;
const round = (n: number) => Number(n.toFixed(2));

async function conditionalVsManual(): Promise<Record<string, unknown>> {
  if (!existsSync(DESMUME_CLI)) return { skipped: `${DESMUME_CLI} is not installed` };
  const workspace = await makeWorkspace('re-mcp-bench-live-');
  const rom = writeDebugTargetRom(join(workspace, 'debug.nds'));
  const h = await startServer({ workspace, env: { RE_MCP_PROFILE: 'runtime' } });
  try {
    await h.ok('desmume_start', { romPath: 'debug.nds' });
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: `0x${rom.symbols.armIncrement.toString(16)}`,
      mode: 'arm',
    });
    await h.ok('desmume_continue', { captureContext: false });
    let t = performance.now();
    for (let i = 0; i < N + 1; i++) await h.ok('desmume_continue', { captureContext: false });
    const manualMs = performance.now() - t;
    await h.ok('desmume_breakpoint_condition', { id: bp.breakpoint.id, condition: { skipHits: N } });
    t = performance.now();
    const r = await h.ok<{ skippedHits: number }>('desmume_continue', { captureContext: false });
    const conditionalMs = performance.now() - t;
    if (r.skippedHits !== N) throw new Error(`expected ${N} skipped hits, got ${r.skippedHits}`);
    return {
      skippedHits: N,
      manualContinuesMs: round(manualMs),
      conditionalContinueMs: round(conditionalMs),
      msPerHit: { manual: round(manualMs / (N + 1)), conditional: round(conditionalMs / (N + 1)) },
      speedup: round(manualMs / conditionalMs),
    };
  } finally {
    await h.close();
    killDesmumeProcesses(workspace);
    await rm(workspace, { recursive: true, force: true });
  }
}

async function scanEwram(): Promise<Record<string, unknown>> {
  const ra = await launchRetroArch({ core: 'mgba', rom: GBA_ROM });
  try {
    const mcp = await startServer({
      env: { RE_MCP_PROFILE: 'retroarch', RETROARCH_PORT: String(ra.port), RETROARCH_TIMEOUT_MS: '1000' },
    });
    try {
      await mcp.ok('retroarch_set_paused', { paused: true });
      let t = performance.now();
      const s = await mcp.ok<{ scanId: string; candidates: number }>('retroarch_memory_scan_start', {
        address: '0x02000000',
        length: 256 * 1024,
        size: 4,
      });
      const startMs = performance.now() - t;
      const steps: Array<{ ms: number; candidates: number; bytesRead: number }> = [];
      for (let i = 0; i < 10; i++) {
        await mcp.ok('retroarch_frame_advance', { frames: 1 });
        t = performance.now();
        const r = await mcp.ok<{ candidates: number; bytesRead: number }>('retroarch_memory_scan_narrow', {
          scanId: s.scanId,
          comparison: i % 2 === 0 ? 'increased' : 'changed',
        });
        steps.push({ ms: round(performance.now() - t), candidates: r.candidates, bytesRead: r.bytesRead });
      }
      return { regionBytes: 256 * 1024, startMs: round(startMs), initialCandidates: s.candidates, steps };
    } finally {
      await mcp.close();
    }
  } finally {
    await ra.stop();
  }
}

export async function benchLiveFeatures(): Promise<Record<string, unknown>> {
  return { conditionalBreakpoint: await conditionalVsManual(), memoryScanEwram: await scanEwram() };
}
