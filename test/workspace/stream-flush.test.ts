// Streamed writes (stream-write.ts writeStream) with early background flushes and direct writes: a flush
// runs beside the writes (at most one at a time, never awaited before the next write), the bytes land
// exactly as with no flush at all, and a failure — a write's or a flush's — stops the stream, is thrown
// only after everything already started on the file has settled, and leaves no file behind. Chunks in
// aligned buffers at aligned positions go through the O_DIRECT descriptor, everything else (and all of
// it once the file system refuses a direct write) through the page cache, with the same bytes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, readlink, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  alignedBuffer,
  DIRECT_ALIGNMENT,
  type StreamTarget,
  streamWriting,
  writeStream,
} from '../../src/workspace/stream-write.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { REPO_ROOT } from '../kit/mcp-harness.js';

let base: string;
let ws: Workspace;
before(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 're-mcp-flush-')));
  ws = new Workspace(base);
});
after(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Runs `fn` with the stream-writing parameters changed, restoring them afterwards. */
async function withWriting<T>(change: Partial<typeof streamWriting>, fn: () => Promise<T>): Promise<T> {
  const saved = { ...streamWriting };
  Object.assign(streamWriting, change);
  try {
    return await fn();
  } finally {
    Object.assign(streamWriting, saved);
  }
}

/** Chunks of uneven sizes (1 byte to 70 KiB) with position-dependent content. */
function chunks(): Uint8Array[] {
  const out: Uint8Array[] = [];
  let seed = 12345;
  let at = 0;
  for (let i = 0; i < 120; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const length = i % 17 === 0 ? 1 : seed % 70_000;
    out.push(new Uint8Array(length).map((_, j) => ((at + j) * 7 + (at + j) / 251) & 0xff));
    at += length;
  }
  return out;
}

async function* stream(parts: Uint8Array[], onEnd?: () => void) {
  try {
    for (const p of parts) yield p;
  } finally {
    onEnd?.();
  }
}

test('a flush after every chunk lands the same bytes as no early flush', async () => {
  const parts = chunks();
  const expected = Buffer.concat(parts);
  const dir = await ws.outputDir('output', ['flush']);
  try {
    await withWriting({ earlyFlushBytes: 1 }, () => dir.writeAtomic('many.bin', stream(parts)));
    await withWriting({ earlyFlushBytes: Number.MAX_SAFE_INTEGER }, () =>
      dir.writeAtomic('none.bin', stream(parts)),
    );
    const many = await readFile(join(base, 'output', 'flush', 'many.bin'));
    const none = await readFile(join(base, 'output', 'flush', 'none.bin'));
    assert.ok(many.equals(expected));
    assert.ok(none.equals(expected));
  } finally {
    await dir.close();
  }
});

/** A file in memory whose writes and flushes complete when the test says so. */
class FakeTarget {
  readonly file: number[] = [];
  flushes = 0;
  flushesInFlight = 0;
  maxFlushesInFlight = 0;
  writesDuringFlush = 0;
  writes = 0;
  failWriteNumber = -1;
  failWriteCode = 'EIO';
  readonly spans: Array<[number, number]> = [];
  failFlushNumber = -1;
  readonly heldFlushes: Array<() => void> = [];
  holdFlushes = false;
  flushSettledCount = 0;
  failedBuffer: Uint8Array | null = null;

  asTarget(): StreamTarget {
    return this as unknown as StreamTarget;
  }

  async write(buffer: Uint8Array, offset: number, length: number, position: number) {
    const n = ++this.writes;
    if (this.flushesInFlight > 0) this.writesDuringFlush++;
    await new Promise((r) => setImmediate(r));
    if (n === this.failWriteNumber) {
      this.failedBuffer = buffer;
      throw Object.assign(new Error(`${this.failWriteCode}: write`), { code: this.failWriteCode });
    }
    for (let i = 0; i < length; i++) this.file[position + i] = buffer[offset + i]!;
    this.spans.push([position, length]);
    return { bytesWritten: length, buffer };
  }

  async datasync() {
    const n = ++this.flushes;
    this.flushesInFlight++;
    this.maxFlushesInFlight = Math.max(this.maxFlushesInFlight, this.flushesInFlight);
    try {
      if (this.holdFlushes) await new Promise<void>((r) => this.heldFlushes.push(r));
      else await new Promise((r) => setTimeout(r, 1));
      if (n === this.failFlushNumber)
        throw Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
    } finally {
      this.flushesInFlight--;
      this.flushSettledCount++;
    }
  }
}

test('early flushes run one at a time beside the writes, which do not wait for them', async () => {
  const parts = chunks();
  const target = new FakeTarget();
  const written: Uint8Array[] = [];
  await withWriting({ earlyFlushBytes: 100_000 }, () =>
    writeStream(target.asTarget(), stream(parts), (c) => written.push(c)),
  );
  assert.deepEqual(Buffer.from(target.file), Buffer.concat(parts));
  assert.equal(written.length, parts.length, 'every chunk reported written');
  assert.ok(target.flushes >= 10, `flushes started: ${target.flushes}`);
  assert.equal(target.maxFlushesInFlight, 1);
  assert.ok(target.writesDuringFlush > 0, 'writes went on while a flush was running');
  assert.equal(target.flushSettledCount, target.flushes, 'no flush outlives the call');
});

test('a write failing while a flush is in flight is thrown only after the flush settles', async () => {
  const target = new FakeTarget();
  target.holdFlushes = true;
  target.failWriteNumber = 3;
  let producerClosed = false;
  const written: Uint8Array[] = [];
  const parts = chunks();
  const outcome = withWriting({ earlyFlushBytes: 1 }, () =>
    writeStream(
      target.asTarget(),
      stream(parts, () => {
        producerClosed = true;
      }),
      (c) => written.push(c),
    ),
  ).then(
    () => null,
    (error: NodeJS.ErrnoException) => error,
  );
  // Let the writes run and fail while the first flush is held.
  for (let i = 0; i < 50 && target.writes < 3; i++) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setTimeout(r, 20));
  let settled = false;
  void outcome.then(() => {
    settled = true;
  });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(target.flushesInFlight, 1, 'the flush is still running');
  assert.equal(settled, false, 'the failure waits for the flush in flight');
  for (const release of target.heldFlushes.splice(0)) release();
  const error = await outcome;
  assert.equal(error?.code, 'EIO');
  assert.equal(target.flushesInFlight, 0);
  assert.ok(producerClosed, 'the producer was stopped');
  assert.ok(
    target.failedBuffer !== null && !written.includes(target.failedBuffer),
    'the failed chunk is not reported',
  );
  assert.ok(target.writes < parts.length, 'no chunk was written after the failure was seen');
});

