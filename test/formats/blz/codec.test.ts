// BLZ codec: third-party golden data, encoder size and round trips, in-place decodability as a console
// would decode, and the strict decoder's refusals (never anything but bytes or blz-malformed).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { isReMcpError } from '../../../src/core/errors.js';
import { blzDecode, blzEncode, blzIsCodedFooter, blzParseFooter } from '../../../src/formats/blz/index.js';
import { findMatches } from '../../../src/formats/blz/match.js';
import { ARM_KIT_BUILD_DIR } from '../../kit/arm/index.js';
import { rng } from '../../kit/rng.js';
import { decodeLikeConsole, NAMES, NO_BLZ, read, u32 } from './kit.js';

/** Real compiled ARM9 code that needs no corpus: the kit's realistic program (committed). */
const kitArm9 = () => new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, 'arm9-program.bin')));

/** Round trip through both decoders; returns the blob. */
function roundTrip(data: Uint8Array, prefixLength = 0): Uint8Array {
  const blob = blzEncode(data, { prefixLength });
  const footer = blzParseFooter(blob);
  const strict = blzDecode(blob, { inPlace: true });
  const consoleLike = decodeLikeConsole(blob);
  if (footer.coded) {
    assert.equal(strict.length, data.length);
    assert.ok(footer.rawPrefixLength >= prefixLength, 'forced prefix stays raw');
  } else {
    assert.equal(blob.length, ((data.length + 3) & ~3) + 4, 'not coded: data, padding to 4, 4 zero bytes');
    assert.ok(strict.subarray(data.length).every((b) => b === 0));
  }
  assert.deepEqual(strict.subarray(0, data.length), data);
  assert.deepEqual(consoleLike.subarray(0, data.length), data);
  assert.deepEqual(blob.subarray(0, prefixLength), data.subarray(0, prefixLength));
  return blob;
}

function expectMalformed(blob: Uint8Array, pattern?: RegExp): void {
  assert.throws(
    () => blzDecode(blob),
    (e: unknown) => isReMcpError(e) && e.code === 'blz-malformed' && (!pattern || pattern.test(e.message)),
  );
}

type Op = number | [length: number, distance: number];

/** A coded blob from raw stream bytes given in decode order, declaring `decoded` output bytes. */
function fromStream(prefix: number[], stream: number[], decoded: number): Uint8Array {
  const body = [...prefix, ...stream.slice().reverse()];
  const padding = (4 - (body.length % 4)) % 4;
  const header = 8 + padding;
  const size = body.length + header;
  const blob = new Uint8Array(size);
  blob.set(body);
  blob.fill(0xff, body.length, body.length + padding);
  const view = new DataView(blob.buffer);
  view.setUint32(size - 8, (stream.length + header) | (header << 24), true);
  view.setUint32(size - 4, prefix.length + decoded - size, true);
  return blob;
}

/** Hand-assembles a coded blob from tokens in decode order (literal byte, or [length, distance]). */
function assemble(prefix: number[], ops: Op[], extraDelta = 0): Uint8Array {
  const stream: number[] = [];
  let flagAt = 0;
  let decoded = 0;
  ops.forEach((op, i) => {
    if (i % 8 === 0) {
      flagAt = stream.length;
      stream.push(0);
    }
    if (typeof op === 'number') {
      stream.push(op);
      decoded++;
    } else {
      stream[flagAt]! |= 0x80 >> (i % 8);
      stream.push(((op[0] - 3) << 4) | ((op[1] - 3) >> 8), (op[1] - 3) & 0xff);
      decoded += op[0];
    }
  });
  return fromStream(prefix, stream, decoded + extraDelta);
}

