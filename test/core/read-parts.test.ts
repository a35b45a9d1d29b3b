// core/read-parts.ts: a large read as parts read at once gives the bytes one read gives; a short part
// ends the count (what later parts read does not follow on); a failing part is thrown only once every
// part has settled, so nothing still writes into the buffer.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readInParts } from '../../src/core/read-parts.js';

const data = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 7 + (i >> 8)) & 0xff);

const reader =
  (source: Uint8Array, log: Array<[number, number]> = []) =>
  async (into: Uint8Array, position: number) => {
    log.push([position, into.length]);
    const piece = source.subarray(position, position + into.length);
    into.set(piece);
    return piece.length;
  };

test('parts read at once give the bytes of one read, each part at its own place', async () => {
  for (const [position, length, part] of [
    [0, 10_000, 1024],
    [3, 9_000, 1000],
    [100, 500, 1024],
    [0, 4096, 4096],
  ] as const) {
    const into = new Uint8Array(length);
    const log: Array<[number, number]> = [];
    const n = await readInParts(reader(data, log), into, position, part);
    assert.equal(n, length);
    assert.deepEqual(into, data.subarray(position, position + length));
    assert.equal(log.length, Math.ceil(length / part));
    assert.equal(
      log.reduce((s, [, l]) => s + l, 0),
      length,
    );
  }
});

test('at the end of the file the count stops at the first short part', async () => {
  const into = new Uint8Array(4000);
  // 9000 + 4000 runs 3000 bytes past the end: parts of 1000 read 1000, 0, 0, 0.
  assert.equal(await readInParts(reader(data), into, 9000, 1000), 1000);
  // A short part in the middle (a file that shrank while read) ends the count even if later parts read.
  const holey = async (into: Uint8Array, position: number) => {
    const n = position === 2000 ? 10 : into.length;
    into.fill(1, 0, n);
    return n;
  };
  assert.equal(await readInParts(holey, new Uint8Array(5000), 0, 1000), 2010);
});

test('a failing part is thrown once every part has settled', async () => {
  let pending = 0;
  const slowAndFailing = async (into: Uint8Array, position: number) => {
    pending++;
    await new Promise((resolve) => setTimeout(resolve, position === 0 ? 1 : 30));
    pending--;
    if (position === 0) throw new Error('part 0 failed');
    return into.length;
  };
  await assert.rejects(readInParts(slowAndFailing, new Uint8Array(4000), 0, 1000), /part 0 failed/);
  assert.equal(pending, 0, 'a part was still reading when the failure was thrown');
});
