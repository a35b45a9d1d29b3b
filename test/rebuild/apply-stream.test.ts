// nds_patch_apply streams its result (src/rebuild/apply-stream.ts with src/rebuild/apply.ts): results
// byte-exact against the slow reference codecs of test/kit/patch-reference.ts with the window shrunk to
// a few 4 KiB chunks, so BPS target copies reach past it and are read back from the file being written
// (a copy that spans the file and the window, an overlapping copy whose pattern is only in the file,
// with and without direct writes); IPS records across the decoder's windows; and a cancelled apply, a
// result whose CRC-32 fails at its end, and a result over the quota of output/patched/ leave no file
// behind and release their memory.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, test } from 'node:test';
import { ReMcpError } from '../../src/core/errors.js';
import { APPLY_LIMITS, applyPatchFile } from '../../src/rebuild/apply.js';
import { applyStreamBytes, applyStreaming } from '../../src/rebuild/apply-stream.js';
import { getRomStore } from '../../src/roms/rom-store.js';
import { OutputDir } from '../../src/workspace/output-dir.js';
import { streamWriting } from '../../src/workspace/stream-write.js';
import { zeroBomb } from '../kit/patch-bombs.js';
import {
  BpsBuilder,
  randomBpsActions,
  referenceApplyBps,
  referenceApplyIps,
  referenceCrc32,
} from '../kit/patch-reference.js';
import { patchWorkspace } from '../kit/patch-workspace.js';
import { rng } from '../kit/rng.js';

const MiB = 1024 * 1024;
const roots: string[] = [];
const production = { ...applyStreaming };
const direct = streamWriting.direct;
after(async () => {
  for (const r of roots) await rm(r, { recursive: true, force: true });
});
afterEach(() => {
  Object.assign(applyStreaming, production);
  streamWriting.direct = direct;
});

/** Shrinks the stream: 4 KiB chunks, three kept (the window is 12-16 KiB). */
function smallWindow(): void {
  applyStreaming.chunkBytes = 4096;
  applyStreaming.keptChunks = 3;
}

// Every read back from a file being written, counted (the production reader, wrapped).
let readBacks = 0;
const writeAtomic = OutputDir.prototype.writeAtomic;
OutputDir.prototype.writeAtomic = function (name, data, options = {}) {
  const readBack = options.readBack;
  return writeAtomic.call(
    this,
    name,
    data,
    readBack
      ? {
          ...options,
          readBack: (read) =>
            readBack((into, position) => {
              readBacks++;
              return read(into, position);
            }),
        }
      : options,
  );
};