describe('BLZ golden data from CUE', () => {
  for (const kind of ['cue-greedy', 'cue-optimal']) {
    test(`every ${kind} blob decodes to its input`, { skip: NO_BLZ }, () => {
      for (const name of NAMES) {
        const input = read('in', name);
        const blob = read(kind, name);
        const footer = blzParseFooter(blob);
        const decoded = blzDecode(blob);
        assert.equal(decoded.length, footer.decodedLength, name);
        assert.deepEqual(decoded.subarray(0, input.length), input, name);
        if (footer.coded) assert.equal(decoded.length, input.length, name);
        else
          assert.ok(
            decoded.length - input.length < 4 && decoded.subarray(input.length).every((b) => b === 0),
          );
        assert.deepEqual(decodeLikeConsole(blob).subarray(0, input.length), input, name);
      }
    });
  }
});

describe('BLZ encoder', () => {
  test('round-trips every shared input no larger than cue-optimal', { skip: NO_BLZ }, (t) => {
    const rows = ['input                         ours  greedy optimal'];
    let bytesIn = 0;
    let ms = 0;
    for (const name of NAMES) {
      const input = read('in', name);
      const start = performance.now();
      const blob = roundTrip(input);
      ms += performance.now() - start;
      bytesIn += input.length;
      const greedy = read('cue-greedy', name).length;
      const optimal = read('cue-optimal', name).length;
      rows.push(
        `${name.padEnd(28)} ${String(blob.length).padStart(6)} ${String(greedy).padStart(7)} ${String(optimal).padStart(7)}`,
      );
      assert.ok(blob.length <= optimal, `${name}: ${blob.length} > cue-optimal ${optimal}`);
    }
    for (const row of rows) t.diagnostic(row);
    t.diagnostic(`encode + 2 decodes: ${(bytesIn / 1e3 / ms).toFixed(2)} MB/s`);
  });

  test('a compressed ARM9 can keep its first 0x4000 bytes raw', () => {
    const input = kitArm9();
    const blob = roundTrip(input, 0x4000);
    assert.ok(blzParseFooter(blob).coded);
    assert.ok(blob.length < blzEncode(input.subarray(0x4000)).length + 0x4000 + 4);
  });

  test('empty, 1-byte, 13-byte and random inputs give valid not-coded blobs', () => {
    assert.deepEqual(blzEncode(new Uint8Array(0)), new Uint8Array(4));
    assert.deepEqual(blzDecode(new Uint8Array(4)), new Uint8Array(0));
    assert.deepEqual(blzEncode(Uint8Array.of(0xab)), Uint8Array.of(0xab, 0, 0, 0, 0, 0, 0, 0));
    const next = rng(13);
    const thirteen = Uint8Array.from({ length: 13 }, () => (next() * 256) | 0);
    const random = Uint8Array.from({ length: 5000 }, () => (next() * 256) | 0);
    for (const data of [thirteen, random, new Uint8Array(13)]) {
      const blob = roundTrip(data);
      assert.equal(blzParseFooter(blob).coded, false);
      assert.equal(blzIsCodedFooter(blob), false);
    }
  });

  test('rejects a bad prefixLength as invalid-argument', () => {
    for (const prefixLength of [-1, 1.5, 11, Number.NaN]) {
      assert.throws(
        () => blzEncode(new Uint8Array(10), { prefixLength }),
        (e: unknown) => isReMcpError(e) && e.code === 'invalid-argument',
      );
    }
  });

  test('property: random inputs 0 B .. 1 MiB round-trip and decode in place', () => {
    const next = rng(0x5eed);
    const int = (n: number) => Math.floor(next() * n);
    const makers: Array<(n: number) => Uint8Array> = [
      (n) => Uint8Array.from({ length: n }, () => int(256)), // incompressible
      (n) => Uint8Array.from({ length: n }, () => int(3)), // tiny alphabet: short matches everywhere
      (n) => {
        // repeats with mutations: long matches at many distances, some beyond the window
        const period = 1 + int(6000);
        const seed = Uint8Array.from({ length: period }, () => int(256));
        return Uint8Array.from({ length: n }, (_, i) => (next() < 0.01 ? int(256) : seed[i % period]!));
      },
      (n) => {
        // ARM-like: words drawn from a small vocabulary with runs of zeros
        const words = Array.from({ length: 1 + int(64) }, () => int(0x100000000));
        const out = new Uint8Array(n);
        for (let i = 0; i + 4 <= n; i += 4) {
          const w = next() < 0.2 ? 0 : words[int(words.length)]!;
          out[i] = w;
          out[i + 1] = w >>> 8;
          out[i + 2] = w >>> 16;
          out[i + 3] = w >>> 24;
        }
        return out;
      },
      (n) => {
        // incompressible start, compressible end and the reverse: the split point matters
        const half = int(n + 1);
        return Uint8Array.from({ length: n }, (_, i) => (i < half === next() < 0.5 ? int(256) : 7));
      },
    ];
    const sizes: number[] = [];
    for (let n = 0; n < 40; n++) sizes.push(n);
    for (let i = 0; i < 200; i++) sizes.push(int(4096));
    for (let i = 0; i < 12; i++) sizes.push(4096 + int(60000));
    sizes.push(1 << 20, 1 << 20);
    sizes.forEach((n, i) => {
      const data = makers[i % makers.length]!(n);
      const prefixLength = next() < 0.2 ? int(n + 1) : 0;
      roundTrip(data, prefixLength);
    });
  });
});

