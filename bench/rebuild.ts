// Rebuild bench: a 256 MiB ROM (one large NitroFS file plus a small one), one small file replaced by
// a larger one (format 2: relocated, FAT/header rewritten). Figures: build time (write, fsync,
// verification, evidence, publish) against a plain copy of the file (read + write of the same bytes
// through user space, no fsync): the ratio (goal <= 2); also against the same copy with one fsync and
// against fs.copyFile (an in-kernel copy); and the build process's peak RSS (goal <= 300 MiB: the ROM
// is streamed). Medians of BENCH_REBUILD_ROUNDS rounds (default 3). BENCH_REBUILD_BASELINE=<another
// checkout with its node_modules> builds with that tree's code too, in the same rounds.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { makeWorkspace, REPO_ROOT } from '../test/kit/mcp-harness.js';
import { writeRomFile } from '../test/kit/rom-builder.js';

const MiB = 1024 * 1024;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function sha256File(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

export async function benchRebuild() {
  const root = await makeWorkspace('re-mcp-bench-rebuild-');
  try {
    await mkdir(join(root, 'roms'));
    const romPath = join(root, 'roms', 'big.nds');
    const small = new Uint8Array(1000).fill(7);
    const layout = writeRomFile(
      {
        title: 'REBUILDBENCH',
        arm9: { code: new Uint8Array(0x1000).fill(0x91) },
        arm7: { code: new Uint8Array(0x400).fill(0x71) },
        files: [
          { path: 'big/payload.bin', data: { length: 256 * MiB - 0x10000, seed: 15 } },
          { path: 'small.bin', data: small },
        ],
      },
      romPath,
    );
    const sha = await sha256File(romPath);
    const size = layout.size;
    const replacement = new Uint8Array(64 * 1024).map((_, i) => i & 0xff);
    await mkdir(join(root, 'art'));
    await writeFile(join(root, 'art', 'small.bin'), replacement);
    await writeFile(
      join(root, 'manifest.json'),
      JSON.stringify({
        formatVersion: 2,
        source: { sha256: sha, size },
        operations: [
          {
            op: 'replace-file',
            id: 'small',
            component: { kind: 'path', path: 'small.bin' },
            artifact: 'art/small.bin',
            artifactSha256: createHash('sha256').update(replacement).digest('hex'),
            componentSha256: createHash('sha256').update(small).digest('hex'),
          },
        ],
      }),
    );
    const copyPath = join(root, 'copy.nds');
    const plainCopy = async (durable: boolean) => {
      const started = performance.now();
      await pipeline(createReadStream(romPath, { highWaterMark: 4 * MiB }), createWriteStream(copyPath));
      if (durable) {
        const f = await open(copyPath, 'r+');
        await f.sync();
        await f.close();
      }
      return performance.now() - started;
    };
    const kernelCopy = async () => {
      const started = performance.now();
      await copyFile(romPath, copyPath);
      return performance.now() - started;
    };
    const build = (repo: string) => {
      const out = execFileSync(
        process.execPath,
        ['--import', 'tsx', join(repo, 'bench', 'rebuild-child.ts'), root, 'roms/big.nds', 'manifest.json'],
        { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      );
      return JSON.parse(out.trim().split('\n').at(-1)!) as {
        ms: number;
        peakRssMiB: number;
        writeMs?: number;
        cpuUserMs?: number;
        cpuSystemMs?: number;
      };
    };
    // Each measurement starts with no dirty pages (sync, not timed) and removes what it wrote, so one
    // measurement's writeback does not land on the next; rounds alternate the variants.
    const settle = async () => {
      await rm(copyPath, { force: true });
      await rm(join(root, 'output', 'nds'), { recursive: true, force: true });
      execFileSync('sync');
    };
    const baseline = process.env.BENCH_REBUILD_BASELINE;
    const rounds = Math.max(1, Number(process.env.BENCH_REBUILD_ROUNDS ?? 3));
    const samples = {
      plainCopyMs: [] as number[],
      plainCopyFsyncMs: [] as number[],
      copyFileMs: [] as number[],
      buildMs: [] as number[],
      buildWriteMs: [] as number[],
      buildPeakRssMiB: [] as number[],
      baselineBuildMs: [] as number[],
      baselinePeakRssMiB: [] as number[],
      buildCpuMs: [] as number[],
      baselineCpuMs: [] as number[],
    };
    const cpuOf = (b: { cpuUserMs?: number; cpuSystemMs?: number }) =>
      b.cpuUserMs === undefined ? null : b.cpuUserMs + (b.cpuSystemMs ?? 0);
    for (let round = 0; round < rounds; round++) {
      await settle();
      samples.plainCopyMs.push(await plainCopy(false));
      await settle();
      samples.plainCopyFsyncMs.push(await plainCopy(true));
      await settle();
      samples.copyFileMs.push(await kernelCopy());
      if (baseline) {
        await settle();
        const b = build(baseline);
        samples.baselineBuildMs.push(b.ms);
        samples.baselinePeakRssMiB.push(b.peakRssMiB);
        const cpu = cpuOf(b);
        if (cpu !== null) samples.baselineCpuMs.push(cpu);
      }
      await settle();
      const b = build(REPO_ROOT);
      samples.buildMs.push(b.ms);
      samples.buildPeakRssMiB.push(b.peakRssMiB);
      if (b.writeMs !== undefined) samples.buildWriteMs.push(b.writeMs);
      const cpu = cpuOf(b);
      if (cpu !== null) samples.buildCpuMs.push(cpu);
    }
    await settle();
    const copy = median(samples.plainCopyMs);
    const buildMs = median(samples.buildMs);
    const ratio = (x: number, y: number) => Number((x / y).toFixed(2));
    return {
      romMiB: Math.round(size / MiB),
      rounds,
      // Read + write through streams, no fsync: the goal's reference.
      plainCopyMs: Math.round(copy),
      plainCopyWithFsyncMs: Math.round(median(samples.plainCopyFsyncMs)),
      // fs.copyFile: on Linux an in-kernel copy (copy_file_range; a reflink where the file system has
      // them, ext4 has none), no bytes through user space.
      copyFileMs: Math.round(median(samples.copyFileMs)),
      buildMs: Math.round(buildMs),
      buildWriteMs: samples.buildWriteMs.length > 0 ? Math.round(median(samples.buildWriteMs)) : null,
      // CPU time of the build process, all threads (user + system): unaffected by other load.
      buildCpuMs: samples.buildCpuMs.length > 0 ? Math.round(median(samples.buildCpuMs)) : null,
      ratio: ratio(buildMs, copy),
      ratioGoal: 2,
      ratioVsCopyWithFsync: ratio(buildMs, median(samples.plainCopyFsyncMs)),
      ratioVsCopyFile: ratio(buildMs, median(samples.copyFileMs)),
      peakRssMiB: Math.max(...samples.buildPeakRssMiB),
      peakRssGoalMiB: 300,
      ...(baseline
        ? {
            baseline: {
              tree: baseline,
              buildMs: Math.round(median(samples.baselineBuildMs)),
              ratio: ratio(median(samples.baselineBuildMs), copy),
              peakRssMiB: Math.max(...samples.baselinePeakRssMiB),
              cpuMs: samples.baselineCpuMs.length > 0 ? Math.round(median(samples.baselineCpuMs)) : null,
            },
          }
        : {}),
      samples: Object.fromEntries(
        Object.entries(samples)
          .filter(([, v]) => v.length > 0)
          .map(([k, v]) => [k, v.map(Math.round)]),
      ),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
