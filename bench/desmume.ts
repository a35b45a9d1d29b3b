// DeSmuME figures through the real tools over MCP stdio, against the real emulator and the live-debug
// test ROM: start-to-GDB-ready, breakpoint round trip in the hot loop, stepping, memory read throughput.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import {
  DESMUME_CLI,
  killDesmumeProcesses,
  writeDebugTargetRom,
  writeOverlayTargetRom,
} from '../test/kit/desmume/index.js';
import { makeWorkspace, SERVER_ENTRY } from '../test/kit/mcp-harness.js';

function stats(values: number[]): { median: number; min: number; max: number; runs: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  const r = (n: number) => Number(n.toFixed(2));
  return { median: r(median), min: r(sorted[0]!), max: r(sorted.at(-1)!), runs: values.length };
}

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, any>> {
  const result = (await client.callTool({ name, arguments: args })) as {
    isError?: boolean;
    structuredContent?: Record<string, any>;
    content: unknown;
  };
  if (result.isError) throw new Error(`${name}: ${JSON.stringify(result.content)}`);
  return result.structuredContent ?? {};
}

async function timed<T>(work: () => Promise<T>): Promise<[number, T]> {
  const started = performance.now();
  const value = await work();
  return [performance.now() - started, value];
}

export async function benchDesmume(): Promise<Record<string, unknown>> {
  if (!existsSync(DESMUME_CLI)) return { skipped: `${DESMUME_CLI} is not installed` };
  const workspace = await makeWorkspace('re-mcp-bench-desmume-');
  const rom = writeDebugTargetRom(join(workspace, 'debug.nds'));
  const overlays = writeOverlayTargetRom(join(workspace, 'overlays.nds'));
  const hex = (n: number) => `0x${n.toString(16)}`;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER_ENTRY, 'serve'],
    env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: workspace, RE_MCP_PROFILE: 'runtime' },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench-desmume', version: '1' });
  await client.connect(transport);
  try {
    const startToReady: number[] = [];
    for (let i = 0; i < 5; i++) {
      const [ms] = await timed(async () => {
        await call(client, 'desmume_start', { romPath: 'debug.nds' });
        await call(client, 'desmume_wait_for_gdb', {});
      });
      startToReady.push(ms);
      await call(client, 'desmume_stop', {});
    }

    await call(client, 'desmume_start', { romPath: 'debug.nds' });
    await call(client, 'desmume_breakpoint_add', { address: hex(rom.symbols.armIncrement), mode: 'arm' });
    const bare: number[] = [];
    const withContext: number[] = [];
    for (let i = 0; i < 30; i++) {
      const [ms, run] = await timed(() => call(client, 'desmume_continue', { captureContext: false }));
      if (run.stop?.pc !== `0x${rom.symbols.armIncrement.toString(16).padStart(8, '0')}`) {
        throw new Error(`continue stopped at ${run.stop?.pc}`);
      }
      bare.push(ms);
    }
    for (let i = 0; i < 30; i++) {
      withContext.push((await timed(() => call(client, 'desmume_continue', {})))[0]);
    }
    const [stepMs] = await timed(() => call(client, 'desmume_step_instruction', { count: 20 }));

    const readLatency: number[] = [];
    let bytes = 0;
    const [readTotal] = await timed(async () => {
      for (let i = 0; i < 50; i++) {
        const [ms, read] = await timed(() =>
          call(client, 'desmume_read_memory', { address: hex(rom.arm9.loadAddress), length: 4096 }),
        );
        readLatency.push(ms);
        bytes += read.length as number;
      }
    });
    const [smallMs] = await timed(async () => {
      for (let i = 0; i < 50; i++) {
        await call(client, 'desmume_read_memory', { address: hex(rom.symbols.counterArm), length: 4 });
      }
    });
    await call(client, 'desmume_stop', {});

    // nds_correlate_stop_context at a stop in the overlay program's shared overlay address, with and
    // without the live-byte check (each call reopens the ROM and runs one function discovery).
    await call(client, 'desmume_start', { romPath: 'overlays.nds' });
    await call(client, 'desmume_executable_ranges_replace', {
      ranges: [{ start: '0x02200000', end: '0x02200180', label: 'overlay RAM', mode: 'arm' }],
    });
    await call(client, 'desmume_breakpoint_add', { address: hex(overlays.symbols.aHelper), mode: 'arm' });
    await call(client, 'desmume_continue', { captureContext: false });
    const [firstCorrelationMs] = await timed(() => call(client, 'nds_correlate_stop_context', {}));
    const correlateLive: number[] = [];
    const correlateStatic: number[] = [];
    for (let i = 0; i < 20; i++) {
      const [ms, c] = await timed(() => call(client, 'nds_correlate_stop_context', {}));
      if (c.pc?.liveMatches !== 1) throw new Error(`correlation matched ${c.pc?.liveMatches} candidates`);
      correlateLive.push(ms);
      correlateStatic.push(
        (await timed(() => call(client, 'nds_correlate_stop_context', { liveCheck: false })))[0],
      );
    }
    await call(client, 'desmume_stop', {});
    return {
      correlateStopContextMs: {
        first: Number(firstCorrelationMs.toFixed(2)),
        withLiveCheck: stats(correlateLive),
        withoutLiveCheck: stats(correlateStatic),
      },
      startToGdbReadyMs: stats(startToReady),
      breakpointRoundTripMs: { withoutContext: stats(bare), withContext: stats(withContext) },
      stepMsPerInstruction: Number((stepMs / 20).toFixed(2)),
      memoryRead4096: {
        latencyMs: stats(readLatency),
        throughputKiBps: Math.round(bytes / 1024 / (readTotal / 1000)),
      },
      memoryRead4LatencyMs: Number((smallMs / 50).toFixed(2)),
    };
  } finally {
    await client.close();
    killDesmumeProcesses(workspace);
    await rm(workspace, { recursive: true, force: true });
  }
}