describe('BLZ encoder optimality against a brute-force reference', () => {
  /** Longest match at each position of x by trying every distance 3..4098 (lengths capped at 18). */
  function naiveLongest(x: Uint8Array): Uint8Array {
    const out = new Uint8Array(x.length);
    for (let k = 0; k < x.length; k++) {
      let best = 0;
      for (let d = 3; d <= Math.min(4098, k); d++) {
        let length = 0;
        while (length < 18 && k + length < x.length && x[k + length] === x[k + length - d]) length++;
        best = Math.max(best, length);
      }
      out[k] = best >= 3 ? best : 0;
    }
    return out;
  }

  /** Blob size from a plain 8-state DP (position x tokens mod 8) over every possible split. */
  function referenceSize(data: Uint8Array, prefixLength: number): number {
    const x = data.slice(prefixLength).reverse();
    const n = x.length;
    const longest = naiveLongest(x);
    const cost = new Array<number>((n + 1) * 8).fill(Number.POSITIVE_INFINITY);
    cost[0] = 0;
    let bestGain = 0;
    let bestCost = 0;
    let bestEnd = 0;
    for (let k = 0; k <= n; k++) {
      const here = Math.min(...cost.slice(k * 8, k * 8 + 8));
      if (k - here > bestGain) [bestGain, bestCost, bestEnd] = [k - here, here, k];
      for (let r = 0; r < 8 && k < n; r++) {
        const base = cost[k * 8 + r]! + (r === 0 ? 1 : 0);
        const next = (r + 1) % 8;
        cost[(k + 1) * 8 + next] = Math.min(cost[(k + 1) * 8 + next]!, base + 1);
        for (let length = 3; length <= longest[k]!; length++) {
          cost[(k + length) * 8 + next] = Math.min(cost[(k + length) * 8 + next]!, base + 2);
        }
      }
    }
    const coded = ((data.length - bestEnd + bestCost + 3) & ~3) + 8;
    const notCoded = ((data.length + 3) & ~3) + 4;
    return bestEnd > 0 && coded < notCoded && coded < data.length ? coded : notCoded;
  }

  test('match finder lengths and blob sizes equal the brute force on small inputs', () => {
    const next = rng(0xb0b);
    const random = (n: number, alphabet: number) =>
      Uint8Array.from({ length: n }, () => Math.floor(next() * alphabet));
    // Only match at the window's edge (x order: 18 bytes seen again exactly 4098 or 4099 bytes later).
    const edge = (distance: number) => {
      const x = random(distance + 18, 256);
      x.copyWithin(distance, 0, 18);
      return x.reverse();
    };
    const inputs = [edge(4098), edge(4099)];
    for (let i = 0; i < 40; i++) {
      const n = Math.floor(next() * (i < 30 ? 600 : 5000));
      const data = random(n, [2, 3, 4, 16, 256][i % 5]!);
      if (i % 7 === 0) data.fill(0, n >> 2, n >> 1); // a run, so some matches reach 18
      inputs.push(data);
    }
    for (const [i, data] of inputs.entries()) {
      const n = data.length;
      const x = data.slice().reverse();
      assert.deepEqual(findMatches(x).lengths, naiveLongest(x), `case ${i}: longest matches`);
      const prefixLength = i % 4 === 0 ? Math.floor(next() * (n + 1)) : 0;
      assert.equal(
        blzEncode(data, { prefixLength }).length,
        referenceSize(data, prefixLength),
        `case ${i}: size`,
      );
    }
  });
});

