// The rebuilt ROM is written with O_DIRECT where the file system allows it, else through the page cache
// with background flushes (early fdatasyncs); one fsync precedes the publishing rename either way.
// Neither changes what is built: direct or buffered, a flush after every chunk or none, the bytes,
// hash and evidence are the same. A write failing while flushes run (the file-size limit reached
// mid-ROM) fails the build typed and publishes nothing.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import { streamWriting } from '../../src/workspace/stream-write.js';
import { REPO_ROOT } from '../kit/mcp-harness.js';
import { buildRom } from '../kit/rom-builder.js';
import { type RebuildFixture, rebuildFixture, sha } from './fixture.js';

const MiB = 1024 * 1024;
let fx: RebuildFixture;
let manifest: string;

before(async () => {
  // 9 MiB and a bit: three stream chunks, the relocated file appended past the source's end.
  const { bytes } = buildRom({
    title: 'DURABLE',
    arm9: { code: new Uint8Array(0x1000).fill(0x91) },
    arm7: { code: new Uint8Array(0x400).fill(0x71) },
    files: [
      { path: 'big.bin', data: { length: 9 * MiB + 777, seed: 15 } },
      { path: 'small.bin', data: new Uint8Array(1000).fill(7) },
    ],
  });
  fx = await rebuildFixture(undefined, bytes);
  const small = parseNdsRom(bufferSource(bytes)).files.find((f) => f.path === 'small.bin')!;
  const replacement = new Uint8Array(70_000).map((_, i) => (i * 5 + 3) & 0xff);
  await fx.put('art/r.bin', replacement);
  manifest = await fx.manifest(
    'm/r.json',
    [
      {
        op: 'replace-file',
        id: 'r',
        component: { kind: 'path', path: 'small.bin' },
        artifact: 'art/r.bin',
        artifactSha256: sha(replacement),
        componentSha256: sha(bytes.subarray(small.start, small.end)),
      },
    ],
    2,
  );
});
after(async () => {
  await rm(fx.root, { recursive: true, force: true });
});

async function buildWith(change: Partial<typeof streamWriting>) {
  const saved = { ...streamWriting };
  Object.assign(streamWriting, change);
  try {
    const r = await fx.build(manifest);
    const dir = join(fx.root, r.outputDir);
    const files: Record<string, string> = {};
    for (const name of (await readdir(dir)).sort()) files[name] = sha(await readFile(join(dir, name)));
    await rm(dir, { recursive: true });
    return { r, files };
  } finally {
    Object.assign(streamWriting, saved);
  }
}

test('direct or buffered, flushed after every chunk or never: the same bytes, hash and evidence', async () => {
  const plain = await buildWith({});
  const interleaved = await buildWith({ direct: false, earlyFlushBytes: 1 });
  const never = await buildWith({ direct: false, earlyFlushBytes: Number.MAX_SAFE_INTEGER });
  assert.ok(interleaved.r.outputSize > 2 * 4 * MiB);
  assert.equal(interleaved.r.reused, false);
  assert.deepEqual(interleaved.files, plain.files);
  assert.deepEqual(never.files, plain.files);
  assert.equal(interleaved.files[interleaved.r.rom.split('/').at(-1)!], interleaved.r.outputSha256);
  assert.deepEqual(interleaved.r.verification, plain.r.verification);
  assert.equal(sha(await readFile(join(fx.root, fx.rel))), fx.sha256, 'the source is untouched');
});

for (const mode of ['buffered, flushed after every chunk', 'direct'] as const) {
  test(`a write failing mid-ROM (${mode}) fails the build typed and publishes nothing`, async () => {
    const v = await fx.validate(manifest);
    const script = join(REPO_ROOT, 'test', 'rebuild', 'build-child.ts');
    // The file-size limit stops the ROM write after its first 4 MiB chunk: a short write, then EFBIG
    // (buffered, early flushes run beside the writes). 8704 blocks are 4.25 MiB in POSIX sh's 512-byte
    // units (dash) and 8.5 MiB in bash's 1 KiB ones: both past the first chunk, short of the ROM.
    const limitBlocks = 8704;
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        `ulimit -f ${limitBlocks} && exec "$0" "$@"`,
        process.execPath,
        '--import',
        'tsx',
        script,
      ].concat([fx.root, fx.rel, manifest, 'none']),
      {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          ...process.env,
          ...(mode === 'direct' ? {} : { REBUILD_TEST_FLUSH_BYTES: '1', REBUILD_TEST_BUFFERED: '1' }),
        },
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    assert.equal(code, 1, `child output: ${out} ${err}`);
    assert.match(out, /^FAILED limit-exceeded$/m);
    assert.doesNotMatch(out, /STEP rom-written/, 'the build stopped in the ROM write');
    const parent = join(fx.root, 'output', 'nds', fx.sha16);
    assert.deepEqual(
      (await readdir(parent)).filter((n) => !n.includes('lock')),
      [],
      'neither a published build nor a temp directory is left',
    );
    assert.equal(sha(await readFile(join(fx.root, fx.rel))), fx.sha256, 'the source is untouched');
    // Without the limit the same build publishes.
    const r = await fx.build(manifest);
    assert.equal(r.outputDir, v.outputDir);
    assert.equal(r.reused, false);
    await rm(join(fx.root, r.outputDir), { recursive: true });
  });
}
