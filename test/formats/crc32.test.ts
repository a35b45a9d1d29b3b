// CRC-32 and its combination without the bytes: the check value, the CRC of A then B from the CRCs of A
// and B, and the CRC of n zero bytes, against the CRC of the bytes themselves; and the rebuild's CRC of
// a planned output (the source zero-extended with pieces laid over it) against the bytes it describes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32, crc32Combine, crc32Zeros } from '../../src/formats/crc32.js';
import { plannedOutputCrc } from '../../src/rebuild/patches.js';
import type { Plan } from '../../src/rebuild/plan/index.js';
import { rng } from '../kit/rng.js';

const bytes = (next: () => number, n: number) =>
  Uint8Array.from({ length: n }, () => Math.floor(next() * 256));

test('crc32: the standard check value; continuing equals one pass', () => {
  assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
  assert.equal(crc32(new Uint8Array(0)), 0);
  const next = rng(1);
  const data = bytes(next, 5000);
  assert.equal(crc32(data.subarray(1234), crc32(data.subarray(0, 1234))), crc32(data));
});

test('crc32Combine gives the CRC of A then B; crc32Zeros the CRC of n zero bytes', () => {
  const next = rng(2);
  for (let t = 0; t < 200; t++) {
    const a = bytes(next, Math.floor(next() * 4000));
    const b = bytes(next, Math.floor(next() * 4000));
    const ab = new Uint8Array(a.length + b.length);
    ab.set(a);
    ab.set(b, a.length);
    assert.equal(crc32Combine(crc32(a), crc32(b), b.length), crc32(ab), `case ${t}`);
  }
  for (const n of [0, 1, 2, 3, 7, 8, 255, 256, 4095, 65_536, 100_003, 1 << 20, (1 << 22) + 17])
    assert.equal(crc32Zeros(n), crc32(new Uint8Array(n)), `${n} zeros`);
});

test("the planned output's CRC-32 equals the CRC-32 of the bytes it describes", () => {
  const next = rng(3);
  for (let t = 0; t < 100; t++) {
    const source = bytes(next, Math.floor(next() * 20_000));
    const size = source.length + (next() < 0.5 ? 0 : Math.floor(next() * 20_000));
    const pieces: { offset: number; bytes: Uint8Array; owner: string }[] = [];
    for (let at = Math.floor(next() * 500); at < size; at += 1 + Math.floor(next() * 3000)) {
      const n = Math.min(size - at, 1 + Math.floor(next() * 400));
      pieces.push({ offset: at, bytes: bytes(next, n), owner: 'test' });
      at += n;
    }
    const plan = {
      resolved: { source: { size: source.length, sha256: '' }, output: { size, romName: 'x.nds' } },
      pieces,
      ownedPrefix: [],
    } as unknown as Plan;
    const out = new Uint8Array(size);
    out.set(source.subarray(0, Math.min(size, source.length)));
    for (const p of pieces) out.set(p.bytes, p.offset);
    const read = (offset: number, length: number) =>
      source.subarray(offset, Math.min(source.length, offset + length));
    assert.equal(plannedOutputCrc(plan, crc32(source), read), crc32(out), `case ${t}`);
  }
});