async function setup(budget = 256 * MiB, arm9Bytes = 24_000) {
  const code = new Uint8Array(arm9Bytes).map((_, i) => (i * 31 + (i >>> 8)) & 0xff);
  const s = await patchWorkspace('re-mcp-apply-stream-', budget, code);
  roots.push(s.root);
  return s;
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Every file (temp files included) under output/patched/. */
async function patchedFiles(root: string): Promise<string[]> {
  const entries = await readdir(join(root, 'output/patched'), { recursive: true, withFileTypes: true }).catch(
    () => [],
  );
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** Applies `patch` through the tool; the file written must be `expected`, byte for byte. */
async function appliesExactly(s: Awaited<ReturnType<typeof setup>>, patch: Uint8Array, expected: Uint8Array) {
  const name = `p-${sha(patch).slice(0, 8)}.${patch[0] === 0x42 ? 'bps' : 'ips'}`;
  await writeFile(join(s.root, name), patch);
  const r = await s.ok('nds_patch_apply', { patch: name });
  const written = new Uint8Array(await readFile(join(s.root, r.output)));
  assert.equal(r.outputSize, expected.length);
  assert.ok(
    Buffer.from(written).equals(Buffer.from(expected)),
    `${name}: the result differs from the reference`,
  );
  assert.equal(r.outputSha256, sha(expected));
  return r;
}

test('random BPS patches of all four actions stream byte-exact; copies past the window are read back', async () => {
  smallWindow();
  // A source past 2 MiB: source copies from anywhere in it refill the source window.
  const s = await setup(256 * MiB, 2.25 * MiB);
  const next = rng(0x57e4);
  readBacks = 0;
  for (let n = 0; n < 10; n++) {
    const targetSize = 1 + Math.floor(next() * (n % 3 === 0 ? 300_000 : 60_000));
    // The target as the kit's builder made it, and (for some: it is slow) as the reference applies it.
    const { patch, target } = randomBpsActions(next, s.rom, targetSize, 20_000);
    if (n % 3 === 0) assert.deepEqual(referenceApplyBps(patch, s.rom), target);
    await appliesExactly(s, patch, target);
  }
  assert.ok(readBacks > 0, 'some target copies reached past the window');
  assert.equal(s.memory.reserved, 0);
});

test('a target copy spanning the file and the window, and an overlapping copy whose pattern is only in the file', async () => {
  smallWindow();
  const s = await setup();
  const next = rng(0xc09);
  const head = new Uint8Array(64 * 1024).map(() => (next() * 256) | 0);
  // The reference's own builder: 64 KiB read, then copies whose first bytes are only in the file.
  const targetSize = head.length + 12_000 + 70_000 + 5000 + 9000;
  const b = new BpsBuilder(s.rom.length, targetSize)
    .targetRead(head)
    // From 20,000 bytes back, 12,000 long: the window (12-16 KiB) holds its last bytes only.
    .targetCopy(12_000, head.length - 20_000)
    // An overlapping copy: the 30,000 bytes before the cursor, repeated; the pattern starts in the file.
    .targetCopy(70_000, head.length + 12_000 - 30_000 - (head.length - 20_000 + 12_000))
    .sourceCopy(5000, 1000)
    // A copy from the very first bytes, long after they left memory.
    .targetCopy(9000, -(head.length + 12_000 - 30_000 + 70_000));
  const expected = makeTarget(head, s.rom, targetSize);
  const patch = b.finish(referenceCrc32(s.rom), referenceCrc32(expected));
  assert.deepEqual(referenceApplyBps(patch, s.rom), expected);
  for (const directWrites of [true, false]) {
    streamWriting.direct = directWrites;
    readBacks = 0;
    await rm(join(s.root, 'output'), { recursive: true, force: true });
    await appliesExactly(s, patch, expected);
    assert.ok(readBacks >= 3, `three copies read the file back (${readBacks} reads, direct ${directWrites})`);
  }
});

/** What the hand-built patch of the test above makes, written out byte by byte. */
function makeTarget(head: Uint8Array, source: Uint8Array, size: number): Uint8Array {
  const t = new Uint8Array(size);
  let out = 0;
  t.set(head);
  out = head.length;
  let cursor = head.length - 20_000;
  for (let i = 0; i < 12_000; i++) t[out++] = t[cursor++]!;
  cursor = out - 30_000;
  for (let i = 0; i < 70_000; i++) t[out++] = t[cursor++]!;
  t.set(source.subarray(1000, 6000), out);
  out += 5000;
  cursor = 0;
  for (let i = 0; i < 9000; i++) t[out++] = t[cursor++]!;
  assert.equal(out, size);
  return t;
}

test('random IPS patches stream byte-exact, records across the windows laid in patch order', async () => {
  const s = await setup();
  const next = rng(0x1b5e);
  const int = (n: number) => Math.floor(next() * n);
  for (let n = 0; n < 6; n++) {
    const records: number[] = [];
    for (let k = 0, count = 1 + int(200); k < count; k++) {
      let offset = int(2) === 0 ? (1 + int(2)) * MiB - int(0x8000) : int(3 * MiB);
      if (offset === 0x454f46) offset++;
      const length = 1 + int(int(4) === 0 ? 0xffff : 500);
      records.push(offset >>> 16, (offset >>> 8) & 0xff, offset & 0xff);
      if (int(3) === 0) records.push(0, 0, length >>> 8, length & 0xff, int(256));
      else {
        records.push(length >>> 8, length & 0xff);
        for (let i = 0; i < length; i++) records.push(int(256));
      }
    }
    const cut = n % 3 === 2 ? [(int(3 * MiB) >>> 16) & 0xff, (int(MiB) >>> 8) & 0xff, int(256)] : [];
    const patch = Uint8Array.from([0x50, 0x41, 0x54, 0x43, 0x48, ...records, 0x45, 0x4f, 0x46, ...cut]);
    await appliesExactly(s, patch, referenceApplyIps(patch, s.rom));
  }
  assert.equal(s.memory.reserved, 0);
});

test('a cancelled apply stops, leaves no file and releases its memory', async () => {
  const s = await setup();
  await writeFile(join(s.root, 'big.bps'), zeroBomb(s.rom, 256 * MiB, 7));
  const ac = new AbortController();
  const store = getRomStore(s.services);
  const applying = store
    .withRom('roms/game.nds', (rom) =>
      applyPatchFile(s.services.workspace, rom, 'big.bps', s.memory, ac.signal),
    )
    .then(
      () => null,
      (error: unknown) => error,
    );
  // Cancelled once the result is being written.
  let seen: string[] = [];
  for (let i = 0; i < 2000 && seen.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 2));
    seen = await patchedFiles(s.root);
  }
  assert.equal(seen.length, 1, 'the result was being written');
  assert.match(seen[0]!, /\/\.[0-9a-f]{16}\.nds\.\d+\.[0-9a-f]{12}\.tmp$/);
  ac.abort();
  const error = await applying;
  assert.ok(error instanceof ReMcpError && error.code === 'cancelled', String(error));
  assert.deepEqual(await patchedFiles(s.root), []);
  assert.equal(s.memory.reserved, 0);
});

