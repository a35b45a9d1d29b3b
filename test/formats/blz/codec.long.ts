// Long BLZ runs (npm run test:fuzz-long): 100,000+ mutated blobs through the strict decoder, each
// accepted one cross-checked against a console-style in-place decode, and bigger encoder round trips.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isReMcpError } from '../../../src/core/errors.js';
import { blzDecode, blzEncode, blzParseFooter } from '../../../src/formats/blz/index.js';
import { rng } from '../../kit/rng.js';
import { decodeLikeConsole, NAMES, read, u32 } from './kit.js';

function mutate(base: Uint8Array, next: () => number, kind: number): Uint8Array {
  const int = (n: number) => Math.floor(next() * n);
  const blob = base.slice();
  switch (kind) {
    case 0: // a few bit flips anywhere
      for (let f = 1 + int(4); f > 0; f--) blob[int(blob.length)]! ^= 1 << int(8);
      return blob;
    case 1: // bit flips in the footer and the last stream bytes (where decoding starts)
      for (let f = 1 + int(3); f > 0; f--)
        blob[blob.length - 1 - int(Math.min(24, blob.length))]! ^= 1 << int(8);
      return blob;
    case 2: // a random byte overwritten
      blob[int(blob.length)] = int(256);
      return blob;
    case 3: // extra size nudged by a little
      if (blob.length >= 4)
        new DataView(blob.buffer).setUint32(
          blob.length - 4,
          (u32(blob, blob.length - 4) + int(65) - 32) >>> 0,
          true,
        );
      return blob;
    case 4: // compressed length nudged by a little
      if (blob.length >= 8) {
        const word = u32(blob, blob.length - 8);
        const length = ((word & 0xffffff) + int(33) - 16) & 0xffffff;
        new DataView(blob.buffer).setUint32(blob.length - 8, ((word & 0xff000000) | length) >>> 0, true);
      }
      return blob;
    case 5: // cut at the end, cut at the start, or bytes appended
      if (next() < 0.4) return blob.slice(0, int(blob.length));
      if (next() < 0.6) return blob.slice(int(blob.length));
      return Uint8Array.from([...blob, ...Array.from({ length: 1 + int(8) }, () => int(256))]);
    default: {
      // garbage behind a plausible coded footer: header 8..11, small compressed length, small extra
      const garbage = Uint8Array.from({ length: 8 + int(300) }, () => int(256));
      const view = new DataView(garbage.buffer);
      view.setUint32(garbage.length - 8, (int(garbage.length + 1) | ((8 + int(4)) << 24)) >>> 0, true);
      view.setUint32(garbage.length - 4, int(2000), true);
      return garbage;
    }
  }
}

test('fuzz: 100,000+ mutated blobs give bytes (matching a console decode) or blz-malformed', (t) => {
  const next = rng(0x10f022);
  const small: Uint8Array[] = [];
  for (const n of [0, 1, 13, 40, 100, 300, 700, 1500, 3000]) {
    small.push(
      blzEncode(Uint8Array.from({ length: n }, () => (next() < 0.6 ? 0 : Math.floor(next() * 256)))),
    );
    small.push(blzEncode(Uint8Array.from({ length: n }, () => Math.floor(next() * 4))));
  }
  for (const name of ['tiny-13.bin', 'one-byte.bin', 'zeros-4096.bin', 'random-3000.bin']) {
    small.push(read('cue-greedy', name), read('cue-optimal', name));
  }
  const large = NAMES.filter((n) => n.endsWith('.bin') && n.includes('arm')).map((n) =>
    read('cue-optimal', n),
  );

  let accepted = 0;
  let rejected = 0;
  const total = 104_000;
  for (let i = 0; i < total; i++) {
    const pool = i % 26 === 0 ? large : small;
    const blob = mutate(pool[Math.floor(next() * pool.length)]!, next, i % 7);
    let out: Uint8Array | undefined;
    try {
      out = blzDecode(blob);
    } catch (e) {
      if (!isReMcpError(e) || e.code !== 'blz-malformed') throw e;
      rejected++;
      continue;
    }
    accepted++;
    assert.equal(out.length, blzParseFooter(blob).decodedLength);
    let inPlace: Uint8Array | undefined;
    try {
      inPlace = blzDecode(blob, { inPlace: true });
    } catch (e) {
      if (!isReMcpError(e) || e.code !== 'blz-malformed') throw e;
    }
    // Whatever the strict decoder accepts for in-place use, the console's own algorithm agrees with.
    if (inPlace) assert.deepEqual(decodeLikeConsole(blob).subarray(0, inPlace.length), inPlace, `case ${i}`);
  }
  t.diagnostic(`${total} blobs: ${accepted} decoded, ${rejected} rejected as blz-malformed`);
  assert.ok(accepted > 1000 && rejected > 1000, `both outcomes exercised: ${accepted} / ${rejected}`);
});

test('round trips: bigger inputs up to 4 MiB and every shared input with a 0x4000 prefix', () => {
  const next = rng(0xb16);
  const int = (n: number) => Math.floor(next() * n);
  for (let i = 0; i < 24; i++) {
    const n = i < 4 ? 4 << 20 : int(1 << 20);
    const period = 1 + int(9000);
    const seed = Uint8Array.from({ length: period }, () => int(i % 3 === 0 ? 4 : 256));
    const data = Uint8Array.from({ length: n }, (_, j) =>
      next() < 0.02 * (i % 4) ? int(256) : seed[j % period]!,
    );
    const blob = blzEncode(data, { prefixLength: i % 5 === 0 ? int(n + 1) : 0 });
    assert.deepEqual(decodeLikeConsole(blob).subarray(0, n), data);
  }
  for (const name of NAMES) {
    const input = read('in', name);
    const blob = blzEncode(input, { prefixLength: Math.min(0x4000, input.length) });
    assert.deepEqual(blzDecode(blob, { inPlace: true }).subarray(0, input.length), input, name);
    assert.deepEqual(decodeLikeConsole(blob).subarray(0, input.length), input, name);
  }
});
