// Where users wait, each figure beside its floor measured in the same run and its goal:
// - warm answers: nds_find_xrefs, nds_function_at and a nds_discover_functions page in program scope
//   on a built map, end to end through the built server over stdio (a bare JSON-RPC client: nothing
//   of a client SDK in the time), against the map's own query in this process (map.xrefs,
//   map.holders, a page of map.functions with their call sites). Goal: at most 2 ms and 10x the floor;
// - the first call in a fresh process (nds_inspect_rom, nds_list_files, nds_resolve_runtime_address on
//   a small homebrew ROM, after initialize + tools/list): goal 13 ms (RE-MCP 0.6's figure measured
//   elsewhere; it is not installed here, so it is a fixed goal, not a floor of this run);
// - the debugger (DeSmuME, the live-debug test ROM): desmume_start -> desmume_wait_for_gdb, and the
//   breakpoint round trip (desmume_continue to a breakpoint in the hot loop) without and with the stop
//   context: goals RE-MCP 0.6's figures (160 ms = 0.75x its 213 ms; 1.3 / 3.1 ms).
// RE_MCP_BENCH_BASELINE=<another build's dist/index.js, or a checkout holding one> measures that build
// too, interleaved call by call (or run by run) with this one: before/after under the same load.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { EVIDENCE_IDS } from '../src/analysis/evidence/index.js';
import { getProgramMaps, MAP_LIMITS } from '../src/analysis/program-map/service.js';
import { TIER_RANK } from '../src/analysis/program-map/types.js';
import { loadConfig } from '../src/config/config.js';
import { getRomStore } from '../src/roms/rom-store.js';
import { Services } from '../src/services.js';
import { Workspace } from '../src/workspace/workspace.js';
import { DESMUME_CLI, killDesmumeProcesses, writeDebugTargetRom } from '../test/kit/desmume/index.js';
import { makeWorkspace, SERVER_ENTRY } from '../test/kit/mcp-harness.js';
import { kitRomBytes } from '../test/kit/program-rom.js';
import { sharedRomPath } from '../test/kit/shared-data.js';

const WARM_RUNS = 40;
const COLD_RUNS = 9;
const DEBUG_ROUNDS = 3;
const DEBUG_RUNS = 15;
const WARM_GOAL_MS = 2;
const WARM_GOAL_RATIO = 10;
const COLD_GOAL_MS = 13;
const DEBUG_GOALS = { startToReadyMs: 160, withoutContextMs: 1.3, withContextMs: 3.1 };

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const r3 = (n: number) => Number(n.toFixed(3));
const r2 = (n: number) => Number(n.toFixed(2));

interface Answer {
  result?: { isError?: boolean; structuredContent?: Record<string, any>; content?: unknown };
  error?: unknown;
}

/** A bare JSON-RPC session with one built server over its stdio. */
class Raw {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, (m: Answer) => void>();
  private buffer = '';
  private id = 0;

  constructor(entry: string, env: Record<string, string>) {
    this.child = spawn(process.execPath, [entry, 'serve'], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.resume();
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (let i = this.buffer.indexOf('\n'); i >= 0; i = this.buffer.indexOf('\n')) {
        const message = JSON.parse(this.buffer.slice(0, i));
        this.buffer = this.buffer.slice(i + 1);
        if (message.id !== undefined) this.waiting.get(message.id)?.(message);
      }
    });
  }

  request(method: string, params: unknown): Promise<Answer> {
    return new Promise((resolve) => {
      const id = ++this.id;
      this.waiting.set(id, (m) => {
        this.waiting.delete(id);
        resolve(m);
      });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  async open(): Promise<void> {
    await this.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'bench', version: '1' },
    });
    this.child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await this.request('tools/list', {});
  }

  /** One tool call, timed from the request written to the answer read. */
  async call(name: string, args: Record<string, unknown>): Promise<[number, Record<string, any>]> {
    const started = performance.now();
    const answer = await this.request('tools/call', { name, arguments: args });
    const ms = performance.now() - started;
    if (!answer.result || answer.result.isError)
      throw new Error(`${name}: ${JSON.stringify(answer.result?.content ?? answer.error)}`);
    return [ms, answer.result.structuredContent ?? {}];
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.stdin.end();
    });
  }
}

/** The builds measured: this one, and the baseline's when RE_MCP_BENCH_BASELINE names one. */
function builds(): Array<[string, string]> {
  const baseline = process.env.RE_MCP_BENCH_BASELINE;
  if (!baseline) return [['after', SERVER_ENTRY]];
  const entry = baseline.endsWith('.js') ? baseline : join(baseline, 'dist', 'index.js');
  if (!existsSync(entry)) throw new Error(`RE_MCP_BENCH_BASELINE: ${entry} does not exist`);
  return [
    ['before', entry],
    ['after', SERVER_ENTRY],
  ];
}

const QUESTIONS = ['nds_find_xrefs', 'nds_function_at', 'nds_discover_functions page'] as const;
type QuestionName = (typeof QUESTIONS)[number];

