// The build hashes its output on this thread for a small ROM and on a worker thread for a large one.
// Both paths must publish the same build with the same hash; a failing worker must fail the build with
// a typed error and publish nothing; cancellation must still stop it; a chunk must not be reused while
// the worker may still read it.
import assert from 'node:assert/strict';
import { lstat, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { isReMcpError } from '../../src/core/errors.js';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import {
  mainThreadHasher,
  type OutputHasher,
  outputHasher,
  WORKER_HASH_MIN_BYTES,
  workerHasher,
} from '../../src/rebuild/output-hash.js';
import { ChunkPool } from '../../src/rebuild/stream.js';
import { buildRom } from '../kit/rom-builder.js';
import { type RebuildFixture, rebuildFixture, sha } from './fixture.js';

/** A fixture ROM of about `bytes` bytes (spanning several stream chunks) and a replace-file manifest. */
async function bigFixture(bytes: number, seed: number): Promise<{ fx: RebuildFixture; manifest: string }> {
  const { bytes: rom } = buildRom({
    title: 'HASHPATH',
    arm9: { code: new Uint8Array(0x1000).fill(0x91) },
    arm7: { code: new Uint8Array(0x400).fill(0x71) },
    files: [
      { path: 'big.bin', data: { length: bytes + 333, seed } },
      { path: 'small.bin', data: new Uint8Array(1000).fill(7) },
    ],
  });
  const fx = await rebuildFixture(undefined, rom);
  const model = parseNdsRom(bufferSource(rom));
  const small = model.files.find((f) => f.path === 'small.bin')!;
  const replacement = new Uint8Array(5000).map((_, i) => (i * 5 + 3) & 0xff);
  await fx.put('art/r.bin', replacement);
  const manifest = await fx.manifest(
    'm/r.json',
    [
      {
        op: 'replace-file',
        id: 'r',
        component: { kind: 'path', path: 'small.bin' },
        artifact: 'art/r.bin',
        artifactSha256: sha(replacement),
        componentSha256: sha(rom.subarray(small.start, small.end)),
      },
    ],
    2,
  );
  return { fx, manifest };
}

/** Every file of a published build directory, name -> bytes. */
async function publishedFiles(root: string, dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const name of (await readdir(join(root, dir))).sort())
    files.set(name, await readFile(join(root, dir, name)));
  return files;
}

async function assertNothingPublished(fx: RebuildFixture, outputDir: string): Promise<void> {
  assert.equal(await lstat(join(fx.root, outputDir)).catch(() => null), null);
  const parent = join(fx.root, 'output', 'nds', fx.sha16);
  assert.deepEqual(
    (await readdir(parent).catch(() => [] as string[])).filter(
      (n) => n.startsWith('.') && !n.includes('lock'),
    ),
    [],
  );
}

/** Builds with each hasher in turn (removing the build between) and returns the published files. */
async function buildWith(fx: RebuildFixture, manifest: string, hasher: () => OutputHasher) {
  const h = hasher();
  const r = await fx.build(manifest, undefined, { hasher: h });
  const files = await publishedFiles(fx.root, r.outputDir);
  await rm(join(fx.root, r.outputDir), { recursive: true, force: true });
  return { r, files, thread: h.thread };
}

test('the main-thread and worker hashers publish identical builds with identical hashes', async () => {
  const { fx, manifest } = await bigFixture(9 * 1024 * 1024, 11);
  try {
    const main = await buildWith(fx, manifest, mainThreadHasher);
    const worker = await buildWith(fx, manifest, workerHasher);
    assert.equal(main.thread, 'main');
    assert.equal(worker.thread, 'worker');
    assert.equal(worker.r.outputDir, main.r.outputDir);
    assert.equal(worker.r.outputSha256, main.r.outputSha256);
    assert.deepEqual([...worker.files.keys()], [...main.files.keys()]);
    for (const [name, bytes] of main.files) assert.ok(worker.files.get(name)!.equals(bytes), name);
    // The hash is of the bytes on disk, computed independently here.
    assert.equal(main.r.outputSha256, sha(main.files.get('rebuilt.nds')!));
    assert.ok(main.r.outputSize > 2 * 4 * 1024 * 1024);
  } finally {
    await rm(fx.root, { recursive: true, force: true });
  }
});

