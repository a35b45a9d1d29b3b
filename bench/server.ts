// Server figures where the user pays, each next to the floor it is judged against in the same run:
// - tools/list size per profile (bytes, bytes per tool, approximate tokens; for the full profile each
//   tool's bytes and the average per part: description, input and output schema, annotations, and
//   the rest: name, title, keys and punctuation), output schemas summarised as served by default, and
//   the full profile again with RE_MCP_OUTPUT_SCHEMAS=full: it sits in the assistant's context in
//   every conversation;
// - spawn -> first tools/list (median of fresh processes) against a bare Node process answering the
//   same initialize + tools/list with the same bytes (nothing to load, nothing to compute), as a ratio;
// - the first nds_inspect_rom of a small real homebrew ROM in a fresh server (cold: hash, parse,
//   identity re-check) against the same call warm;
// - server_capabilities round trip;
// - the context of a default session (RE_MCP_PROFILE unset): its tools/list and each default-profile
//   tool's result with default arguments on the largest corpus ROM, against the tests' budgets.
// RE_MCP_BENCH_BASELINE=<another build's dist/index.js> measures that build too, interleaved in the
// same run, and reports both side by side ("before" / "after", and each tool's bytes before/after).
import { spawn } from 'node:child_process';
import { copyFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { PROFILE_NAMES } from '../src/core/profiles.js';
import { loadAllTools } from '../src/tools/index.js';
import { defaultCalls, RESULT_BUDGET, TOOLS_LIST_BUDGET } from '../test/kit/context-calls.js';
import { makeWorkspace, REPO_ROOT, SERVER_ENTRY } from '../test/kit/mcp-harness.js';

const SPAWN_RUNS = 15;
const INSPECT_RUNS = 7;
const WARM_RUNS = 20;
/** A ~180 KB homebrew ROM from the shared set (read in place, copied only into the temp workspace). */
const SMALL_ROM = join(REPO_ROOT, '..', 'shared', 'roms', 'basic-first-game.nds');
/** The largest valid ROM of the shared set (674,848 bytes): the context figures' worst case. */
const LARGEST_ROM = 'dslua-pack.nds';
/** Rough tokens of JSON-heavy text (schemas, short keys, punctuation): about 4 bytes a token. */
const BYTES_PER_TOKEN = 4;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

export async function connect(args: string[], env: Record<string, string>): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(transport);
  return client;
}

/** A server's settings; profile null leaves RE_MCP_PROFILE unset (the default session). */
const serverEnv = (workspace: string, profile: string | null = 'full', outputSchemas = 'summary') => ({
  RE_MCP_WORKSPACE_ROOT: workspace,
  ...(profile === null ? {} : { RE_MCP_PROFILE: profile }),
  RE_MCP_OUTPUT_SCHEMAS: outputSchemas,
});

/**
 * The floor: plain Node reading newline-delimited JSON-RPC from stdin and writing canned answers
 * (the server's own initialize result and tools/list bytes). What re-mcp costs above it is loading
 * and computing, which is what the ratio measures.
 */
function floorScript(initResult: unknown, toolsResult: unknown): string {
  return `const init = ${JSON.stringify(JSON.stringify(initResult))};
const tools = ${JSON.stringify(JSON.stringify(toolsResult))};
let buf = '';
process.stdin.on('data', (c) => {
  buf += c;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const line = buf.slice(0, i);
    buf = buf.slice(i + 1);
    const m = JSON.parse(line);
    if (m.id === undefined) continue;
    const result = m.method === 'initialize' ? init : m.method === 'tools/list' ? tools : '{}';
    process.stdout.write('{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":' + result + '}\\n');
  }
});
`;
}

async function spawnToList(args: string[], env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const client = await connect(args, env);
  await client.listTools();
  const elapsed = performance.now() - started;
  await client.close();
  return elapsed;
}

interface Figures {
  toolsList: Record<string, unknown>;
  spawn: number[];
  cold: number[];
  warm: number[];
  roundTrips: number[];
  context?: Record<string, unknown>;
}

async function sizes(
  entry: string,
  workspace: string,
): Promise<{ sizes: Record<string, unknown>; full: unknown; init: unknown }> {
  const out: Record<string, unknown> = {};
  let full: unknown = null;
  let init: unknown = null;
  const runs: Array<[label: string, profile: string | null, outputSchemas: string]> = [
    ['default (RE_MCP_PROFILE unset)', null, 'summary'],
    ...PROFILE_NAMES.map((p): [string, string, string] => [p, p, 'summary']),
    ['full, RE_MCP_OUTPUT_SCHEMAS=full', 'full', 'full'],
  ];
  for (const [label, profile, outputSchemas] of runs) {
    const client = await connect([entry, 'serve'], serverEnv(workspace, profile, outputSchemas));
    const listed = await client.listTools();
    if (label === 'full') {
      full = listed;
      init = {
        protocolVersion: client.getNegotiatedProtocolVersion() ?? '2025-06-18',
        capabilities: client.getServerCapabilities(),
        serverInfo: client.getServerVersion(),
        instructions: client.getInstructions(),
      };
    }
    await client.close();
    const bytes = Buffer.byteLength(JSON.stringify(listed));
    const perTool = listed.tools.map((t) => Buffer.byteLength(JSON.stringify(t)));
    out[label] = {
      tools: listed.tools.length,
      bytes,
      bytesPerTool: Math.round(bytes / Math.max(listed.tools.length, 1)),
      maxToolBytes: Math.max(...perTool),
      approxTokens: Math.round(bytes / BYTES_PER_TOKEN),
      ...(profile === 'full' ? toolBytes(listed.tools) : {}),
    };
  }
  return { sizes: out, full, init };
}