test('a failing early flush fails the stream (a build is never published unsynced)', async () => {
  const target = new FakeTarget();
  target.failFlushNumber = 2;
  const error = await withWriting({ earlyFlushBytes: 100_000 }, () =>
    writeStream(target.asTarget(), stream(chunks())),
  ).then(
    () => null,
    (e: NodeJS.ErrnoException) => e,
  );
  assert.equal(error?.code, 'EIO');
  assert.equal(target.flushesInFlight, 0);
});

test('a stream failing while flushes run leaves neither the file nor a temp', async () => {
  const dir = await ws.outputDir('output', ['failing']);
  try {
    async function* oneThenGone() {
      yield new Uint8Array(50_000).fill(1);
      yield new Uint8Array(50_000).fill(2);
      throw new Error('source gone');
    }
    const error = await withWriting({ earlyFlushBytes: 1 }, () =>
      dir.writeAtomic('f.bin', oneThenGone()),
    ).then(
      () => null,
      (e: Error) => e,
    );
    assert.ok(error);
    assert.deepEqual(await readdir(join(base, 'output', 'failing')), []);
  } finally {
    await dir.close();
  }
});

/** The bytes of two fake targets laid over each other (each wrote its own ranges). */
function merged(a: FakeTarget, b: FakeTarget): Buffer {
  const out = Buffer.alloc(Math.max(a.file.length, b.file.length));
  for (const t of [a, b])
    for (const [at, n] of t.spans) for (let i = at; i < at + n; i++) out[i] = t.file[i]!;
  return out;
}

/** A chunk of `length` bytes in a page-aligned buffer (at `offset` into it), filled with `fill`. */
function alignedChunk(length: number, fill: number, offset = 0): Uint8Array {
  return new Uint8Array(alignedBuffer(offset + length), offset, length).fill(fill);
}

test('aligned chunks go direct; unaligned ones and a tail under one block go through the page cache', async () => {
  const A = DIRECT_ALIGNMENT;
  const parts = [
    alignedChunk(2 * A, 1), // at 0: direct
    alignedChunk(A + 100, 2), // at 2A: A direct, then 100 bytes buffered at 3A
    new Uint8Array(5000).fill(3), // ordinary memory: buffered
    alignedChunk(A, 4), // aligned memory at an unaligned position: buffered
    alignedChunk(A, 5, 16), // unaligned offset into aligned memory: buffered
  ];
  const buffered = new FakeTarget();
  const direct = new FakeTarget();
  await withWriting({ earlyFlushBytes: Number.MAX_SAFE_INTEGER }, () =>
    writeStream(buffered.asTarget(), stream(parts), undefined, direct.asTarget()),
  );
  assert.deepEqual(direct.spans, [
    [0, 2 * A],
    [2 * A, A],
  ]);
  const at = 3 * A + 100;
  assert.deepEqual(buffered.spans, [
    [3 * A, 100],
    [at, 5000],
    [at + 5000, A],
    [at + 5000 + A, A],
  ]);
  assert.ok(merged(buffered, direct).equals(Buffer.concat(parts)));
});