describe('BLZ strict decoder', () => {
  test('accepts hand-built edge cases: overlapping match, maximal distance', () => {
    // decode order: 3 literals then an 18-byte match at distance 3 (overlapping) -> 21 bytes
    const repeat = blzDecode(assemble([9], [1, 2, 3, [18, 3]]));
    assert.deepEqual(
      repeat,
      Uint8Array.from([9, ...Array.from({ length: 21 }, (_, i) => [3, 2, 1][i % 3]!)]),
    );
    // 4098 literals, a match reaching back the full window, then filler so the blob is worth coding
    const far = Array.from({ length: 4098 }, (_, i) => (i * 7) & 0xff);
    const filler: Op[] = Array.from({ length: 300 }, () => [18, 3]);
    const decoded = blzDecode(assemble([], [...far, [18, 4098], ...filler]));
    const matchEnd = decoded.length - 4098;
    assert.deepEqual(decoded.subarray(matchEnd - 18, matchEnd), Uint8Array.from(far.slice(0, 18).reverse()));
  });

  test('rejects too short blobs and bad footers', () => {
    for (const length of [0, 1, 2, 3]) expectMalformed(new Uint8Array(length), /shorter|4/);
    expectMalformed(Uint8Array.of(0, 0, 0, 1, 0, 0, 0), /footer/);
    const good = blzEncode(kitArm9());
    const at = good.length - 8;
    const withWord = (word: number) => {
      const copy = good.slice();
      new DataView(copy.buffer).setUint32(at, word, true);
      return copy;
    };
    const word = u32(good, at);
    for (const header of [0, 7, 12, 255])
      expectMalformed(withWord((word & 0xffffff) | (header << 24)), /header length/);
    expectMalformed(withWord((word & 0xff000000) | (good.length + 1)), /exceeds/);
    expectMalformed(withWord((word & 0xff000000) | 5), /less than header/);
    const huge = good.slice();
    new DataView(huge.buffer).setUint32(good.length - 4, 0xffffffff, true);
    expectMalformed(huge, /more than/);
  });

  test('rejects streams that end early, overrun, or copy from outside the output', () => {
    const ok: Op[] = [5, 6, 7, [18, 3], [18, 3], 8];
    assert.equal(blzDecode(assemble([1, 2], ok)).length, 2 + 3 + 36 + 1);
    expectMalformed(assemble([1, 2], ok, 1), /not produced/);
    expectMalformed(assemble([1, 2], ok, -1), /literal writes below/);
    expectMalformed(assemble([1, 2], ok.slice(0, 5), -1), /match writes below/);
    expectMalformed(assemble([], [1, 2, 3, [3, 5], [18, 3], [18, 3], [18, 3]]), /beyond the end/);
    // a full group of 8 literals, then a flag byte and nothing after it
    expectMalformed(fromStream([], [0, 1, 2, 3, 4, 5, 6, 7, 8, 0], 30), /flag byte/);
    // the flag announces a match but only one byte remains
    expectMalformed(fromStream([], [0x80, 0x12], 13), /cut off/);
  });

  test('inPlace flags a blob that decodes only into a separate buffer', () => {
    // Decode order: 3 literals + 5 long matches (gain 90 - 14 - 1 ... large), then 40 literals:
    // the gain peaks early, so in place the output overtakes the stream's unread literals.
    const literals = Array.from({ length: 40 }, (_, i) => (i * 37 + 11) & 0xff);
    const blob = assemble([], [0, 0, 0, [18, 3], [18, 3], [18, 3], [18, 3], [18, 3], ...literals]);
    const separate = blzDecode(blob);
    assert.equal(separate.length, 3 + 90 + 40);
    assert.throws(
      () => blzDecode(blob, { inPlace: true }),
      (e: unknown) => isReMcpError(e) && e.code === 'blz-malformed' && /in place/.test(e.message),
    );
  });

  test('fuzz: thousands of mutated and random blobs give bytes or blz-malformed', () => {
    fuzz(0xf022, 4000, fuzzSeeds());
  });
});

