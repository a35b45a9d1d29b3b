// Child of the rebuild bench: runs one nds_mutation_build through the service in a fresh process
// and prints {ms, writeMs, cpuUserMs, cpuSystemMs, peakRssMiB (VmHWM), outputSha256}, so the peak belongs
// to the build alone; then one nds_mutation_verify of what it built (verifyMs: every byte of the
// source and the output read again and checked, the evidence compared). BENCH_REBUILD_FLUSH_MIB sets the early-flush interval of the ROM write (a variant).
import { readFileSync } from 'node:fs';
import { buildManifest, verifyBuild } from '../src/rebuild/service.js';
import { RomStore } from '../src/roms/rom-store.js';
import * as streamWrite from '../src/workspace/stream-write.js';
import { Workspace } from '../src/workspace/workspace.js';

const flushMiB = process.env.BENCH_REBUILD_FLUSH_MIB;
if (flushMiB) {
  // A tree from before the parameter was exported cannot take the variant: refuse rather than mislabel.
  const writing = (streamWrite as { streamWriting?: { earlyFlushBytes: number } }).streamWriting;
  if (!writing) throw new Error('this tree has no streamWriting parameters');
  writing.earlyFlushBytes = Number(flushMiB) * 1024 * 1024;
}

const [root, rom, manifest] = process.argv.slice(2) as [string, string, string];
const workspace = new Workspace(root);
const store = new RomStore(workspace);
// Identify first (the hash of a fresh ROM is the RomStore's cost, not the build's).
await store.withRom(rom, () => undefined);
const cpuBefore = process.cpuUsage();
const started = performance.now();
let writeMs: number | null = null;
const r = await store.withRom(rom, (h) =>
  buildManifest(workspace, h, manifest, {
    onStep: (s) => {
      const at = Math.round(performance.now() - started);
      // Source read, hashed, written with the pieces, output hashed, fsynced and renamed.
      if (s === 'rom-written') writeMs = at;
      if (process.env.BENCH_STEPS) process.stderr.write(`${s} ${at}\n`);
    },
  }),
);
const ms = performance.now() - started;
// CPU of the whole process (every thread): the figure that load on the machine does not change.
const cpu = process.cpuUsage(cpuBefore);
const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
const verifyStarted = performance.now();
const verified = await store.withRom(rom, (h) => verifyBuild(workspace, h, manifest));
const verifyMs = Math.round(performance.now() - verifyStarted);
if (verified.outputSha256 !== r.outputSha256) throw new Error('verify found another output');
process.stdout.write(
  `${JSON.stringify({ ms: Math.round(ms), writeMs, cpuUserMs: Math.round(cpu.user / 1000), cpuSystemMs: Math.round(cpu.system / 1000), peakRssMiB: Math.round(Number(hwm?.[1] ?? 0) / 1024), outputSize: r.outputSize, outputSha256: r.outputSha256, verifyMs })}\n`,
);
