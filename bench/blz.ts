// BLZ figures: encode and decode throughput over the shared inputs (../shared/blz/in) and, per input,
// our blob size next to CUE's greedy and optimal ones. Best of a few runs after a warm-up, so JIT
// warm-up and a busy shared machine skew the figure less.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { blzDecode, blzEncode } from '../src/formats/blz/index.js';
import { sharedBlzDir } from '../test/kit/shared-data.js';

const RUNS = 3;

function best(run: () => void): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    run();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

const mbps = (bytes: number, ms: number) => Number((bytes / 1e3 / ms).toFixed(2));

export async function benchBlz(): Promise<Record<string, unknown>> {
  const names = readdirSync(join(sharedBlzDir(), 'in')).sort();
  const read = (dir: string, name: string) => new Uint8Array(readFileSync(join(sharedBlzDir(), dir, name)));
  for (const name of names) blzDecode(blzEncode(read('in', name))); // warm-up

  let bytes = 0;
  let encodeMs = 0;
  let decodeMs = 0;
  let totals = { ours: 0, greedy: 0, optimal: 0 };
  const sizes: Array<Record<string, unknown>> = [];
  for (const name of names) {
    const input = read('in', name);
    let blob: Uint8Array = new Uint8Array(0);
    const encode = best(() => {
      blob = blzEncode(input);
    });
    const decode = best(() => blzDecode(blob));
    const greedy = read('cue-greedy', name).length;
    const optimal = read('cue-optimal', name).length;
    bytes += input.length;
    encodeMs += encode;
    decodeMs += decode;
    totals = {
      ours: totals.ours + blob.length,
      greedy: totals.greedy + greedy,
      optimal: totals.optimal + optimal,
    };
    sizes.push({
      name,
      input: input.length,
      ours: blob.length,
      greedy,
      optimal,
      encodeMs: Number(encode.toFixed(1)),
    });
  }
  return {
    inputs: names.length,
    inputBytes: bytes,
    encodeMBps: mbps(bytes, encodeMs),
    decodeMBps: mbps(bytes, decodeMs),
    note: 'encode includes its in-place self-check decode; MB = 10^6 bytes of input',
    totals,
    sizes,
  };
}
