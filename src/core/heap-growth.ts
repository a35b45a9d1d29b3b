// How far V8 lets the heap grow past what the last full collection kept. After each full collection V8
// sets the next one's trigger at the live size times a factor it picks from how fast the collector and
// the program run: on a heap that keeps growing (a whole-program map's live set grows from nothing to
// about 90 MB for 4 MiB of code) that factor reaches 2-4, so the heap held twice its live bytes and a
// 4 MiB map peaked at 314-346 MB of RSS. With the factor fixed at 1.1 the same map peaks at 270-277 MB
// in the same time (side by side), because the walk's garbage is short-lived and most of each full
// collection's work is the live set it would mark anyway.
//
// The flag is V8's own (--heap-growing-percent), read at every full collection, so setting it while
// running takes effect at once. It is set before the first map build (the program-map service), not at
// start-up, and node:v8 is loaded only then, not when this module is: loading it costs 1-3 ms that the
// first answer of a fresh server would pay (the program-map service is imported by tools that never
// build a map, nds_resolve_runtime_address among them). A process started with its own value (in its
// arguments or NODE_OPTIONS) keeps that value.
import { createRequire } from 'node:module';

/** The old generation may grow this many percent past the live size before the next full collection. */
export const HEAP_GROWING_PERCENT = 10;

let settled = false;

/** True when the process was given its own heap-growing percent. */
export function ownHeapGrowth(execArgv: readonly string[], nodeOptions: string | undefined): boolean {
  const given = (s: string) => /--heap[-_]growing[-_]percent\b/.test(s);
  return execArgv.some(given) || given(nodeOptions ?? '');
}

/**
 * Sets the growing percent once per process, unless the process has its own; returns whether this
 * call set it (false when it was set before, or is the process's own). Never throws.
 */
export function limitHeapGrowth(): boolean {
  if (settled) return false;
  settled = true;
  if (ownHeapGrowth(process.execArgv, process.env.NODE_OPTIONS)) return false;
  try {
    // Loaded here, on the first map build: see above.
    const v8 = createRequire(import.meta.url)('node:v8') as typeof import('node:v8');
    v8.setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    return true;
  } catch {
    return false;
  }
}
