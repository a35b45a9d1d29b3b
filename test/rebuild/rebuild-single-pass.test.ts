// The build reads the source once: it copies it with the pieces laid over it, hashes the output as it
// writes it, checks attribution on the stream, refuses a source written to while it was read, then
// reads back only tables and planned pieces. These tests break each link: the source modified during
// the stream (even when restored), a short source read, an unowned change in the plan, and the written
// file touched after writing.
import assert from 'node:assert/strict';
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { lstat, open, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { isReMcpError } from '../../src/core/errors.js';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import { buildManifest } from '../../src/rebuild/service.js';
import { newTally, outputStream } from '../../src/rebuild/stream.js';
import { verifyBuiltOutput } from '../../src/rebuild/verify.js';
import { buildRom } from '../kit/rom-builder.js';
import { type RebuildFixture, rebuildFixture, sha } from './fixture.js';

let fx: RebuildFixture;
let manifest: string;
before(async () => {
  fx = await rebuildFixture();
  const added = new TextEncoder().encode('single pass\n');
  await fx.put('art/new.txt', added);
  manifest = await fx.manifest(
    'm/add.json',
    [
      {
        op: 'add-file',
        id: 'add',
        path: 'single/new.txt',
        artifact: 'art/new.txt',
        artifactSha256: sha(added),
      },
    ],
    2,
  );
});
after(async () => {
  await rm(fx.root, { recursive: true, force: true });
});

const sourceReader =
  (bytes: Uint8Array, flipAt = -1) =>
  async (into: Uint8Array, position: number) => {
    const part = bytes.subarray(position, position + into.length);
    into.set(part);
    if (flipAt >= position && flipAt < position + part.length) into[flipAt - position]! ^= 0x01;
    return part.length;
  };

async function drain(stream: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  for await (const c of stream) chunks.push(c);
  return chunks;
}

test('the stream hashes the source it copies and the output it yields', async () => {
  const v = await fx.validate(manifest);
  const tally = newTally();
  const chunks = await drain(outputStream(v.plan, sourceReader(fx.bytes), tally));
  assert.equal(tally.sourceBytes, fx.bytes.length);
  assert.equal(tally.outputSha256, sha(Buffer.concat(chunks)));
  assert.equal(tally.outputBytes, v.plan.resolved.output.size);
  // Only the header changed inside the source prefix.
  assert.ok(tally.changedPrefixBytes > 0 && tally.changedPrefixBytes <= 0x200);
  const r = await fx.build(manifest);
  assert.equal(r.outputSha256, tally.outputSha256);
  assert.equal(r.verification.changedPrefixBytes, tally.changedPrefixBytes);
  // The full re-reading verifier agrees with the single-pass record byte for byte.
  assert.deepEqual((await fx.verify(manifest)).verification, r.verification);
  await rm(join(fx.root, r.outputDir), { recursive: true });
});

test('a source written to while the build reads it fails the build, even when its bytes are restored', async () => {
  const v = await fx.validate(manifest);
  const path = join(fx.root, fx.rel);
  let touched = false;
  await assert.rejects(
    fx.store.withRom(fx.rel, (rom) =>
      buildManifest(fx.workspace, rom, manifest, {
        onProgress: () => {
          if (touched) return;
          touched = true;
          // Flip a byte no piece touches and put it back: same bytes, but the file was written.
          const at = fx.bytes.length - 1;
          const fd = openSync(path, 'r+');
          try {
            writeSync(fd, Uint8Array.of(fx.bytes[at]! ^ 0xff), 0, 1, at);
            writeSync(fd, fx.bytes.subarray(at, at + 1), 0, 1, at);
          } finally {
            closeSync(fd);
          }
        },
      }),
    ),
    (e: unknown) =>
      isReMcpError(e) && e.code === 'rom-changed' && /modified during the build/.test(e.message),
  );
  assert.ok(touched);
  assert.equal(await lstat(join(fx.root, v.outputDir)).catch(() => null), null);
  assert.equal(sha(await readFile(path)), fx.sha256);
});

test('a short source read is refused', async () => {
  const v = await fx.validate(manifest);
  const tally = newTally();
  // The reader stops one byte early, as if the file had been cut.
  const short = fx.bytes.subarray(0, fx.bytes.length - 1);
  await drain(outputStream(v.plan, sourceReader(short), tally));
  assert.equal(tally.sourceBytes, fx.bytes.length - 1);
  const file = await open(join(fx.root, fx.rel), 'r');
  try {
    await assert.rejects(
      verifyBuiltOutput(v.plan, parseNdsRom(bufferSource(fx.bytes)), tally, file, readSync),
      (e: unknown) => isReMcpError(e) && e.code === 'rom-changed',
    );
  } finally {
    await file.close();
  }
});

test('a change the plan does not own stops the stream before the chunk is written', async () => {
  const v = await fx.validate(manifest);
  const at = 0x1000;
  assert.ok(!v.plan.ownedPrefix.some((o) => at >= o.start && at < o.end));
  const rogue = {
    ...v.plan,
    pieces: [...v.plan.pieces, { offset: at, bytes: new Uint8Array([fx.bytes[at]! ^ 0xff]), owner: 'rogue' }],
  };
  const seen: number[] = [];
  await assert.rejects(
    drain(outputStream(rogue, sourceReader(fx.bytes), newTally(), { onChunk: (c) => seen.push(c.length) })),
    (e: unknown) => isReMcpError(e) && e.code === 'verification-failed' && /unowned byte/.test(e.message),
  );
  assert.deepEqual(seen, [], 'the chunk holding the unowned change was not handed to the writer');
});

for (const step of ['rom-written', 'evidence-written']) {
  test(`the written ROM touched at ${step} fails the build and publishes nothing`, async () => {
    const v = await fx.validate(manifest);
    const parent = join(fx.root, 'output', 'nds', fx.sha16);
    await assert.rejects(
      fx.build(manifest, async (s) => {
        if (s !== step) return;
        const [tmp] = (await readdir(parent)).filter((n) => n.endsWith('.tmp'));
        // Past the kernel's timestamp tick, so the write shows in the file's times.
        await sleep(20);
        const f = await open(join(parent, tmp!, 'rebuilt.nds'), 'r+');
        try {
          // A source byte no piece owns, rewritten with the same value: the content is even unchanged,
          // but the file was written after the build verified it.
          const at = fx.bytes.length - 1;
          await f.write(fx.bytes.subarray(at, at + 1), 0, 1, at);
        } finally {
          await f.close();
        }
      }),
      (e: unknown) =>
        isReMcpError(e) && e.code === 'verification-failed' && /changed after it was written/.test(e.message),
    );
    assert.equal(await lstat(join(fx.root, v.outputDir)).catch(() => null), null);
    assert.deepEqual(
      (await readdir(parent)).filter((n) => n.startsWith('.') && !n.includes('lock')),
      [],
    );
    assert.equal(sha(await readFile(join(fx.root, fx.rel))), fx.sha256);
  });
}

test('a ROM of several chunks builds through reused buffers byte-exactly', async () => {
  // 9 MiB + an odd tail: three 4 MiB chunks, the source ending mid-chunk, a zero gap after it.
  const { bytes } = buildRom({
    title: 'POOLED',
    arm9: { code: new Uint8Array(0x1000).fill(0x91) },
    arm7: { code: new Uint8Array(0x400).fill(0x71) },
    files: [
      { path: 'big.bin', data: { length: 9 * 1024 * 1024 + 333, seed: 7 } },
      { path: 'small.bin', data: new Uint8Array(1000).fill(7) },
    ],
  });
  const big = await rebuildFixture(undefined, bytes);
  try {
    const model = parseNdsRom(bufferSource(bytes));
    const small = model.files.find((f) => f.path === 'small.bin')!;
    const replacement = new Uint8Array(5000).map((_, i) => (i * 3 + 1) & 0xff);
    await big.put('art/r.bin', replacement);
    const m = await big.manifest(
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
    const r = await big.build(m);
    assert.ok(r.outputSize > 2 * 4 * 1024 * 1024);
    const out = new Uint8Array(await readFile(join(big.root, r.rom)));
    // Expected bytes computed independently: the source, the header and the old bytes aside.
    for (let i = 0x200; i < bytes.length; i++) {
      const want = i >= small.start && i < small.end ? 0 : bytes[i];
      if (out[i] !== want) assert.fail(`byte ${i}: ${out[i]} != ${want}`);
    }
    const moved = parseNdsRom(bufferSource(out)).files[small.fileId]!;
    assert.deepEqual(out.subarray(moved.start, moved.end), replacement);
    assert.equal(r.outputSha256, sha(out));
    // The full re-reading verifier agrees.
    assert.deepEqual((await big.verify(m)).verification, r.verification);
  } finally {
    await rm(big.root, { recursive: true, force: true });
  }
});
