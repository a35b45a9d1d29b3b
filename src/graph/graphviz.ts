// Graphviz layout, run in a worker thread of its own: Graphviz compiled to WebAssembly (@viz-js/viz)
// lays a DOT graph out and writes it as JSON (the positions and xdot drawing operations raster.ts
// draws) and SVG. The worker is what makes the layout bounded in time: Graphviz runs synchronously
// and cannot be interrupted from inside, so a layout that outlives its deadline, or whose caller
// cancels, is ended by terminating the thread. Its heap is capped too. A fresh worker per layout:
// nothing of one graph's layout can leak into the next.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { ReMcpError, throwIfCancelled } from '../core/errors.js';

export interface Layout {
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
    throw new ReMcpError('not-configured', 'Graphviz (@viz-js/viz) is not installed beside the server', {
      looked: beside,
    });
  }
}

/** Lays `dot` out: JSON always, SVG when `svg` is set. Ends with `timeout` after `timeoutMs`. */
export async function layout(
  dot: string,
  options: { svg: boolean; timeoutMs: number; signal?: AbortSignal },
): Promise<Layout> {
  throwIfCancelled(options.signal);
  const started = Date.now();
  const formats = options.svg ? ['json', 'svg'] : ['json'];
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { viz: vizPath(), dot, formats },
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    stdout: true,
    stderr: true,
  });
  // Graphviz's messages go to its own arrays; anything else the thread prints is dropped, never the
  // server's stdout (which carries the protocol only).
  worker.stdout.resume();
  worker.stderr.resume();
  const output = await new Promise<Record<string, string>>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | null, value?: Record<string, string>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      if (error) reject(error);
      else resolve(value!);
    };
    const timer = setTimeout(
      () =>
        finish(
          new ReMcpError(
            'timeout',
            `the graph layout took longer than ${options.timeoutMs} ms and was stopped`,
            {
              timeoutMs: options.timeoutMs,
            },
          ),
        ),
      options.timeoutMs,
    );
    const onAbort = () => finish(new ReMcpError('cancelled', 'the graph layout was cancelled'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (m: { output?: Record<string, string>; error?: string }) => {
      if (m.output) finish(null, m.output);
      else
        finish(
          new ReMcpError('internal-error', `Graphviz refused the graph: ${m.error ?? 'no reason given'}`),
        );
    });
    worker.on('error', (e) =>
      finish(
        new ReMcpError(
          'internal-error',
          `the graph layout stopped: ${e instanceof Error ? e.message : String(e)}`,
        ),
      ),
    );
    worker.on('exit', (code) =>
      finish(new ReMcpError('internal-error', `the graph layout ended without an answer (exit ${code})`)),
    );
  });
  let json: unknown;
  try {
    json = JSON.parse(output.json ?? '');
  } catch {
    throw new ReMcpError('internal-error', 'Graphviz returned a layout that is not JSON');
  }
  return { json, svg: output.svg ?? null, millis: Date.now() - started };
}