test('a result whose CRC-32 fails at its end is refused after megabytes were written, and leaves no file', async () => {
  const s = await setup();
  const size = 12 * MiB;
  const target = new Uint8Array(size);
  target.set(s.rom);
  target[size - 1] = 1; // the CRC names this target; the actions make zeros there
  const patch = new BpsBuilder(s.rom.length, size)
    .sourceRead(s.rom.length)
    .targetRead([0])
    .targetCopy(size - s.rom.length - 1, s.rom.length)
    .finish(referenceCrc32(s.rom), referenceCrc32(target));
  await writeFile(join(s.root, 'late.bps'), patch);
  const e = await s.fails('nds_patch_apply', { patch: 'late.bps' }, 'verification-failed');
  assert.match(e.message, /does not have the CRC-32 the BPS patch names/);
  assert.deepEqual(await patchedFiles(s.root), []);
  assert.equal(s.memory.reserved, 0);
});

test('two results that together pass the quota: one is written, the other refused, nothing partial left', async () => {
  const s = await setup();
  const size = 48 * MiB;
  await writeFile(join(s.root, 'a.bps'), zeroBomb(s.rom, size, 1));
  await writeFile(join(s.root, 'b.bps'), zeroBomb(s.rom, size, 2));
  await mkdir(join(s.root, 'output/patched/0123456789abcdef'), { recursive: true });
  const old = await open(join(s.root, 'output/patched/0123456789abcdef/old.nds'), 'w');
  await old.truncate(APPLY_LIMITS.patchedBytes.max - size - MiB);
  await old.close();
  const results = await Promise.all(['a.bps', 'b.bps'].map((patch) => s.call('nds_patch_apply', { patch })));
  const refused = results.filter((r) => r.isError);
  assert.equal(refused.length, 1, JSON.stringify(results.map((r) => r.structuredContent.error ?? 'ok')));
  assert.equal(refused[0]!.structuredContent.error.code, 'limit-exceeded');
  assert.match(refused[0]!.structuredContent.error.message, /would pass its quota/);
  const files = await patchedFiles(s.root);
  assert.equal(files.length, 2, files.join(', '));
  assert.ok(files.every((f) => !f.endsWith('.tmp')));
  assert.equal(s.memory.reserved, 0);
});

test('a result many times the whole memory budget streams within its window', async () => {
  const budget = applyStreamBytes() + 2 * MiB;
  const s = await setup(budget);
  await writeFile(join(s.root, 'big.bps'), zeroBomb(s.rom, 96 * MiB, 3));
  const r = await s.ok('nds_patch_apply', { patch: 'big.bps' });
  assert.equal(r.outputSize, 96 * MiB);
  const expected = new Uint8Array(96 * MiB);
  expected.set(s.rom);
  assert.equal(r.outputSha256, sha(expected));
  assert.equal(sha(await readFile(join(s.root, r.output))), r.outputSha256);
  assert.ok(s.peak() <= budget && s.peak() >= applyStreamBytes(), `peak reserved ${s.peak()}`);
  assert.equal(s.memory.reserved, 0);
});
