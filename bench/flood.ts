// The mixed flood's figures (issue 48) against their goals: the server's limit of 32 running calls,
// mixed (hostile ELF imports, BPS bombs, whole-program maps of distinct ROMs, assemblies, graphs and
// workspace listings, test/hardening/mixed-flood.ts), sent at once to the built server while a ping is
// sent every 50 ms, and for 5 s before the calls to the idle server (the machine's own delays, side by
// side). Goals: peak RSS (VmHWM) at most 2 GiB and every ping answered within 250 ms while the calls
// run. Runs: the CI test's size (the kit program, 192 MiB patch results) on a fresh server (ci) and on
// one that made each kind of call once before (ciWarm: the first use of each tool's code apart from
// the flood's own work), the acceptance size of the long campaign (long: 12 MiB programs, 512 MiB
// patch results), and each kind of call of the mix by itself at the CI size (alone: which of them holds
// the pings). RE_MCP_BENCH_FLOOD=<run> runs only that one.
// The latencies are measured by this process's clock and event loop: on a loaded machine they include
// its own delays, so the load average is reported with them, and so is the CPU time of the server
// during the calls: its main thread on a CPU and runnable but waiting for one (what the machine's other
// load costs the pings), and all its threads together (workers included).
import { rm } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { type FloodFigures, type FloodSizes, runMixedFlood } from '../test/hardening/mixed-flood.js';
import { makeWorkspace } from '../test/kit/mcp-harness.js';

const GOAL_PEAK_RSS_MIB = 2048;
const GOAL_PING_MS = 250;
const MIB = 1024 * 1024;

const SIZES: Record<string, FloodSizes> = {
  ci: { mapCodeBytes: null, bombBytes: 192 * MIB, seconds: 240, pingEveryMs: 50, idleSeconds: 5 },
  ciWarm: {
    mapCodeBytes: null,
    bombBytes: 192 * MIB,
    seconds: 240,
    pingEveryMs: 50,
    idleSeconds: 5,
    warm: true,
  },
  long: { mapCodeBytes: 12 * MIB, bombBytes: 512 * MIB, seconds: 900, pingEveryMs: 50, idleSeconds: 5 },
};

/** The kinds of call in the mix. */
const KINDS = [
  'nds_symbols',
  'nds_patch_apply',
  'nds_program_map',
  'nds_assemble',
  'nds_function_graph',
  'list_workspace_files',
];

export async function benchFlood(): Promise<Record<string, unknown>> {
  const only = process.env.RE_MCP_BENCH_FLOOD;
  const results: Record<string, unknown> = {
    goals: { peakRssMiB: GOAL_PEAK_RSS_MIB, pingMs: GOAL_PING_MS },
  };
  for (const [name, sizes] of Object.entries(SIZES)) {
    if (only && only !== name) continue;
    const root = await makeWorkspace(`re-mcp-bench-flood-${name}-`);
    const loadBefore = loadavg()[0]!;
    let f: FloodFigures;
    try {
      f = await runMixedFlood(root, sizes);
    } catch (error) {
      // One run that cannot be made is reported as such; the others still are.
      results[name] = { error: error instanceof Error ? error.message : String(error) };
      continue;
    } finally {
      await rm(root, { recursive: true, force: true });
    }
    const { stderrTail, problems, ...figures } = f;
    results[name] = {
      mapCodeBytes: sizes.mapCodeBytes ?? 'kit program',
      bombBytes: sizes.bombBytes,
      ...figures,
      machine: {
        cores: availableParallelism(),
        loadAverage1mBefore: Math.round(loadBefore * 100) / 100,
        loadAverage1mAfter: Math.round(loadavg()[0]! * 100) / 100,
      },
      met: {
        peakRss: f.peakRssMiB <= GOAL_PEAK_RSS_MIB,
        pings: f.pings.answered === f.pings.sent && f.pings.slowestMs <= GOAL_PING_MS,
        everyCallAnswered: f.calls.answered === f.calls.total && problems.length === 0,
      },
      ...(problems.length > 0 ? { problems, stderrTail } : {}),
    };
  }
  // Each kind of call alone, as many as in the mix, at the CI size: which of them holds the pings.
  if (!only || only === 'alone') {
    const alone: Record<string, unknown> = {};
    for (const tool of KINDS) {
      const root = await makeWorkspace('re-mcp-bench-flood-alone-');
      try {
        const f = await runMixedFlood(root, { ...SIZES.ci!, idleSeconds: 0, tools: [tool] });
        alone[tool] = {
          calls: f.calls,
          peakRssMiB: f.peakRssMiB,
          seconds: f.seconds,
          pingP50Ms: f.pings.p50Ms,
          pingP95Ms: f.pings.p95Ms,
          pingSlowestMs: f.pings.slowestMs,
          pingsOver250Ms: `${f.pings.over250Ms} of ${f.pings.sent}`,
          cpu: f.cpu,
        };
      } finally {
        await rm(root, { recursive: true, force: true });
      }
    }
    results.aloneAtCiSize = alone;
  }
  return results;
}
