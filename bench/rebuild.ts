// Rebuild bench: a 256 MiB ROM (one large NitroFS file plus a small one), one small file replaced by
// a larger one (format 2: relocated, FAT/header rewritten). Figures: build time (write, fsync,
// verification, evidence, publish) against a plain copy of the file (read + write of the same bytes
// through user space, no fsync): the ratio (goal <= 2); also against the same copy with one fsync and
// against fs.copyFile (an in-kernel copy) and SHA-256 of the ROM alone (the build's main-thread
// floor); and the build process's peak RSS (goal <= 300 MiB: the ROM is streamed). Medians of
// BENCH_REBUILD_ROUNDS rounds (default 3), ranges beside them. BENCH_REBUILD_BASELINE=<another
// checkout with its node_modules> builds with that tree's code too, in the same rounds;
// BENCH_REBUILD_FLUSH_VARIANTS=16,32 builds this tree with those early-flush intervals (MiB) too.
// Every build's output SHA-256 is reported: all variants must build the same bytes. Each child also
// verifies what it built (nds_mutation_verify); build and verify are judged against `cp` of the ROM
// followed by `sync` of the copy, measured in the same rounds (goal <= 1.5 each). BENCH_BASELINE is
// taken for BENCH_REBUILD_BASELINE when that is unset (its tree needs this bench's rebuild-child.ts
// for the verify figure).
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
  for await (const chunk of createReadStream(path, { highWaterMark: 4 * MiB })) h.update(chunk as Buffer);
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
    // `cp` then `sync` of the copy (an fsync of that file): the floor the build and verify are judged by.
    const cpSync = async () => {
      const started = performance.now();
      execFileSync('cp', [romPath, copyPath]);
      execFileSync('sync', [copyPath]);
      return performance.now() - started;
    };
    const kernelCopy = async () => {
      const started = performance.now();
      await copyFile(romPath, copyPath);
      return performance.now() - started;
    };
    // The build's floor on its main thread: SHA-256 of every output byte (the source read and hashed,
    // nothing written).
    const hashOnly = async () => {
      const started = performance.now();
      await sha256File(romPath);
      return performance.now() - started;
    };
    interface ChildResult {
      ms: number;
      peakRssMiB: number;
      writeMs?: number;
      cpuUserMs?: number;
      cpuSystemMs?: number;
      outputSha256?: string;
      verifyMs?: number;
    }
    const build = (repo: string, env: Record<string, string> = {}): ChildResult => {
      const out = execFileSync(
        process.execPath,
        ['--import', 'tsx', join(repo, 'bench', 'rebuild-child.ts'), root, 'roms/big.nds', 'manifest.json'],
        {
          cwd: repo,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'inherit'],
          env: { ...process.env, ...env },
        },
      );
      return JSON.parse(out.trim().split('\n').at(-1)!) as ChildResult;
    };
    // Each measurement starts with no dirty pages (sync, not timed) and removes what it wrote, so one
    // measurement's writeback does not land on the next; rounds alternate the variants (every other
    // round in reverse order, so no variant always follows the same one).
    const settle = async () => {
      await rm(copyPath, { force: true });
      await rm(join(root, 'output', 'nds'), { recursive: true, force: true });
      execFileSync('sync');
    };
    const baseline = process.env.BENCH_REBUILD_BASELINE ?? process.env.BENCH_BASELINE;
    const rounds = Math.max(1, Number(process.env.BENCH_REBUILD_ROUNDS ?? 3));
    // BENCH_REBUILD_FLUSH_VARIANTS=16,32: this tree also builds with those early-flush intervals (MiB).
    const flushVariants = (process.env.BENCH_REBUILD_FLUSH_VARIANTS ?? '')
      .split(',')
      .filter((x) => x.trim() !== '')
      .map(Number);
    const samples: Record<string, number[]> = {};
    const push = (key: string, value: number | null | undefined) => {
      if (value === null || value === undefined) return;
      samples[key] ??= [];
      samples[key].push(value);
    };
    const outputs: Record<string, Set<string>> = {};
    const cpuOf = (b: ChildResult) => (b.cpuUserMs === undefined ? null : b.cpuUserMs + (b.cpuSystemMs ?? 0));
    const builds: Array<[string, () => ChildResult]> = [['build', () => build(REPO_ROOT)]];
    if (baseline) builds.push(['baseline', () => build(baseline)]);
    for (const mib of flushVariants) {
      builds.push([`flush${mib}MiB`, () => build(REPO_ROOT, { BENCH_REBUILD_FLUSH_MIB: String(mib) })]);
    }
    const steps: Array<[string, () => Promise<void>]> = [
      ['plainCopyMs', async () => push('plainCopyMs', await plainCopy(false))],
      ['plainCopyFsyncMs', async () => push('plainCopyFsyncMs', await plainCopy(true))],
      ['copyFileMs', async () => push('copyFileMs', await kernelCopy())],
      ['cpSyncMs', async () => push('cpSyncMs', await cpSync())],
      ['sha256OnlyMs', async () => push('sha256OnlyMs', await hashOnly())],
      ...builds.map(([name, run]): [string, () => Promise<void>] => [
        name,
        async () => {
          const b = run();
          push(`${name}Ms`, b.ms);
          push(`${name}PeakRssMiB`, b.peakRssMiB);
          push(`${name}WriteMs`, b.writeMs);
          push(`${name}CpuMs`, cpuOf(b));
          push(`${name}VerifyMs`, b.verifyMs);
          if (b.outputSha256) {
            outputs[name] ??= new Set();
            outputs[name].add(b.outputSha256);
          }
        },
      ]),
    ];
    for (let round = 0; round < rounds; round++) {
      for (const [, step] of round % 2 === 0 ? steps : [...steps].reverse()) {
        await settle();
        await step();
      }
    }
    await settle();
    const copy = median(samples.plainCopyMs!);
    const cpSyncMs = median(samples.cpSyncMs!);
    const ratio = (x: number, y: number) => Number((x / y).toFixed(2));
    const med = (key: string) => (samples[key] ? Math.round(median(samples[key]!)) : null);
    const figures = (name: string) => {
      const ms = median(samples[`${name}Ms`]!);
      const verify = samples[`${name}VerifyMs`] ? median(samples[`${name}VerifyMs`]!) : null;
      return {
        buildMs: Math.round(ms),
        ratio: ratio(ms, copy),
        buildVsCpSync: ratio(ms, cpSyncMs),
        verifyMs: verify === null ? null : Math.round(verify),
        verifyVsCpSync: verify === null ? null : ratio(verify, cpSyncMs),
        buildWriteMs: med(`${name}WriteMs`),
        // CPU time of the build process, all threads (user + system): less sensitive to other load.
        cpuMs: med(`${name}CpuMs`),
        peakRssMiB: Math.max(...samples[`${name}PeakRssMiB`]!),
        outputSha256: outputs[name] ? [...outputs[name]!] : null,
      };
    };
    const current = figures('build');
    const others = builds.slice(1).map(([name]) => [name, figures(name)] as const);
    const fsyncCopy = median(samples.plainCopyFsyncMs!);
    return {
      romMiB: Math.round(size / MiB),
      rounds,
      // Read + write through streams, no fsync: the goal's reference.
      plainCopyMs: Math.round(copy),
      buildMs: current.buildMs,
      ratio: current.ratio,
      ratioGoal: 2,
      // cp + sync of the same ROM: the floor of build and verify (goal <= 1.5 each).
      cpSyncMs: Math.round(cpSyncMs),
      buildVsCpSync: current.buildVsCpSync,
      verifyMs: current.verifyMs,
      verifyVsCpSync: current.verifyVsCpSync,
      vsCpSyncGoal: 1.5,
      // The same copy made durable (one fsync at the end), as every published build is.
      plainCopyWithFsyncMs: Math.round(fsyncCopy),
      copyWithFsyncRatio: ratio(fsyncCopy, copy),
      ratioVsCopyWithFsync: ratio(median(samples.buildMs!), fsyncCopy),
      // fs.copyFile: on Linux an in-kernel copy (copy_file_range; a reflink where the file system has
      // them, ext4 has none), no bytes through user space.
      copyFileMs: Math.round(median(samples.copyFileMs!)),
      ratioVsCopyFile: ratio(median(samples.buildMs!), median(samples.copyFileMs!)),
      sha256OnlyMs: Math.round(median(samples.sha256OnlyMs!)),
      sha256OnlyRatio: ratio(median(samples.sha256OnlyMs!), copy),
      buildWriteMs: current.buildWriteMs,
      buildCpuMs: current.cpuMs,
      peakRssMiB: current.peakRssMiB,
      peakRssGoalMiB: 300,
      outputSha256: current.outputSha256,
      ...(others.length > 0
        ? {
            compared: Object.fromEntries(
              others.map(([name, f]) => [
                name === 'baseline' ? `baseline (${baseline})` : name,
                {
                  ...f,
                  // null: that tree's bench child does not report its output hash.
                  sameOutput:
                    f.outputSha256 === null
                      ? null
                      : JSON.stringify(f.outputSha256) === JSON.stringify(current.outputSha256),
                },
              ]),
            ),
          }
        : {}),
      // Every sample (ms, MiB) in the order taken, and each set's [min, max].
      samples: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.map(Math.round)])),
      ranges: Object.fromEntries(
        Object.entries(samples).map(([k, v]) => [
          k,
          [Math.round(Math.min(...v)), Math.round(Math.max(...v))],
        ]),
      ),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