type ListedTool = Record<string, unknown> & { name: string };
const jsonBytes = (v: unknown) => (v === undefined ? 0 : Buffer.byteLength(JSON.stringify(v)));

/** Where a tool's bytes go (average per tool, per part of its definition) and each tool's own size. */
function toolBytes(tools: ListedTool[]): {
  perPartAverage: Record<string, number>;
  perTool: Record<string, number>;
} {
  const parts = ['description', 'inputSchema', 'outputSchema', 'annotations'] as const;
  const perPartAverage: Record<string, number> = {};
  const count = Math.max(tools.length, 1);
  for (const part of parts)
    perPartAverage[part] = Math.round(tools.reduce((sum, t) => sum + jsonBytes(t[part]), 0) / count);
  // Name, title, the keys and punctuation of the definition.
  const whole = tools.reduce((sum, t) => sum + jsonBytes(t), 0) / count;
  perPartAverage.other = Math.round(
    whole - parts.reduce((sum, part) => sum + tools.reduce((s, t) => s + jsonBytes(t[part]), 0) / count, 0),
  );
  return { perPartAverage, perTool: Object.fromEntries(tools.map((t) => [t.name, jsonBytes(t)])) };
}

/** Per tool of the full profile: bytes before and after (a tool only one build has shows null there). */
function perToolChange(before: Record<string, unknown>, after: Record<string, unknown>) {
  const b = (before.full as { perTool: Record<string, number> }).perTool;
  const a = (after.full as { perTool: Record<string, number> }).perTool;
  const names = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return Object.fromEntries(names.map((n) => [n, { before: b[n] ?? null, after: a[n] ?? null }]));
}

/**
 * A bare JSON-RPC client over the server's stdio: the first call is timed from the request written to
 * the answer read, with nothing of a client SDK in it (the SDK compiles a validator for the tool's
 * output schema on its first result, which is the client's cost, not the server's).
 */
function rawSession(entry: string, workspace: string) {
  const child = spawn(process.execPath, [entry, 'serve'], {
    env: { PATH: process.env.PATH ?? '', ...serverEnv(workspace) },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  const waiting = new Map<number, (message: { result?: { isError?: boolean } }) => void>();
  let buffer = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk;
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, i));
      buffer = buffer.slice(i + 1);
      waiting.get(message.id)?.(message);
    }
  });
  let id = 0;
  const request = (method: string, params: unknown) =>
    new Promise<{ result?: { isError?: boolean } }>((resolve) => {
      waiting.set(++id, resolve);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  return {
    async open() {
      await request('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      });
      child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
      await request('tools/list', {});
    },
    async inspect(): Promise<number> {
      const started = performance.now();
      const answer = await request('tools/call', {
        name: 'nds_inspect_rom',
        arguments: { rom: 'small.nds' },
      });
      const elapsed = performance.now() - started;
      if (!answer.result || answer.result.isError)
        throw new Error(`nds_inspect_rom failed: ${JSON.stringify(answer)}`);
      return elapsed;
    },
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

async function inspectRuns(
  entry: string,
  workspace: string,
  figures: Figures,
  first: boolean,
): Promise<void> {
  const session = rawSession(entry, workspace);
  await session.open();
  figures.cold.push(await session.inspect());
  if (first) for (let w = 0; w < WARM_RUNS; w++) figures.warm.push(await session.inspect());
  await session.close();
}

async function roundTrips(entry: string, workspace: string, figures: Figures): Promise<void> {
  const client = await connect([entry, 'serve'], serverEnv(workspace));
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    await client.callTool({ name: 'server_capabilities', arguments: {} });
    figures.roundTrips.push(performance.now() - started);
  }
  await client.close();
}

/**
 * The context a default session costs (test/kit/context-calls.ts): tools/list with RE_MCP_PROFILE
 * unset, and each default-profile tool's whole result with its default arguments on the largest ROM of
 * the corpus, against the budgets the tests assert.
 */
async function contextFigures(entry: string, workspace: string): Promise<Record<string, unknown>> {
  const client = await connect([entry, 'serve'], serverEnv(workspace, null));
  try {
    const listed = await client.listTools();
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args }, { timeout: 600_000 })) as {
        isError?: boolean;
        structuredContent?: Record<string, unknown>;
      };
    const rom = 'largest.nds';
    const entryAddress = (
      (await call('nds_inspect_rom', { rom })).structuredContent as {
        arm9: { entry: string };
      }
    ).arm9.entry;
    const map = (await call('nds_discover_functions', {
      rom,
      processor: 'arm9',
      scope: 'program',
      limit: 1024,
    })) as {
      structuredContent?: { functions?: Array<{ identity: { address: string }; callerCount: number }> };
    };
    const busiest =
      [...(map.structuredContent?.functions ?? [])].sort((a, b) => b.callerCount - a.callerCount)[0]?.identity
        .address ?? entryAddress;
    const results: Record<string, number | string> = {};
    let largest = 0;
    const tools = (await loadAllTools()).filter((t) => listed.tools.some((l) => l.name === t.name));
    for (const { tool: name, args } of defaultCalls(tools, rom, entryAddress, busiest)) {
      const label = `${name}${'scope' in args && args.scope === 'program' ? ' (program)' : ''}`;
      const result = await call(name, args);
      const size = Buffer.byteLength(JSON.stringify(result));
      results[label] = result.isError ? `error (${size} B)` : size;
      if (!result.isError) largest = Math.max(largest, size);
    }
    const listBytes = Buffer.byteLength(JSON.stringify(listed));
    return {
      rom: `${LARGEST_ROM} (the largest corpus ROM), busiest function ${busiest}`,
      toolsListBytes: listBytes,
      toolsListGoal: TOOLS_LIST_BUDGET,
      largestResultBytes: largest,
      resultGoal: RESULT_BUDGET,
      met: listBytes <= TOOLS_LIST_BUDGET && largest <= RESULT_BUDGET,
      resultBytes: results,
    };
  } finally {
    await client.close();
  }
}

