// The assembler, warm: one line and 1,000 lines, each judged against its floor measured in the same
// run, interleaved: armips' WebAssembly run in this process, its module compiled once and instantiated
// per assembly (what one assembly cannot do with less), on the same wrapped source. Figures:
// - assemble() in process (the kept worker: a message each way and a fresh instance);
// - nds_assemble through the stdio server (adds the protocol, the source checks, decoding the bytes
//   back and rendering).
// Each as a median over WARM_RUNS after warm-up, and as a ratio to the floor (goal <= 1.3).
// BENCH_BASELINE=<another checkout with its node_modules and a built dist/> measures that tree's
// assemble() and server too, interleaved in the same rounds ("before" beside "after").
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { makeWorkspace } from '../test/kit/mcp-harness.js';
import { connect } from './server.js';

const WARM_RUNS = 25;
const WARM_UP = 5;
const GOAL = 1.3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
const round2 = (n: number) => Number(n.toFixed(2));

const SOURCES = {
  oneLine: 'mov r0, #1',
  thousandLines: Array.from({ length: 1000 }, (_, i) => `add r${i % 8}, r${(i + 3) % 8}, #${i % 256}`).join(
    '\n',
  ),
};

type Assemble = (req: {
  source: string;
  processor: 'arm9';
  mode: 'arm';
  address: number;
  labels: Map<string, number>;
}) => Promise<{ bytes: Uint8Array }>;

interface Tree {
  label: string;
  assemble: Assemble;
  wrap: (source: string) => string;
  entry: string;
}

async function tree(root: string, label: string): Promise<Tree> {
  const armips = (await import(join(root, 'src/asm/armips.ts'))) as { assemble: Assemble };
  const source = (await import(join(root, 'src/asm/source.ts'))) as {
    wrapSource: (
      s: string,
      req: { processor: 'arm9'; mode: 'arm'; address: number; labels: Map<string, number> },
    ) => string;
  };
  return {
    label,
    assemble: armips.assemble,
    wrap: (s) =>
      source.wrapSource(s, { processor: 'arm9', mode: 'arm', address: 0x02000000, labels: new Map() }),
    entry: join(root, 'dist', 'index.js'),
  };
}

/**
 * armips in this process: the module compiled once, a new instance per assembly (`compiledOnce`: the
 * floor), or loaded by armips' own loader per assembly (`loadedPerCall`: what the issue first measured).
 */
async function floors(): Promise<
  Record<'compiledOnce' | 'loadedPerCall', (wrapped: string) => Promise<number>>
> {
  const index = createRequire(import.meta.url).resolve('armips/index.js');
  const factory = ((await import(index)) as { default: (m: unknown) => Promise<{ FS: any }> }).default;
  // The WebAssembly API, typed as far as this file uses it (the project's lib has no DOM types).
  const WA = (
    globalThis as unknown as {
      WebAssembly: {
        compile(bytes: Uint8Array): Promise<object>;
        instantiate(module: object, imports: unknown): Promise<object>;
      };
    }
  ).WebAssembly;
  const wasm = await WA.compile(readFileSync(join(dirname(index), 'armips.wasm')));
  const run = async (wrapped: string, compiled: boolean) => {
    const own = {
      instantiateWasm: (imports: unknown, receive: (instance: object, module: object) => void) => {
        void WA.instantiate(wasm, imports).then((instance) => receive(instance, wasm));
        return {};
      },
    };
    const mod = await factory({
      argv: ['', '', 'asm.s'],
      log: () => {},
      error: () => {},
      ...(compiled ? own : {}),
      preRun: (m: { FS: any }) => m.FS.writeFile('asm.s', new TextEncoder().encode(wrapped)),
    });
    return (mod.FS.readFile('out.bin') as Uint8Array).length;
  };
  return { compiledOnce: (w) => run(w, true), loadedPerCall: (w) => run(w, false) };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

export async function benchAsm(): Promise<Record<string, unknown>> {
  const workspace = await makeWorkspace('re-mcp-bench-asm-');
  const trees = [await tree(join(import.meta.dirname, '..'), 'after')];
  const baseline = process.env.BENCH_BASELINE;
  if (baseline) trees.push(await tree(baseline, 'before'));
  const floor = await floors();
  const clients = await Promise.all(
    trees.map((t) =>
      connect([t.entry, 'serve'], { RE_MCP_WORKSPACE_ROOT: workspace, RE_MCP_PROFILE: 'full' }),
    ),
  );
  try {
    const out: Record<string, unknown> = {};
    for (const [name, source] of Object.entries(SOURCES)) {
      const wrapped = trees[0]!.wrap(source);
      const samples: Record<string, number[]> = {};
      const steps: Array<[string, () => Promise<unknown>]> = [
        ['floorMs', () => floor.compiledOnce(wrapped)],
        ['loadedPerCallMs', () => floor.loadedPerCall(wrapped)],
      ];
      trees.forEach((t, i) => {
        steps.push([
          `${t.label}.assembleMs`,
          () =>
            t.assemble({ source, processor: 'arm9', mode: 'arm', address: 0x02000000, labels: new Map() }),
        ]);
        steps.push([
          `${t.label}.toolMs`,
          async () => {
            const r = (await clients[i]!.callTool({
              name: 'nds_assemble',
              arguments: { processor: 'arm9', mode: 'arm', address: '0x02000000', source },
            })) as { isError?: boolean };
            if (r.isError) throw new Error(`nds_assemble failed: ${JSON.stringify(r)}`);
          },
        ]);
      });
      for (let round = 0; round < WARM_UP + WARM_RUNS; round++) {
        // Every other round in reverse order: no figure always follows the same one.
        for (const [key, step] of round % 2 === 0 ? steps : [...steps].reverse()) {
          const ms = await timed(step);
          if (round < WARM_UP) continue;
          samples[key] ??= [];
          samples[key].push(ms);
        }
      }
      const floorMs = median(samples.floorMs!);
      const loaded = median(samples.loadedPerCallMs!);
      const figures: Record<string, unknown> = {
        floorMs: round2(floorMs),
        armipsLoadedPerCallMs: round2(loaded),
      };
      for (const t of trees) {
        const asm = median(samples[`${t.label}.assembleMs`]!);
        const tool = median(samples[`${t.label}.toolMs`]!);
        figures[t.label] = {
          assembleMs: round2(asm),
          assembleRatio: round2(asm / floorMs),
          toolMs: round2(tool),
          toolRatio: round2(tool / floorMs),
          toolRatioToLoadedPerCall: round2(tool / loaded),
        };
      }
      figures.ratioGoal = GOAL;
      out[name] = figures;
    }
    return {
      ...out,
      notes:
        'medians of interleaved warm runs; floor: armips WebAssembly in this process, compiled once, a new instance per assembly, same wrapped source; assembleRatio: assemble() / floor (the goal applies to it); toolRatio: nds_assemble through the stdio server (adds the protocol, checks, decoding back, rendering) / floor; toolRatioToLoadedPerCall: the same against armips loaded by its own loader per assembly in this process',
    };
  } finally {
    await Promise.all(clients.map((c) => c.close()));
    const { rm } = await import('node:fs/promises');
    await rm(workspace, { recursive: true, force: true });
  }
}