/** The map's own answer to each question in this process: the floor of the warm figures. */
async function floors(root: string, rom: string, target: number): Promise<Record<QuestionName, number>> {
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  const store = getRomStore(services);
  return store.withRom(rom, async (h) => {
    const map = await getProgramMaps(services).map(store, h, {
      processor: 'arm9',
      evidence: EVIDENCE_IDS,
      maxCodeBytes: MAP_LIMITS.maxCodeBytes.default,
      maxSeconds: MAP_LIMITS.maxSeconds.default,
    });
    const queries: Record<QuestionName, () => unknown> = {
      nds_find_xrefs: () => map.xrefs(target, 'heuristic'),
      nds_function_at: () => map.holders(target, 'heuristic'),
      'nds_discover_functions page': () =>
        map.functions
          .filter((f) => TIER_RANK[f.tier] <= TIER_RANK.heuristic)
          .slice(0, 48)
          .map((f) => map.callSitesOf(f).length),
    };
    const out = {} as Record<QuestionName, number>;
    for (const q of QUESTIONS) {
      const times: number[] = [];
      for (let i = 0; i < WARM_RUNS * 5; i++) {
        const started = performance.now();
        queries[q]();
        times.push(performance.now() - started);
      }
      out[q] = median(times);
    }
    return out;
  });
}

/** The warm figures on one ROM: every build's server, interleaved call by call. */
async function warmOn(root: string, rom: string, label: string) {
  const sessions = builds().map(([name, entry]) => ({
    name,
    raw: new Raw(entry, { RE_MCP_WORKSPACE_ROOT: root, RE_MCP_PROFILE: 'full' }),
  }));
  try {
    const base = { rom, processor: 'arm9', scope: 'program' };
    let target = 0;
    const cold: Record<string, number> = {};
    for (const s of sessions) {
      await s.raw.open();
      const [ms, busiest] = await s.raw.call('nds_discover_functions', {
        ...base,
        order: 'callers',
        limit: 1,
      });
      cold[s.name] = Math.round(ms);
      target = Number.parseInt(busiest.functions[0].identity.address, 16);
    }
    const args: Record<QuestionName, Record<string, unknown>> = {
      nds_find_xrefs: { ...base, address: `0x${target.toString(16)}` },
      nds_function_at: { ...base, address: `0x${target.toString(16)}` },
      'nds_discover_functions page': base,
    };
    const tool = (q: QuestionName) => q.split(' ')[0]!;
    const times = new Map(sessions.map((s) => [s.name, new Map(QUESTIONS.map((q) => [q, [] as number[]]))]));
    for (let i = 0; i < WARM_RUNS + 3; i++)
      for (const q of QUESTIONS)
        for (const s of sessions) {
          const [ms] = await s.raw.call(tool(q), args[q]);
          if (i >= 3) times.get(s.name)!.get(q)!.push(ms);
        }
    // The transport's own floor: an MCP ping's round trip on the same session (nothing of a tool).
    const pings = new Map(sessions.map((s) => [s.name, [] as number[]]));
    for (let i = 0; i < WARM_RUNS; i++)
      for (const s of sessions) {
        const started = performance.now();
        await s.raw.request('ping', {});
        pings.get(s.name)!.push(performance.now() - started);
      }
    const floor = await floors(root, rom, target);
    const out: Record<string, unknown> = {
      rom: label,
      target: `0x${target.toString(16)} (the most called function)`,
      mapColdMs: cold,
      pingRoundTripMs: Object.fromEntries([...pings].map(([n, t]) => [n, r3(median(t))])),
    };
    for (const q of QUESTIONS) {
      const entry: Record<string, unknown> = {
        floorMs: r3(floor[q]),
        goal: `<= ${WARM_GOAL_MS} ms and <= ${WARM_GOAL_RATIO}x the floor`,
      };
      for (const s of sessions) {
        const ms = median(times.get(s.name)!.get(q)!);
        const ping = median(pings.get(s.name)!);
        entry[s.name] = {
          medianMs: r3(ms),
          ratio: r2(ms / floor[q]),
          // Beside it, against the floor plus the transport's own round trip (an MCP ping on the same
          // session): what a call through MCP could cost at best, where the ping alone is many floors.
          ratioToFloorPlusPing: r2(ms / (floor[q] + ping)),
          met: ms <= WARM_GOAL_MS && ms / floor[q] <= WARM_GOAL_RATIO,
        };
      }
      out[q] = entry;
    }
    return out;
  } finally {
    for (const s of sessions) await s.raw.close();
  }
}

