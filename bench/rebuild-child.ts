// Child of the rebuild bench: runs one nds_mutation_build through the service in a fresh process
// and prints {ms, peakRssMiB} (VmHWM), so the peak belongs to the build alone.
import { readFileSync } from 'node:fs';
import { RomStore } from '../src/nds/rom-store.js';
import { buildManifest } from '../src/rebuild/service.js';
import { Workspace } from '../src/workspace/workspace.js';

const [root, rom, manifest] = process.argv.slice(2) as [string, string, string];
const workspace = new Workspace(root);
const store = new RomStore(workspace);
// Identify first (the hash of a fresh ROM is the RomStore's cost, not the build's).
await store.withRom(rom, () => undefined);
const started = performance.now();
const r = await store.withRom(rom, (h) =>
  buildManifest(workspace, h, manifest, {
    onStep: (s) => {
      if (process.env.BENCH_STEPS) process.stderr.write(`${s} ${Math.round(performance.now() - started)}\n`);
    },
  }),
);
const ms = performance.now() - started;
const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
process.stdout.write(
  `${JSON.stringify({ ms: Math.round(ms), peakRssMiB: Math.round(Number(hwm?.[1] ?? 0) / 1024), outputSize: r.outputSize })}\n`,
);
