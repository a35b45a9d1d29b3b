// Proven-function and xref bench: nds_discover_functions and nds_find_xrefs at their maximum budgets
// on the largest shared homebrew ARM9 that discovery reaches (through the real tool pipeline, ROM
// identity checks included), next to a linear decode of the same ARM9 bytes in tool-sized windows.
// Optionally side by side with an older checkout (RE_MCP_BENCH_BASELINE, see benchAnalysis).
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
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

/** The tool pipeline of one checkout: this one, or an older one to compare against. */
async function implementation(root: string | null) {
  if (root === null) {
    return { analysisTools, DISCOVERY_LIMITS, XREF_LIMITS, invokeTool, Services, loadConfig, Workspace };
  }
  const at = (rel: string) => import(pathToFileURL(join(root, rel)).href);
  return {
    analysisTools: (await at('src/tools/analysis/index.ts')).analysisTools as typeof analysisTools,
    DISCOVERY_LIMITS: (await at('src/tools/analysis/nds-discover-functions.ts'))
      .DISCOVERY_LIMITS as typeof DISCOVERY_LIMITS,
    XREF_LIMITS: (await at('src/tools/analysis/nds-find-xrefs.ts')).XREF_LIMITS as typeof XREF_LIMITS,
    invokeTool: (await at('src/mcp/invoke.ts')).invokeTool as typeof invokeTool,
    Services: (await at('src/services.ts')).Services as typeof Services,
    loadConfig: (await at('src/config/config.ts')).loadConfig as typeof loadConfig,
    Workspace: (await at('src/workspace/workspace.ts')).Workspace as typeof Workspace,
  };
}

const RUNS = 5;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * `RE_MCP_BENCH_BASELINE=<checkout>` (a copy of an older tree with its node_modules) measures that
 * tree's tools in the same process, interleaved run by run with this one's: before/after under the
 * same load. Times are medians of RUNS runs after a warm-up.
 */
export async function benchAnalysis(): Promise<Record<string, unknown>> {
  const root = mkdtempSync(join(tmpdir(), 're-mcp-bench-analysis-'));
  try {
    mkdirSync(join(root, 'roms'));
    const baselineRoot = process.env.RE_MCP_BENCH_BASELINE ?? null;
    const impls = [{ name: 'current', impl: await implementation(null) }];
    if (baselineRoot) impls.unshift({ name: 'baseline', impl: await implementation(baselineRoot) });
    const runners = impls.map(({ name, impl }) => {
      const services = new impl.Services(
        impl.loadConfig({ RE_MCP_WORKSPACE_ROOT: root }),
        new impl.Workspace(root),
      );
      const tool = (n: string) => impl.analysisTools.find((t) => t.name === n) as unknown as ToolDefinition;
      const run = async (n: string, args: Record<string, unknown>) => {
        const started = performance.now();
        const r = (await impl.invokeTool(tool(n), args, services, {
          signal: new AbortController().signal,
          log: () => {},
        })) as { isError?: boolean; structuredContent: Record<string, any>; content: { text: string }[] };
        if (r.isError) throw new Error(r.content[0]?.text);
        return { ms: performance.now() - started, r: r.structuredContent };
      };
      return { name, impl, run };
    });
    const out: Record<string, unknown> = {
      runs: RUNS,
      baseline: baselineRoot ?? 'none (set RE_MCP_BENCH_BASELINE)',
    };
    for (const rom of ROMS) {
      copyFileSync(sharedRomPath(rom), join(root, 'roms', rom));
      const args = { rom: `roms/${rom}`, processor: 'arm9' };
      const parts = mainBinaries(new Uint8Array(readFileSync(sharedRomPath(rom))))!;
      const arm9 = parts[0];
      await linear(arm9.bytes, arm9.ramAddress, 'thumb');
      const linTimes: number[] = [];
      let linInstructions = 0;
      const times = new Map<
        string,
        { d: number[]; x: number[]; dr?: Record<string, any>; xr?: Record<string, any> }
      >();
      for (const r of runners) {
        await r.run('nds_discover_functions', args); // warm: Capstone, JIT, ROM identity cache
        times.set(r.name, { d: [], x: [] });
      }
      for (let i = 0; i < RUNS; i++) {
        const lin = await linear(arm9.bytes, arm9.ramAddress, 'thumb');
        linTimes.push(lin.ms);
        linInstructions = lin.instructions;
        for (const r of runners) {
          const t = times.get(r.name)!;
          const d = await r.run('nds_discover_functions', { ...args, ...maxOf(r.impl.DISCOVERY_LIMITS) });
          const x = await r.run('nds_find_xrefs', {
            ...args,
            ...maxOf(r.impl.XREF_LIMITS),
            address: d.r.functions[1]?.identity.address ?? '0x02000000',
          });
          t.d.push(d.ms);
          t.x.push(x.ms);
          t.dr = d.r;
          t.xr = x.r;
        }
      }
      const linMs = median(linTimes);
      const entry: Record<string, unknown> = {
        arm9Bytes: arm9.bytes.length,
        linearDecodeWholeArm9: { ms: Math.round(linMs), instructions: linInstructions },
      };
      for (const [name, t] of times) {
        const dMs = median(t.d);
        const d = t.dr!;
        const discoveryBytesPerMs = d.totals.bytes / dMs;
        const linearBytesPerMs = (linInstructions * 2) / linMs;
        entry[name] = {
          discovery: {
            ms: Math.round(dMs),
            status: d.status,
            truncation: d.truncation,
            functions: d.totals.functions,
            functionsPerSecond: Math.round((d.totals.functions / dMs) * 1000),
            decodedBytes: d.totals.bytes,
            blocks: d.totals.blocks,
          },
          xrefs: {
            ms: Math.round(median(t.x)),
            status: t.xr!.status,
            xrefs: t.xr!.totals.xrefs,
            decodedBytes: t.xr!.totals.bytes,
          },
          discoveryVsLinearWholeArm9: Number((dMs / linMs).toFixed(2)),
          perByteCostRatio: Number((linearBytesPerMs / discoveryBytesPerMs).toFixed(2)),
          goalUnder1s: dMs < 1000,
        };
      }
      out[rom] = entry;
    }
    return out;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
