// Streamed writes with early background flushes (output-dir.ts writeStream): a flush runs beside the
// writes (at most one at a time, never awaited before the next write), the bytes land exactly as with
// no flush at all, and a failure — a write's or a flush's — stops the stream, is thrown only after
// everything already started on the file has settled, and leaves no file behind.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type StreamTarget, streamWriting, writeStream } from '../../src/workspace/output-dir.js';
import { Workspace } from '../../src/workspace/workspace.js';

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
      throw Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
    }
    for (let i = 0; i < length; i++) this.file[position + i] = buffer[offset + i]!;
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
