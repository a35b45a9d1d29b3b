// NDS bench: nds_inspect_rom, cold (fresh services: hash + parse) and warm (identity cache hit: one
// stat before and after), on a synthetic 256 MiB ROM with 10,000 NitroFS files and 200 ARM9 overlays.
// The ROM is streamed to a temp workspace by the test builder, never held in memory whole.
import { mkdir, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config/config.js';
import { invokeTool } from '../src/mcp/invoke.js';
import type { ToolDefinition } from '../src/mcp/tool.js';
import { Services } from '../src/services.js';
import { ndsInspectRom } from '../src/tools/nds/nds-inspect-rom.js';
import { Workspace } from '../src/workspace/workspace.js';
import { type FileSpec, type OverlaySpec, type RomSpec, writeRomFile } from '../test/kit/rom-builder.js';

const TARGET_BYTES = 256 * 1024 * 1024;
const FILES = 10_000;
const OVERLAYS = 200;
const WARM_RUNS = 20;

function spec(): RomSpec {
  const code = new Uint8Array(0x20000).map((_, i) => (i * 13) & 0xff);
  const overlays: OverlaySpec[] = Array.from({ length: OVERLAYS }, (_, id) => ({
    id,
    // Groups of 10 overlays share a RAM slot, as real games' overlays do.
    ramAddress: 0x02100000 + (id % 20) * 0x10000,
    data: code.subarray(id * 64, id * 64 + 0x2000),
    bssSize: 0x400,
  }));
  // A multiple of the builder's 0x200 alignment, so the files fill the target without padding.
  const perFile = Math.floor((TARGET_BYTES - 2 * 1024 * 1024) / FILES / 0x200) * 0x200;
  const files: FileSpec[] = Array.from({ length: FILES }, (_, i) => ({
    path: `dir${String(Math.floor(i / 100)).padStart(3, '0')}/file${String(i % 100).padStart(3, '0')}.bin`,
    data: { length: perFile, seed: i },
  }));
  return {
    arm9: { code },
    arm7: { code: code.subarray(0, 0x8000), ramAddress: 0x037f8000 },
    files,
    arm9Overlays: overlays,
  };
}

async function inspect(services: Services): Promise<number> {
  const started = performance.now();
  const result = await invokeTool(ndsInspectRom as unknown as ToolDefinition, { rom: 'big.nds' }, services, {
    signal: new AbortController().signal,
  });
  const elapsed = performance.now() - started;
  if (result.isError) throw new Error(`nds_inspect_rom failed: ${JSON.stringify(result.structuredContent)}`);
  return elapsed;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const round = (x: number) => Math.round(x * 100) / 100;

export async function benchNds(): Promise<Record<string, unknown>> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 're-mcp-bench-nds-')));
  try {
    await mkdir(root, { recursive: true });
    const buildStart = performance.now();
    const layout = writeRomFile(spec(), join(root, 'big.nds'));
    const buildMs = performance.now() - buildStart;
    const makeServices = () => new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
    const cold: number[] = [];
    for (let i = 0; i < 3; i++) cold.push(await inspect(makeServices()));
    const services = makeServices();
    await inspect(services);
    const warm: number[] = [];
    for (let i = 0; i < WARM_RUNS; i++) warm.push(await inspect(services));
    return {
      romBytes: layout.size,
      nitroFsFiles: FILES,
      arm9Overlays: OVERLAYS,
      fatEntries: layout.files.length,
      buildMs: Math.round(buildMs),
      inspectColdMs: { median: round(median(cold)), runs: cold.map(round) },
      coldThroughputMBps: round(layout.size / 1_048_576 / (median(cold) / 1000)),
      inspectWarmMs: { median: round(median(warm)), min: round(Math.min(...warm)), runs: WARM_RUNS },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