test('a direct write refused as invalid sends it and every later write through the page cache', async () => {
  const parts = Array.from({ length: 6 }, (_, i) => alignedChunk(2 * DIRECT_ALIGNMENT, i + 1));
  const buffered = new FakeTarget();
  const direct = new FakeTarget();
  direct.failWriteNumber = 2;
  direct.failWriteCode = 'EINVAL';
  await withWriting({ earlyFlushBytes: Number.MAX_SAFE_INTEGER }, () =>
    writeStream(buffered.asTarget(), stream(parts), undefined, direct.asTarget()),
  );
  assert.ok(direct.spans.length <= 2, 'no direct write after the refusal');
  assert.ok(buffered.spans.length >= 4);
  assert.ok(merged(buffered, direct).equals(Buffer.concat(parts)));
  // Any other direct write error is the stream's failure, not a fallback.
  const failing = new FakeTarget();
  failing.failWriteNumber = 1;
  const error = await writeStream(
    new FakeTarget().asTarget(),
    stream(parts),
    undefined,
    failing.asTarget(),
  ).then(
    () => null,
    (e: NodeJS.ErrnoException) => e,
  );
  assert.equal(error?.code, 'EIO');
});

test('early flushes count only the bytes written through the page cache', async () => {
  const parts = Array.from({ length: 8 }, (_, i) => alignedChunk(DIRECT_ALIGNMENT, i + 1));
  const buffered = new FakeTarget();
  await withWriting({ earlyFlushBytes: 1 }, () =>
    writeStream(buffered.asTarget(), stream(parts), undefined, new FakeTarget().asTarget()),
  );
  assert.equal(buffered.flushes, 0, 'nothing direct is flushed early');
  const plain = new FakeTarget();
  await withWriting({ earlyFlushBytes: 1 }, () => writeStream(plain.asTarget(), stream(parts)));
  assert.ok(plain.flushes > 0);
});

/** Whether some descriptor of this process open on a file whose name contains `part` has O_DIRECT. */
async function directDescriptorOn(part: string): Promise<boolean> {
  for (const fd of await readdir('/proc/self/fd')) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => '');
    if (!target.includes(part)) continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => '');
    const flags = /flags:\s+([0-7]+)/.exec(info);
    if (flags && (Number.parseInt(flags[1]!, 8) & 0o40000) !== 0) return true;
  }
  return false;
}

test('a real file written with direct: the descriptor has O_DIRECT and the bytes equal the buffered path', async () => {
  const A = DIRECT_ALIGNMENT;
  const make = () => [
    alignedChunk(64 * A, 7),
    alignedChunk(3 * A + 333, 8),
    new Uint8Array(777).fill(9),
    alignedChunk(A, 10),
  ];
  const dir = await ws.outputDir('output', ['direct']);
  try {
    let sawDirect = false;
    async function* watched(parts: Uint8Array[]) {
      for (const p of parts) {
        yield p;
        sawDirect ||= await directDescriptorOn('.d.bin.');
      }
    }
    await dir.writeAtomic('d.bin', watched(make()), { direct: true });
    assert.ok(sawDirect, 'the temp file had an O_DIRECT descriptor while it was written');
    let sawWithout = false;
    await withWriting({ direct: false }, () =>
      dir.writeAtomic(
        'b.bin',
        (async function* () {
          for (const p of make()) {
            yield p;
            sawWithout ||= await directDescriptorOn('.b.bin.');
          }
        })(),
        { direct: true },
      ),
    );
    assert.equal(sawWithout, false, 'direct writing turned off opens no O_DIRECT descriptor');
    const d = await readFile(join(base, 'output', 'direct', 'd.bin'));
    const b = await readFile(join(base, 'output', 'direct', 'b.bin'));
    assert.ok(d.equals(Buffer.concat(make())));
    assert.ok(b.equals(d));
  } finally {
    await dir.close();
  }
});

test('without WebAssembly (node --jitless) aligned buffers are ordinary ones and writes still land', async () => {
  const file = join(base, 'jitless.bin');
  const script = `
    import { open } from 'node:fs/promises';
    import { alignedBuffer, writeStream } from './src/workspace/stream-write.ts';
    const chunk = new Uint8Array(alignedBuffer(8192)).fill(5);
    const h = await open(${JSON.stringify(file)}, 'w');
    const d = await open(${JSON.stringify(file)}, 'r+');
    await writeStream(h, (async function* () { yield chunk; yield chunk; })(), undefined, d);
    await h.close(); await d.close();
    console.log(typeof WebAssembly, chunk.length);`;
  const run = spawnSync(
    process.execPath,
    ['--jitless', '--import', 'tsx', '--input-type=module', '-e', script],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    },
  );
  assert.equal(run.stdout.trim(), 'undefined 8192', run.stderr);
  const bytes = await readFile(file);
  assert.equal(bytes.length, 16_384);
  assert.ok(bytes.every((b) => b === 5));
});
