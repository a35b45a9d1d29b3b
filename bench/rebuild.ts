// Rebuild bench: a 256 MiB ROM (one large NitroFS file plus a small one), one small file replaced by
// a larger one (format 2: relocated, FAT/header rewritten). Figures: build time (write + full
// verification + publish) against a plain copy of the file (read + write of the same bytes), the
// ratio (goal <= 2), and the build process's peak RSS (goal <= 300 MiB: the ROM is streamed).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { makeWorkspace, REPO_ROOT } from '../test/kit/mcp-harness.js';
import { writeRomFile } from '../test/kit/rom-builder.js';

const MiB = 1024 * 1024;

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
    // Plain copy of the same file (page cache warm from the hash above).
    const copyStarted = performance.now();
    await pipeline(
      createReadStream(romPath, { highWaterMark: 4 * MiB }),
      createWriteStream(join(root, 'copy.nds')),
    );
    const copyMs = performance.now() - copyStarted;
    await rm(join(root, 'copy.nds'));
    const out = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        join(REPO_ROOT, 'bench', 'rebuild-child.ts'),
        root,
        'roms/big.nds',
        'manifest.json',
      ],
      { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const build = JSON.parse(out.trim().split('\n').at(-1)!) as {
      ms: number;
      peakRssMiB: number;
      outputSize: number;
    };
    return {
      romMiB: Math.round(size / MiB),
      plainCopyMs: Math.round(copyMs),
      buildMs: build.ms,
      ratio: Number((build.ms / copyMs).toFixed(2)),
      ratioGoal: 2,
      peakRssMiB: build.peakRssMiB,
      peakRssGoalMiB: 300,
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
