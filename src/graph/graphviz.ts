// Graphviz layout, run in a worker thread of its own: Graphviz compiled to WebAssembly (@viz-js/viz)
// lays a DOT graph out and writes it as JSON (the positions and xdot drawing operations raster.ts
// draws) and SVG. The worker is what makes the layout bounded in time: Graphviz runs synchronously
// and cannot be interrupted from inside, so a layout that outlives its deadline, or whose caller
// cancels, is ended by terminating the thread. Its heap is capped too. A fresh worker per layout:
// nothing of one graph's layout can leak into the next.
// Under load: each layout's worker reserves its memory from the server's budget, and runs as a worker
// job (one per core at once, its deadline counted from its start: core/worker-run.ts), so the time it
// waited never counts against it. A layout Graphviz refuses is `unsupported`, a worker that dies (a
// crash inside Graphviz, its heap exhausted) `limit-exceeded`.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { ReMcpError } from '../core/errors.js';
import type { MemoryBudget } from '../core/memory-budget.js';
import { runInWorker } from '../core/worker-run.js';

interface Layout {
  /** Graphviz's JSON output (-Tjson): bounding box, objects and edges with their drawing operations. */
  json: unknown;
  /** Present when asked for. */
  svg: string | null;
  millis: number;
}

/** Layout time allowed by default and at most, in milliseconds. */
export const LAYOUT_TIME = { default: 10_000, max: 60_000 } as const;
/** The worker's JavaScript heap (Graphviz's own WebAssembly memory grows with the graph, bounded by its size). */
const WORKER_HEAP_MB = 256;
/** What one layout's worker may hold: its heap cap, Graphviz's WebAssembly memory, the thread itself. */
const LAYOUT_MEMORY_BYTES = (WORKER_HEAP_MB + 128) * 1024 * 1024;

// Runs inside the worker (CommonJS, evaluated): loads Graphviz and renders each format asked for.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
require(workerData.viz).instance().then((viz) => {
  const out = {};
  for (const format of workerData.formats) {
    const r = viz.render(workerData.dot, { format });
    if (r.status !== 'success') {
      parentPort.postMessage({ error: r.errors.map((e) => e.message).join('; ') || 'layout failed' });
      return;
    }
    out[format] = r.output;
  }
  parentPort.postMessage({ output: out });
}, (e) => parentPort.postMessage({ error: 'Graphviz did not load: ' + (e && e.message ? e.message : String(e)) }));
`;

/**
 * Where Graphviz is: beside the bundle in a built or installed server (the build copies it there), or
 * the development dependency in a checkout.
 */
function vizPath(): string {
  const beside = fileURLToPath(new URL('./viz.cjs', import.meta.url));
  if (existsSync(beside)) return beside;
  try {
    return createRequire(import.meta.url).resolve('@viz-js/viz');
  } catch {
    throw new ReMcpError('not-configured', 'Graphviz (@viz-js/viz) is not installed beside the server');
  }
}

/**
 * Lays `dot` out: JSON always, SVG when `svg` is set. Ends with `timeout` `timeoutMs` after the layout
 * starts (waiting for a core or for `memory` is not counted).
 */
export async function layout(
  dot: string,
  options: { svg: boolean; timeoutMs: number; signal?: AbortSignal; memory?: MemoryBudget },
): Promise<Layout> {
  const wait = options.signal ? { signal: options.signal } : {};
  const memory = await options.memory?.reserve(LAYOUT_MEMORY_BYTES, 'a graph layout', wait);
  try {
    return await layoutNow(dot, options);
  } finally {
    memory?.release();
  }
}

async function layoutNow(
  dot: string,
  options: { svg: boolean; timeoutMs: number; signal?: AbortSignal },
): Promise<Layout> {
  const started = Date.now();
  const formats = options.svg ? ['json', 'svg'] : ['json'];
  const answer = await runInWorker<{ output?: Record<string, string>; error?: string }>(
    WORKER_SOURCE,
    { viz: vizPath(), dot, formats },
    {
      what: 'the graph layout',
      timeoutMs: options.timeoutMs,
      heapMb: WORKER_HEAP_MB,
      failure: 'limit-exceeded',
      signal: options.signal,
    },
  );
  if (!answer.output)
    throw new ReMcpError(
      'unsupported',
      `Graphviz could not lay this graph out: ${answer.error ?? 'no reason given'}`,
    );
  const output = answer.output;
  let json: unknown;
  try {
    json = JSON.parse(output.json ?? '');
  } catch {
    throw new ReMcpError('unsupported', 'Graphviz returned a layout that is not JSON');
  }
  return { json, svg: output.svg ?? null, millis: Date.now() - started };
}