function fuzzSeeds(): Uint8Array[] {
  // Third-party blobs when the golden corpus is there; our own encodes of the same inputs otherwise.
  const seeds: Uint8Array[] = NO_BLZ
    ? [blzEncode(new Uint8Array(4096)), blzEncode(Uint8Array.from({ length: 13 }, (_, i) => i * 7))]
    : [read('cue-optimal', 'zeros-4096.bin'), read('cue-greedy', 'tiny-13.bin')];
  const next = rng(7);
  for (const n of [40, 300, 2000]) {
    seeds.push(blzEncode(Uint8Array.from({ length: n }, () => (next() < 0.7 ? 0 : (next() * 256) | 0))));
  }
  return seeds;
}

/** Mutates `seeds` `count` times; any outcome but bytes or blz-malformed fails the test. */
function fuzz(seed: number, count: number, seeds: Uint8Array[]): void {
  const next = rng(seed);
  const int = (n: number) => Math.floor(next() * n);
  for (let i = 0; i < count; i++) {
    const base = seeds[int(seeds.length)]!;
    let blob: Uint8Array;
    switch (i % 5) {
      case 0: // flip a few bits anywhere
        blob = base.slice();
        for (let f = 1 + int(4); f > 0; f--) blob[int(blob.length)]! ^= 1 << int(8);
        break;
      case 1: // flip bits near the end: footer and last stream bytes
        blob = base.slice();
        for (let f = 1 + int(3); f > 0; f--)
          blob[blob.length - 1 - int(Math.min(16, blob.length))]! ^= 1 << int(8);
        break;
      case 2: // truncate or extend
        blob =
          next() < 0.5
            ? base.slice(0, int(base.length))
            : Uint8Array.from([...base, ...Array(int(9)).fill(int(256))]);
        break;
      case 3: // random garbage with a plausible footer
        blob = Uint8Array.from({ length: 8 + int(200) }, () => int(256));
        blob[blob.length - 5] = 8 + int(4);
        blob[blob.length - 6] = 0;
        blob[blob.length - 7] = 0;
        blob[blob.length - 8] = int(blob.length + 1);
        blob[blob.length - 1] = 0;
        blob[blob.length - 2] = 0;
        break;
      default: // pure garbage
        blob = Uint8Array.from({ length: int(64) }, () => int(256));
    }
    for (const inPlace of [false, true]) {
      try {
        const out = blzDecode(blob, { inPlace });
        assert.ok(out instanceof Uint8Array);
        assert.equal(out.length, blzParseFooter(blob).decodedLength);
      } catch (e) {
        if (!isReMcpError(e) || e.code !== 'blz-malformed') throw e;
      }
    }
  }
}

test('Node Buffers and subarray views are neither modified nor aliased', () => {
  const backing = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 7) % 13));
  const view = backing.subarray(100, 4100);
  const before = Buffer.from(view);
  const blob = blzEncode(view);
  assert.deepEqual(Buffer.from(view), before, 'encoding left the input untouched');
  assert.deepEqual(Buffer.from(blzDecode(Buffer.from(blob))).subarray(0, view.length), before);
  const plain = blzEncode(Buffer.from([1, 2, 3]));
  const decoded = blzDecode(Buffer.from(plain));
  decoded[0] = 99;
  assert.equal(blzDecode(plain)[0], 1, 'a not-coded decode is a copy');
});