function report(f: Figures, floor: number[]): Record<string, unknown> {
  const full = f.toolsList.full as { bytesPerTool: number };
  const ratio = median(f.spawn) / median(floor);
  return {
    context: f.context,
    toolsList: { ...f.toolsList, goalBytesPerTool: 750, met: full.bytesPerTool <= 750 },
    spawnToToolsListMs: {
      median: Math.round(median(f.spawn)),
      min: Math.round(Math.min(...f.spawn)),
      floorMedian: Math.round(median(floor)),
      floorMin: Math.round(Math.min(...floor)),
      ratio: Number(ratio.toFixed(2)),
      goalRatio: 2,
      met: ratio <= 2,
      runs: f.spawn.length,
    },
    firstInspectSmallRomMs: {
      rom: 'basic-first-game.nds (181,824 bytes), after initialize + tools/list, bare JSON-RPC client',
      coldMedian: round1(median(f.cold)),
      coldMin: round1(Math.min(...f.cold)),
      warmMedian: round1(median(f.warm)),
      goalColdMs: 15,
      met: median(f.cold) <= 15,
      runs: f.cold.length,
    },
    serverCapabilitiesRoundTripMs: {
      median: Number(median(f.roundTrips).toFixed(2)),
      runs: f.roundTrips.length,
    },
  };
}

export async function benchServer(): Promise<Record<string, unknown>> {
  const workspace = await makeWorkspace('re-mcp-bench-');
  const baseline = process.env.RE_MCP_BENCH_BASELINE;
  const builds: Array<[string, string]> = baseline
    ? [
        ['before', baseline],
        ['after', SERVER_ENTRY],
      ]
    : [['server', SERVER_ENTRY]];
  try {
    const figures = new Map<string, Figures>();
    let floorInput: { full: unknown; init: unknown } | null = null;
    for (const [label, entry] of builds) {
      const measured = await sizes(entry, workspace);
      floorInput ??= measured; // the floor answers with the first build's bytes
      figures.set(label, { toolsList: measured.sizes, spawn: [], cold: [], warm: [], roundTrips: [] });
    }
    // Spawn -> first tools/list: every build and the floor interleaved, so all see the same load.
    const floorPath = join(workspace, 'floor.cjs');
    await writeFile(floorPath, floorScript(floorInput!.init, floorInput!.full));
    const floor: number[] = [];
    for (let i = 0; i < SPAWN_RUNS; i++) {
      for (const [label, entry] of builds)
        figures.get(label)!.spawn.push(await spawnToList([entry, 'serve'], serverEnv(workspace)));
      floor.push(await spawnToList([floorPath], {}));
    }
    await copyFile(SMALL_ROM, join(workspace, 'small.nds'));
    await copyFile(join(REPO_ROOT, '..', 'shared', 'roms', LARGEST_ROM), join(workspace, 'largest.nds'));
    for (const [label, entry] of builds) figures.get(label)!.context = await contextFigures(entry, workspace);
    for (let i = 0; i < INSPECT_RUNS; i++)
      for (const [label, entry] of builds) await inspectRuns(entry, workspace, figures.get(label)!, i === 0);
    for (const [label, entry] of builds) await roundTrips(entry, workspace, figures.get(label)!);
    const out: Record<string, unknown> = { approxTokens: `bytes / ${BYTES_PER_TOKEN}` };
    for (const [label] of builds) out[label] = report(figures.get(label)!, floor);
    if (baseline)
      out.toolsListPerToolBytes = perToolChange(
        figures.get('before')!.toolsList,
        figures.get('after')!.toolsList,
      );
    return out;
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}
