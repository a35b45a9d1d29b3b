// Proven-function and xref bench: nds_discover_functions and nds_find_xrefs at their maximum budgets
// on the largest shared homebrew ARM9 that discovery reaches (through the real tool pipeline, ROM
// identity checks included), next to a linear decode of the same ARM9 bytes in tool-sized windows.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeWindow } from '../src/arm/decoder.js';
import { loadConfig } from '../src/config/config.js';
import { invokeTool } from '../src/mcp/invoke.js';
import type { ToolDefinition } from '../src/mcp/tool.js';
import { Services } from '../src/services.js';
import { analysisTools } from '../src/tools/analysis/index.js';
import { DISCOVERY_LIMITS } from '../src/tools/analysis/nds-discover-functions.js';
import { XREF_LIMITS } from '../src/tools/analysis/nds-find-xrefs.js';
import { Workspace } from '../src/workspace/workspace.js';
import { mainBinaries } from '../test/arm/objdump-oracle.js';
import { sharedRomPath } from '../test/kit/shared-data.js';

const ROMS = ['basic-rts-part2.nds', 'raycasting-1.nds', 'basic-first-game.nds'];

const maxOf = (table: Record<string, { max: number }>) =>
  Object.fromEntries(Object.entries(table).map(([k, v]) => [k, v.max]));

/** Linear decode of `code` in 256-instruction windows (restarting one unit after a stop). */
async function linear(code: Uint8Array, base: number, mode: 'arm' | 'thumb') {
  const unit = mode === 'arm' ? 4 : 2;
  let at = 0;
  let count = 0;
  const started = performance.now();
  while (at + unit <= code.length) {
    const r = await decodeWindow(code.subarray(at, at + 1024), base + at, mode, 'arm9', 256);
    count += r.instructions.length;
    const last = r.instructions.at(-1);
    if (r.stop) at = r.stop.address - base + unit;
    else if (last) at = last.address + last.size - base;
    else break;
  }
  return { instructions: count, ms: performance.now() - started };
}

export async function benchAnalysis(): Promise<Record<string, unknown>> {
  const root = mkdtempSync(join(tmpdir(), 're-mcp-bench-analysis-'));
  try {
    mkdirSync(join(root, 'roms'));
    const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
    const tool = (name: string) => analysisTools.find((t) => t.name === name) as unknown as ToolDefinition;
    const run = async (name: string, args: Record<string, unknown>) => {
      const started = performance.now();
      const r = (await invokeTool(tool(name), args, services, {
        signal: new AbortController().signal,
        log: () => {},
      })) as { isError?: boolean; structuredContent: Record<string, any>; content: { text: string }[] };
      if (r.isError) throw new Error(r.content[0]?.text);
      return { ms: performance.now() - started, r: r.structuredContent };
    };
    const out: Record<string, unknown> = {};
    for (const rom of ROMS) {
      copyFileSync(sharedRomPath(rom), join(root, 'roms', rom));
      const args = { rom: `roms/${rom}`, processor: 'arm9' };
      await run('nds_discover_functions', args); // warm: Capstone, JIT, ROM identity cache
      const d = await run('nds_discover_functions', { ...args, ...maxOf(DISCOVERY_LIMITS) });
      const x = await run('nds_find_xrefs', {
        ...args,
        ...maxOf(XREF_LIMITS),
        address: d.r.functions[1]?.identity.address ?? '0x02000000',
      });
      const parts = mainBinaries(new Uint8Array(readFileSync(sharedRomPath(rom))))!;
      const arm9 = parts[0];
      await linear(arm9.bytes, arm9.ramAddress, 'thumb');
      const lin = await linear(arm9.bytes, arm9.ramAddress, 'thumb');
      const discoveryBytesPerMs = d.r.totals.bytes / d.ms;
      const linearBytesPerMs = (lin.instructions * 2) / lin.ms;
      out[rom] = {
        arm9Bytes: arm9.bytes.length,
        discovery: {
          ms: Math.round(d.ms),
          status: d.r.status,
          truncation: d.r.truncation,
          functions: d.r.totals.functions,
          functionsPerSecond: Math.round((d.r.totals.functions / d.ms) * 1000),
          decodedBytes: d.r.totals.bytes,
          blocks: d.r.totals.blocks,
        },
        xrefs: {
          ms: Math.round(x.ms),
          status: x.r.status,
          xrefs: x.r.totals.xrefs,
          decodedBytes: x.r.totals.bytes,
        },
        linearDecodeWholeArm9: { ms: Math.round(lin.ms), instructions: lin.instructions },
        discoveryVsLinearWholeArm9: Number((d.ms / lin.ms).toFixed(2)),
        perByteCostRatio: Number((linearBytesPerMs / discoveryBytesPerMs).toFixed(2)),
        goalUnder1s: d.ms < 1000,
      };
    }
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