test('a ROM above the threshold is hashed on a worker by default, and agrees with a main-thread build', async () => {
  assert.equal(outputHasher(WORKER_HASH_MIN_BYTES - 1).thread, 'main');
  const probe = outputHasher(WORKER_HASH_MIN_BYTES);
  probe.close();
  assert.equal(probe.thread, 'worker');
  const { fx, manifest } = await bigFixture(WORKER_HASH_MIN_BYTES, 12);
  try {
    const r = await fx.build(manifest);
    assert.ok(r.outputSize >= WORKER_HASH_MIN_BYTES);
    const rom = await readFile(join(fx.root, r.rom));
    assert.equal(r.outputSha256, sha(rom));
    // The full re-reading verifier agrees with the single-pass build.
    assert.deepEqual((await fx.verify(manifest)).verification, r.verification);
    const byDefault = await publishedFiles(fx.root, r.outputDir);
    await rm(join(fx.root, r.outputDir), { recursive: true, force: true });
    const main = await buildWith(fx, manifest, mainThreadHasher);
    assert.equal(main.r.outputSha256, r.outputSha256);
    for (const [name, bytes] of byDefault) assert.ok(main.files.get(name)!.equals(bytes), name);
  } finally {
    await rm(fx.root, { recursive: true, force: true });
  }
});

test('a worker that fails mid-build fails the build with a typed error and publishes nothing', async () => {
  const { fx, manifest } = await bigFixture(9 * 1024 * 1024, 13);
  try {
    const v = await fx.validate(manifest);
    const real = workerHasher();
    let chunks = 0;
    // The second chunk reaches the worker as something it cannot hash: the worker throws and dies.
    const sabotaged: OutputHasher = {
      thread: 'worker',
      update: (chunk, release, signal) =>
        ++chunks === 2
          ? real.update(7 as unknown as Uint8Array, release, signal)
          : real.update(chunk, release, signal),
      digest: (signal) => real.digest(signal),
      close: () => real.close(),
    };
    await assert.rejects(
      fx.build(manifest, undefined, { hasher: sabotaged }),
      (e: unknown) =>
        isReMcpError(e) && e.code === 'internal-error' && /hashing worker failed/.test(e.message),
    );
    await assertNothingPublished(fx, v.outputDir);
    assert.equal(sha(await readFile(join(fx.root, fx.rel))), fx.sha256);
    // The same build then succeeds.
    const r = await fx.build(manifest, undefined, { hasher: workerHasher() });
    assert.equal(r.outputSha256, sha(await readFile(join(fx.root, r.rom))));
  } finally {
    await rm(fx.root, { recursive: true, force: true });
  }
});

test('a build hashing on a worker is cancelled and publishes nothing', async () => {
  const { fx, manifest } = await bigFixture(9 * 1024 * 1024, 14);
  try {
    const v = await fx.validate(manifest);
    const controller = new AbortController();
    const h = workerHasher();
    await assert.rejects(
      fx.store.withRom(fx.rel, async (rom) => {
        const { buildManifest } = await import('../../src/rebuild/service.js');
        return buildManifest(fx.workspace, rom, manifest, {
          hasher: h,
          signal: controller.signal,
          onProgress: () => controller.abort(),
        });
      }),
      (e: unknown) => isReMcpError(e) && e.code === 'cancelled',
    );
    await assertNothingPublished(fx, v.outputDir);
  } finally {
    await rm(fx.root, { recursive: true, force: true });
  }
});

test('a worker hasher given a non-shared chunk hashes a copy; the digest matches a plain hash', async () => {
  const h = workerHasher();
  try {
    const a = new Uint8Array(1 << 20).map((_, i) => i & 0xff);
    const pool = new ChunkPool(true);
    const b = pool.take(1000);
    b.fill(9);
    let released = 0;
    await h.update(a, () => released++);
    await h.update(b, () => released++);
    const digest = await h.digest();
    assert.equal(digest, sha(Buffer.concat([a, b])));
    assert.equal(released, 2);
  } finally {
    h.close();
  }
});

test('a pooled chunk is reused only once every holder has given it back', () => {
  const pool = new ChunkPool(true);
  const a = pool.take(16);
  assert.ok(a.buffer instanceof SharedArrayBuffer);
  pool.hold(a);
  pool.give(a);
  const b = pool.take(16);
  assert.notEqual(b.buffer, a.buffer, 'a chunk still held by one holder was handed out again');
  pool.give(a);
  const c = pool.take(16);
  assert.equal(c.buffer, a.buffer);
  // A chunk not from the pool is ignored.
  pool.give(new Uint8Array(4));
});