/** The first call of a fresh process, per tool: every build's, run by run. */
async function coldFirstCalls(root: string, rom: string) {
  const calls: Array<[string, Record<string, unknown>]> = [
    ['nds_inspect_rom', { rom }],
    ['nds_list_files', { rom }],
    ['nds_resolve_runtime_address', { rom, processor: 'arm9', address: '0x02000000' }],
  ];
  const out: Record<string, unknown> = {
    note: `after initialize + tools/list; goal ${COLD_GOAL_MS} ms (RE-MCP 0.6 is not installed here: a fixed goal)`,
  };
  for (const [name, args] of calls) {
    const times = new Map(builds().map(([b]) => [b, [] as number[]]));
    for (let i = 0; i < COLD_RUNS; i++)
      for (const [b, entry] of builds()) {
        const raw = new Raw(entry, { RE_MCP_WORKSPACE_ROOT: root, RE_MCP_PROFILE: 'full' });
        await raw.open();
        times.get(b)!.push((await raw.call(name, args))[0]);
        await raw.close();
      }
    const entry: Record<string, unknown> = { goalMs: COLD_GOAL_MS };
    for (const [b, t] of times)
      entry[b] = {
        medianMs: r2(median(t)),
        minMs: r2(Math.min(...t)),
        ratioToGoal: r2(median(t) / COLD_GOAL_MS),
        met: median(t) <= COLD_GOAL_MS,
      };
    out[name] = entry;
  }
  return out;
}

/** The debugger's figures, each build in turn, round by round. */
async function debuggerFigures(root: string) {
  if (!existsSync(DESMUME_CLI)) return { skipped: `${DESMUME_CLI} is not installed` };
  const rom = writeDebugTargetRom(join(root, 'debug.nds'));
  const hex = (n: number) => `0x${n.toString(16)}`;
  const figures = new Map(
    builds().map(([b]) => [b, { start: [] as number[], bare: [] as number[], ctx: [] as number[] }]),
  );
  try {
    for (let round = 0; round < DEBUG_ROUNDS; round++)
      for (const [b, entry] of builds()) {
        const f = figures.get(b)!;
        const raw = new Raw(entry, { RE_MCP_WORKSPACE_ROOT: root, RE_MCP_PROFILE: 'runtime' });
        try {
          await raw.open();
          for (let i = 0; i < 3; i++) {
            const [a] = await raw.call('desmume_start', { romPath: 'debug.nds' });
            const [w] = await raw.call('desmume_wait_for_gdb', {});
            f.start.push(a + w);
            if (i < 2) await raw.call('desmume_stop', {});
          }
          await raw.call('desmume_breakpoint_add', { address: hex(rom.symbols.armIncrement), mode: 'arm' });
          for (let i = 0; i < DEBUG_RUNS + 2; i++) {
            const [ms, run] = await raw.call('desmume_continue', { captureContext: false });
            if (Number.parseInt(run.stop?.pc, 16) !== rom.symbols.armIncrement)
              throw new Error(`continue stopped at ${run.stop?.pc}`);
            if (i >= 2) f.bare.push(ms);
          }
          for (let i = 0; i < DEBUG_RUNS + 2; i++) {
            const [ms] = await raw.call('desmume_continue', {});
            if (i >= 2) f.ctx.push(ms);
          }
          await raw.call('desmume_stop', {});
        } finally {
          await raw.close();
          killDesmumeProcesses(root);
        }
      }
  } finally {
    killDesmumeProcesses(root);
  }
  const out: Record<string, unknown> = { goals: DEBUG_GOALS };
  for (const [b, f] of figures) {
    const s = median(f.start);
    const bare = median(f.bare);
    const ctx = median(f.ctx);
    out[b] = {
      startToReadyMs: {
        median: r2(s),
        ratioToGoal: r2(s / DEBUG_GOALS.startToReadyMs),
        runs: f.start.length,
      },
      roundTripWithoutContextMs: {
        median: r2(bare),
        ratioToGoal: r2(bare / DEBUG_GOALS.withoutContextMs),
        runs: f.bare.length,
      },
      roundTripWithContextMs: {
        median: r2(ctx),
        ratioToGoal: r2(ctx / DEBUG_GOALS.withContextMs),
        runs: f.ctx.length,
      },
      met:
        s <= DEBUG_GOALS.startToReadyMs &&
        bare <= DEBUG_GOALS.withoutContextMs &&
        ctx <= DEBUG_GOALS.withContextMs,
    };
  }
  return out;
}

/** RE_MCP_BENCH_FLOORS=warm,cold,debug picks parts (default all). */
export async function benchFloors(): Promise<Record<string, unknown>> {
  const root = await makeWorkspace('re-mcp-bench-floors-');
  const parts = (process.env.RE_MCP_BENCH_FLOORS ?? 'warm,cold,debug').split(',');
  try {
    mkdirSync(join(root, 'roms'));
    writeFileSync(join(root, 'roms/program.nds'), kitRomBytes('arm9-program', 'arm7-program'));
    copyFileSync(sharedRomPath('dslua-pack.nds'), join(root, 'roms/dslua.nds'));
    copyFileSync(sharedRomPath('basic-first-game.nds'), join(root, 'roms/small.nds'));
    const out: Record<string, unknown> = { builds: Object.fromEntries(builds()) };
    if (parts.includes('warm'))
      out.warmAnswers = [
        await warmOn(root, 'roms/program.nds', "the kit's realistic ARM9 program"),
        await warmOn(root, 'roms/dslua.nds', 'dslua-pack.nds (the largest corpus ROM)'),
      ];
    if (parts.includes('cold')) out.firstCallInFreshProcess = await coldFirstCalls(root, 'roms/small.nds');
    if (parts.includes('debug')) out.debugger = await debuggerFigures(root);
    return out;
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
