// Reading an opened file whole (src/workspace/read-whole.ts): every byte, a file that ends sooner cut
// to what it has, and readWholeHashed's hash of a prefix equal to one taken of the bytes afterwards,
// whatever the piece size against the file's and the prefix's sizes; a cancelled read stops.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { type FileHandle, open, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { readWhole, readWholeHashed } from '../../src/workspace/read-whole.js';
import { makeWorkspace } from '../kit/mcp-harness.js';

const root = await makeWorkspace('re-mcp-read-whole-');
after(() => rm(root, { recursive: true, force: true }));
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** A file of `n` bytes of a fixed pseudo-random pattern. */
async function fileOf(name: string, n: number): Promise<{ path: string; bytes: Buffer }> {
  const bytes = Buffer.alloc(n);
  let x = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  const path = join(root, name);
  await writeFile(path, bytes);
  return { path, bytes };
}

/** Runs `check` on a file of `n` pattern bytes (named `name`), opened for reading and closed after. */
async function withFile(
  name: string,
  n: number,
  check: (h: FileHandle, bytes: Buffer) => Promise<void>,
): Promise<void> {
  const { path, bytes } = await fileOf(name, n);
  const h = await open(path, 'r');
  try {
    await check(h, bytes);
  } finally {
    await h.close();
  }
}

test('readWhole reads every byte, and a file shorter than the size asked is cut to what it has', () =>
  withFile('a.bin', 100_000, async (h, bytes) => {
    assert.ok((await readWhole(h, bytes.length)).equals(bytes));
    const longer = await readWhole(h, bytes.length + 500);
    assert.equal(longer.length, bytes.length);
    assert.ok(longer.equals(bytes));
  }));

test('readWholeHashed gives the bytes and the SHA-256 of the prefix, for any piece size', () =>
  withFile('b.bin', 70_001, async (h, bytes) => {
    for (const piece of [1, 7, 4096, 10_000, 70_001, 1 << 20])
      for (const hashed of [0, 1, 32, 9_999, 10_000, 70_000 - 32, 70_001, 90_000]) {
        const r = await readWholeHashed(h, bytes.length, hashed, undefined, piece);
        assert.ok(r.bytes.equals(bytes), `piece ${piece}`);
        assert.equal(
          r.sha256,
          sha(bytes.subarray(0, Math.min(hashed, bytes.length))),
          `piece ${piece} hashed ${hashed}`,
        );
      }
    // Asked for more than the file has: cut, and the hash covers what was read.
    const r = await readWholeHashed(h, bytes.length + 3000, bytes.length + 3000, undefined, 4096);
    assert.ok(r.bytes.equals(bytes));
    assert.equal(r.sha256, sha(bytes));
    // An empty read.
    const none = await readWholeHashed(h, 0, 0);
    assert.equal(none.bytes.length, 0);
    assert.equal(none.sha256, sha(new Uint8Array(0)));
  }));

test('readWholeHashed stops at a cancellation between pieces', () =>
  withFile('c.bin', 50_000, async (h, bytes) => {
    const ac = new AbortController();
    ac.abort();
    await assert.rejects(readWholeHashed(h, bytes.length, bytes.length, ac.signal, 1000), {
      code: 'cancelled',
    });
  }));

test('readWholeHashed cut short leaves nothing but zeros past what it read', () =>
  withFile('d.bin', 5000, async (h, bytes) => {
    const r = await readWholeHashed(h, 9000, 9000, undefined, 1024);
    assert.equal(r.bytes.length, 5000);
    const under = new Uint8Array(r.bytes.buffer, r.bytes.byteOffset, 9000);
    assert.ok(Buffer.from(under.subarray(0, 5000)).equals(bytes));
    assert.ok(under.subarray(5000).every((b) => b === 0));
  }));
