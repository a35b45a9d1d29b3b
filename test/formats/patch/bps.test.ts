// BPS codec against the slow reference in test/kit/patch-reference.ts: encoder round trips over random
// change sets, the decoder on patches it did not write (all four actions, overlapping and megabyte
// copies), a small patch for a huge zero extension, and refusals: every corruption, truncation, huge
// number or foreign source ends in a PatchError, quickly, and never in a wrong target.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32 } from '../../../src/formats/crc32.js';
import {
  applyBps,
  BPS_COPY_PIECE,
  type BpsHeader,
  decodeBps,
  encodeBps,
  PatchError,
  readBpsHeader,
} from '../../../src/formats/patch/bps.js';
import {
  BpsBuilder,
  bpsNumber,
  type ChangeCase,
  layChanges,
  randomBpsActions,
  randomChangeCase,
  referenceApplyBps,
  referenceCrc32,
  referenceEncodeBpsNaive,
  sealBps,
} from '../../kit/patch-reference.js';
import { rng } from '../../kit/rng.js';

const MiB = 1 << 20;
const ascii = (s: string) => new TextEncoder().encode(s);
const randomBytes = (next: () => number, n: number) => {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (next() * 256) | 0;
  return b;
};

interface Decoded {
  target: Uint8Array;
  header: BpsHeader;
  ms: number;
}

/**
 * applyBps as a caller drives it: the source served from memory (reads checked to stay inside it),
 * the target collected from what was emitted, earlier target bytes served from that (checked to be
 * bytes already emitted).
 */
function decode(
  patch: Uint8Array,
  source: Uint8Array,
  maxTarget = 64 * MiB,
  info = { size: source.length, crc32: crc32(source) },
): Decoded {
  let buffer = new Uint8Array(1024);
  let length = 0;
  const started = performance.now();
  const header = applyBps(
    patch,
    info,
    {
      readSource(offset, n) {
        assert.ok(offset >= 0 && n >= 0 && offset + n <= source.length, `readSource(${offset}, ${n})`);
        return source.subarray(offset, offset + n);
      },
      readTarget(offset, n) {
        assert.ok(offset >= 0 && n >= 0 && offset + n <= length, `readTarget(${offset}, ${n}) of ${length}`);
        return buffer.subarray(offset, offset + n);
      },
      emit(bytes) {
        if (length + bytes.length > buffer.length) {
          let size = buffer.length * 2;
          while (size < length + bytes.length) size *= 2;
          const grown = new Uint8Array(size);
          grown.set(buffer.subarray(0, length));
          buffer = grown;
        }
        buffer.set(bytes, length);
        length += bytes.length;
      },
    },
    maxTarget,
  );
  return { target: buffer.slice(0, length), header, ms: performance.now() - started };
}

const le32 = (v: number) => Uint8Array.of(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24);

/** The PatchError `fn` throws (anything else, or no error, fails the test). */
function patchError(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof PatchError, `not a PatchError: ${String(error)}`);
    assert.ok(error.kind === 'malformed' || error.kind === 'mismatch', error.kind);
    return error;
  }
  assert.fail('expected a PatchError');
}

function encodeCase(c: ChangeCase, metadata?: string): Uint8Array {
  return encodeBps({
    sourceSize: c.source.length,
    targetSize: c.targetSize,
    sourceCrc32: crc32(c.source),
    targetCrc32: crc32(c.target),
    changes: c.changes,
    metadata,
  });
}

/** Both decoders on one patch: same target, or both refuse (the production one with a PatchError). */
function agree(patch: Uint8Array, source: Uint8Array, maxTarget = 64 * MiB): Uint8Array | null {
  let expected: Uint8Array | null = null;
  try {
    expected = referenceApplyBps(patch, source, maxTarget);
  } catch {}
  if (expected === null) {
    patchError(() => decode(patch, source, maxTarget));
    return null;
  }
  const got = decode(patch, source, maxTarget).target;
  assert.deepEqual(got, expected);
  return got;
}

test('CRC-32 and the BPS number match known values, and the naive writer makes the expected bytes', () => {
  assert.equal(referenceCrc32(ascii('123456789')), 0xcbf43926);
  assert.equal(crc32(ascii('123456789')), 0xcbf43926);
  assert.equal(crc32(ascii('456789'), crc32(ascii('123'))), 0xcbf43926);
  assert.equal(crc32(new Uint8Array(0)), 0);
  assert.deepEqual(bpsNumber(0), [0x80]);
  assert.deepEqual(bpsNumber(127), [0xff]);
  assert.deepEqual(bpsNumber(128), [0x00, 0x80]);
  assert.deepEqual(bpsNumber(128 + 127 * 128 + 127), [0x7f, 0xff]);
  assert.deepEqual(bpsNumber(128 + 128 * 128), [0x00, 0x00, 0x80]);
  const source = ascii('abc');
  const target = ascii('abd');
  const patch = referenceEncodeBpsNaive(source, target);
  const le = (v: number) => [...le32(v)];
  const body = [0x42, 0x50, 0x53, 0x31, 0x83, 0x83, 0x80, 0x84, 0x81, 0x64];
  body.push(...le(referenceCrc32(source)), ...le(referenceCrc32(target)));
  assert.deepEqual([...patch], [...body, ...le(referenceCrc32(Uint8Array.from(body)))]);
  assert.deepEqual(referenceApplyBps(patch, source), target);
  assert.deepEqual(decode(patch, source).target, target);
});

test('encodeBps round trips: random sources and change sets through the reference and applyBps', () => {
  const next = rng(0xb95);
  let grown = 0;
  let shrunk = 0;
  let bigSources = 0;
  for (let n = 0; n < 160; n++) {
    const c = randomChangeCase(next);
    const metadata = n % 7 === 0 ? `case ${n} — «ünïcode» 🎮` : undefined;
    const patch = encodeCase(c, metadata);
    const where = `case ${n}: source ${c.source.length}, target ${c.targetSize}, ${c.changes.length} changes`;
    assert.deepEqual(referenceApplyBps(patch, c.source), c.target, where);
    const d = decode(patch, c.source);
    assert.deepEqual(d.target, c.target, where);
    assert.equal(d.header.sourceSize, c.source.length);
    assert.equal(d.header.targetSize, c.targetSize);
    assert.equal(d.header.sourceCrc32, referenceCrc32(c.source));
    assert.equal(d.header.targetCrc32, referenceCrc32(c.target));
    assert.equal(d.header.metadata, metadata ?? '');
    assert.deepEqual(readBpsHeader(patch), d.header);
    // Unchanged and zero-filled runs cost a few bytes each, whatever their length.
    const changed = c.changes.reduce((sum, x) => sum + x.bytes.length + 40, 0);
    assert.ok(patch.length <= 100 + changed, `${where}: ${patch.length}-byte patch`);
    if (c.targetSize > c.source.length) grown++;
    if (c.targetSize < c.source.length) shrunk++;
    if (c.source.length > 100_000) bigSources++;
  }
  assert.ok(
    grown > 20 && shrunk > 20 && bigSources > 20,
    `${grown} grown, ${shrunk} shrunk, ${bigSources} big`,
  );
});

test('encodeBps edge cases: empty source and target, changes at 0 and at the end, adjacent, past the source', () => {
  const source = Uint8Array.from({ length: 50 }, (_, i) => i + 1);
  const cases: [number, [number, number[]][]][] = [
    [0, []],
    [50, []],
    [10, []],
    [60, []],
    [60, [[59, [9]]]],
    [60, [[50, [7]]]],
    [60, [[49, [7, 8]]]],
    [
      60,
      [
        [0, [1]],
        [1, [2, 3]],
        [3, [4]],
        [52, [5]],
        [54, [6]],
      ],
    ],
    [
      5,
      [
        [0, [0xaa]],
        [4, [0xbb]],
      ],
    ],
    [1, [[0, [0]]]],
    [100, [[0, []]]],
  ];
  for (const [targetSize, raw] of cases) {
    const changes = raw.map(([offset, bytes]) => ({ offset, bytes: Uint8Array.from(bytes) }));
    const target = layChanges(source, changes, targetSize);
    const patch = encodeCase({ source, targetSize, changes, target });
    assert.deepEqual(referenceApplyBps(patch, source), target, JSON.stringify(raw));
    assert.deepEqual(decode(patch, source).target, target, JSON.stringify(raw));
  }
  const empty = new Uint8Array(0);
  for (const target of [empty, ascii('x'), new Uint8Array(1000)]) {
    const changes = target.some((b) => b !== 0) ? [{ offset: 0, bytes: target }] : [];
    const patch = encodeCase({ source: empty, targetSize: target.length, changes, target });
    assert.deepEqual(referenceApplyBps(patch, empty), target);
    assert.deepEqual(decode(patch, empty).target, target);
  }
  const bad = { sourceSize: 10, targetSize: 10, sourceCrc32: 0, targetCrc32: 0 };
  const b = (offset: number, n: number) => ({ offset, bytes: new Uint8Array(n) });
  assert.throws(() => encodeBps({ ...bad, changes: [b(5, 2), b(3, 1)] }), RangeError);
  assert.throws(() => encodeBps({ ...bad, changes: [b(3, 3), b(5, 1)] }), RangeError);
  assert.throws(() => encodeBps({ ...bad, changes: [b(9, 2)] }), RangeError);
});

test('applyBps decodes naive SourceRead/TargetRead patches like the reference', () => {
  const next = rng(0x7a1e);
  for (let n = 0; n < 60; n++) {
    const c = randomChangeCase(next, 60_000);
    const patch = referenceEncodeBpsNaive(c.source, c.target);
    assert.deepEqual(decode(patch, c.source).target, c.target, `case ${n}`);
  }
  for (let n = 0; n < 20; n++) {
    const source = randomBytes(next, Math.floor(next() * 3000));
    const target = randomBytes(next, Math.floor(next() * 3000));
    const patch = referenceEncodeBpsNaive(source, target);
    assert.deepEqual(referenceApplyBps(patch, source), target);
    assert.deepEqual(decode(patch, source).target, target);
  }
});

test('hand-built SourceCopy and TargetCopy: relative offsets both ways, an overlapping copy repeats a pattern', () => {
  const source = ascii('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef');
  const expected = ascii('IJKLCDExyzxyzxyzxyzIJKLXYDE');
  const patch = new BpsBuilder(source.length, expected.length, ascii('hand'))
    .sourceCopy(4, +8) // IJKL, source cursor 12
    .sourceCopy(3, -10) // CDE from 2, cursor 5
    .targetRead(ascii('xyz'))
    .targetCopy(9, +7) // from 7 while writing 10..18: xyz three more times, target cursor 16
    .targetCopy(4, -16) // IJKL from 0
    .sourceRead(2) // XY at 23
    .targetCopy(2, +1) // DE from 5
    .finish(referenceCrc32(source), referenceCrc32(expected));
  assert.deepEqual(referenceApplyBps(patch, source), expected);
  const d = decode(patch, source);
  assert.deepEqual(d.target, expected);
  assert.equal(d.header.metadata, 'hand');
  // A one-byte pattern and a two-byte one, as long runs.
  const runs = new Uint8Array(1 + 5000 + 2 + 7001);
  runs.fill(0x5a, 0, 5001);
  for (let i = 5001; i < runs.length; i++) runs[i] = (i - 5001) % 2 === 0 ? 1 : 2;
  const runsPatch = new BpsBuilder(0, runs.length)
    .targetRead([0x5a])
    .targetCopy(5000, 0)
    .targetRead([1, 2])
    .targetCopy(7001, 5001 - 5000)
    .finish(referenceCrc32(new Uint8Array(0)), referenceCrc32(runs));
  assert.deepEqual(referenceApplyBps(runsPatch, new Uint8Array(0)), runs);
  assert.deepEqual(decode(runsPatch, new Uint8Array(0)).target, runs);
});

/** A builder whose metadata size says `n` (and no metadata bytes follow). */
function withMetadataSize(sourceSize: number, targetSize: number, n: number): BpsBuilder {
  const b = new BpsBuilder(sourceSize, targetSize);
  assert.equal(b.bytes.pop(), 0x80); // the empty metadata's size
  return b.number(n);
}

test('random action lists using all four actions decode like the reference', () => {
  const next = rng(0xac7);
  for (let n = 0; n < 250; n++) {
    const source = randomBytes(next, n % 10 === 0 ? 0 : 1 + Math.floor(next() * 6000));
    const targetSize = n % 25 === 0 ? 0 : 1 + Math.floor(next() * 20_000);
    const { patch, target } = randomBpsActions(next, source, targetSize);
    assert.deepEqual(referenceApplyBps(patch, source), target, `case ${n}`);
    assert.deepEqual(decode(patch, source).target, target, `case ${n}`);
  }
});

test('decodeBps as a streaming driver sees it: bounded requests, emits in order, generous source answers', () => {
  const next = rng(0x5e7);
  let fewer = 0;
  for (let n = 0; n < 60; n++) {
    const source = randomBytes(next, 1 + Math.floor(next() * 6000));
    const { patch, target } = randomBpsActions(next, source, 1 + Math.floor(next() * 40_000), 9000);
    const made = new Uint8Array(target.length);
    let out = 0;
    let sourceAsks = 0;
    const decoder = decodeBps(patch, { size: source.length, crc32: crc32(source) }, 64 * MiB);
    let answer: Uint8Array | undefined;
    for (let r = decoder.next(); !r.done; r = decoder.next(answer)) {
      const q = r.value;
      answer = undefined;
      if (q.kind === 'source') {
        assert.ok(q.length <= BPS_COPY_PIECE && q.offset + q.length <= source.length);
        sourceAsks++;
        // Everything from the offset on: later reads inside it are not asked for again.
        answer = source.subarray(q.offset);
      } else if (q.kind === 'target') {
        assert.ok(q.length <= BPS_COPY_PIECE && q.offset + q.length <= out, `target ${q.offset}+${q.length}`);
        answer = made.slice(q.offset, q.offset + q.length);
      } else if (q.kind === 'emit') {
        assert.equal(q.offset, out, 'each emit continues the last');
        made.set(q.bytes, out);
        out += q.bytes.length;
      }
    }
    assert.equal(out, target.length);
    assert.deepEqual(made, target, `case ${n}`);
    // Answered exactly what it asks, it asks at least as often.
    let strictAsks = 0;
    applyBps(
      patch,
      { size: source.length, crc32: crc32(source) },
      {
        readSource: (offset, length) => {
          strictAsks++;
          return source.subarray(offset, offset + length);
        },
        readTarget: (offset, length) => target.subarray(offset, offset + length),
        emit: () => {},
      },
      64 * MiB,
    );
    assert.ok(sourceAsks <= strictAsks, `case ${n}: ${sourceAsks} > ${strictAsks}`);
    fewer += strictAsks - sourceAsks;
  }
  assert.ok(fewer > 0, 'source answers larger than asked were used for later reads');
  // A driver that answers less than was asked is a programming error, not a target.
  const source = randomBytes(next, 100);
  const { patch } = randomBpsActions(next, source, 400);
  const decoder = decodeBps(patch, { size: source.length, crc32: crc32(source) }, MiB);
  assert.throws(() => {
    for (let r = decoder.next(); !r.done; ) {
      const q = r.value;
      r = decoder.next(q.kind === 'source' || q.kind === 'target' ? new Uint8Array(q.length - 1) : undefined);
    }
  }, RangeError);
});

test('copies longer than a megabyte, near and far, overlapping or not', () => {
  const next = rng(0xb16);
  const source = randomBytes(next, 2.5 * MiB);
  const seed = randomBytes(next, Math.round(1.2 * MiB));
  // [distance behind the write cursor, length] of TargetCopy actions after a 1.2 MiB TargetRead.
  const copies: [number, number][] = [
    [seed.length, 2 * MiB],
    [5, 3 * MiB],
    [MiB, 2.5 * MiB],
    [MiB - 1, 2.5 * MiB],
    [MiB + 1, 2 * MiB + 3],
    [1000, 1000],
    [999, 1000],
    [1, MiB + 7],
    [3, 1],
  ];
  for (const [distance, length] of copies) {
    const targetSize = 1.5 * MiB + 2 * MiB + seed.length + length;
    const t = new Uint8Array(targetSize);
    t.set(source.subarray(0, 1.5 * MiB));
    t.set(source.subarray(100, 100 + 2 * MiB), 1.5 * MiB);
    const at = 3.5 * MiB;
    t.set(seed, at);
    const out = at + seed.length;
    for (let i = 0; i < length; i++) t[out + i] = t[out - distance + i]!;
    const patch = new BpsBuilder(source.length, targetSize)
      .sourceRead(1.5 * MiB)
      .sourceCopy(2 * MiB, 100)
      .targetRead(seed)
      .targetCopy(length, out - distance)
      .finish(crc32(source), crc32(t)); // (the reference CRC is too slow for 60 MiB; crc32 is checked above)
    const d = decode(patch, source);
    assert.ok(d.target.length === t.length && d.target.every((v, i) => v === t[i]), `${distance}, ${length}`);
  }
});

test('source pieces never cross a multiple of the copy piece: a reader holding the source in such chunks answers each from one', () => {
  const next = rng(0xa1e);
  const source = randomBytes(next, 5 * MiB + 123);
  const t = new Uint8Array(3.5 * MiB + 4000);
  t.set(source.subarray(0, 1.5 * MiB + 17));
  t.set(source.subarray(MiB - 5, MiB - 5 + 2 * MiB - 17), 1.5 * MiB + 17);
  t.set(source.subarray(4 * MiB + 9, 4 * MiB + 9 + 4000), 3.5 * MiB);
  const patch = new BpsBuilder(source.length, t.length)
    .sourceRead(1.5 * MiB + 17)
    .sourceCopy(2 * MiB - 17, MiB - 5) // (deltas from the source cursor: it starts at 0)
    .sourceCopy(4000, 4 * MiB + 9 - (3 * MiB - 22))
    .finish(crc32(source), crc32(t));
  const decoder = decodeBps(patch, { size: source.length, crc32: crc32(source) }, 64 * MiB);
  const made = new Uint8Array(t.length);
  let out = 0;
  let asks = 0;
  let answer: Uint8Array | undefined;
  for (let r = decoder.next(); !r.done; r = decoder.next(answer)) {
    const q = r.value;
    answer = undefined;
    if (q.kind === 'source') {
      asks++;
      assert.ok(q.length <= BPS_COPY_PIECE);
      assert.equal(
        Math.floor(q.offset / BPS_COPY_PIECE),
        Math.floor((q.offset + q.length - 1) / BPS_COPY_PIECE),
        `source ${q.offset}+${q.length}`,
      );
      // Exactly the piece (nothing more to reuse): every piece is asked for.
      answer = source.slice(q.offset, q.offset + q.length);
    } else if (q.kind === 'emit') {
      made.set(q.bytes, out);
      out += q.bytes.length;
    }
  }
  assert.equal(out, t.length);
  assert.ok(made.every((v, i) => v === t[i]));
  // 0..1.5 MiB+17: 2 pieces; MiB-5 for 2 MiB-17: 3 (5 bytes, a whole MiB, the rest); the last copy: 1.
  assert.equal(asks, 6);
});

test('an 8 MiB zero extension of a 1 KB source is a tiny patch that decodes quickly', () => {
  const next = rng(0x2e0);
  const source = randomBytes(next, 1024);
  const targetSize = 1024 + 8 * MiB;
  for (const changes of [
    [],
    [{ offset: 3, bytes: ascii('hi') }],
    [{ offset: 5 * MiB, bytes: ascii('mid') }],
  ]) {
    const target = layChanges(source, changes, targetSize);
    const patch = encodeCase({ source, targetSize, changes, target });
    assert.ok(patch.length < 100, `${patch.length}-byte patch`);
    const d = decode(patch, source);
    assert.ok(d.ms < 2000, `decoded in ${d.ms} ms`);
    assert.equal(d.target.length, targetSize);
    assert.ok(d.target.every((v, i) => v === target[i]));
    assert.ok(d.target.subarray(5 * MiB + 3).every((v) => v === 0));
    assert.deepEqual(referenceApplyBps(patch, source), target);
  }
});

test('every single-byte corruption of a valid patch is a PatchError, resealed or not, never a wrong target', () => {
  const next = rng(0xf11);
  const source = ascii('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef');
  const hand = new BpsBuilder(source.length, 27, ascii('m'))
    .sourceCopy(4, +8)
    .sourceCopy(3, -10)
    .targetRead(ascii('xyz'))
    .targetCopy(9, +7)
    .targetCopy(4, -16)
    .sourceRead(2)
    .targetCopy(2, +1)
    .finish(referenceCrc32(source), referenceCrc32(ascii('IJKLCDExyzxyzxyzxyzIJKLXYDE')));
  const small = randomBytes(next, 40);
  const smallChanges = [
    { offset: 0, bytes: randomBytes(next, 3) },
    { offset: 39, bytes: randomBytes(next, 5) },
  ];
  const smallTarget = layChanges(small, smallChanges, 90);
  const grown = layChanges(source, [{ offset: 30, bytes: ascii('zz') }], 300);
  const encoded = encodeCase({
    source,
    targetSize: 300,
    changes: [{ offset: 30, bytes: ascii('zz') }],
    target: grown,
  });
  const cases: [Uint8Array, Uint8Array][] = [
    [hand, source],
    [encoded, source],
    [referenceEncodeBpsNaive(source, grown), source],
    [
      encodeCase({ source: small, targetSize: 90, changes: smallChanges, target: smallTarget }, 'meta'),
      small,
    ],
  ];
  let survived = 0;
  for (const [patch, src] of cases) {
    const good = decode(patch, src).target;
    for (let i = 0; i < patch.length; i++) {
      for (const x of [0x01, 0x80, 0xff, 1 + Math.floor(next() * 255)]) {
        const bad = patch.slice();
        bad[i]! ^= x;
        patchError(() => decode(bad, src));
        assert.throws(() => referenceApplyBps(bad, src));
        if (i >= patch.length - 4) continue;
        // With the patch's own CRC made right again, the damage must be caught further in, or be harmless.
        const resealed = sealBps(bad.subarray(0, bad.length - 4));
        const got = agree(resealed, src);
        if (got !== null) {
          assert.deepEqual(got, good, `byte ${i} ^ ${x}`);
          survived++;
        }
      }
    }
  }
  // At least the metadata bytes change without effect.
  assert.ok(survived >= 5 * 4, `${survived} harmless corruptions`);
});

test('a patch for another source, a wrong target CRC or a target over maxTarget is a mismatch', () => {
  const source = ascii('the quick brown fox');
  const changes = [{ offset: 4, bytes: ascii('QUICK') }];
  const target = layChanges(source, changes, source.length);
  const patch = encodeCase({ source, targetSize: target.length, changes, target });
  const longer = ascii('the quick brown fox!');
  const other = ascii('the quick brown fix');
  assert.equal(patchError(() => decode(patch, longer)).kind, 'mismatch');
  assert.equal(patchError(() => decode(patch, other)).kind, 'mismatch');
  assert.equal(
    patchError(() => decode(patch, source, 64, { size: source.length + 1, crc32: crc32(source) })).kind,
    'mismatch',
  );
  assert.equal(
    patchError(() => decode(patch, source, 64, { size: source.length, crc32: crc32(source) ^ 1 })).kind,
    'mismatch',
  );
  assert.equal(patchError(() => decode(patch, source, target.length - 1)).kind, 'mismatch');
  assert.deepEqual(decode(patch, source, target.length).target, target);
  const wrongTargetCrc = new BpsBuilder(source.length, source.length)
    .sourceRead(source.length)
    .finish(referenceCrc32(source), referenceCrc32(source) ^ 0x80000000);
  assert.equal(patchError(() => decode(wrongTargetCrc, source)).kind, 'mismatch');
  assert.throws(() => referenceApplyBps(wrongTargetCrc, source));
});

test('with no CRC function the target CRC-32 is left to the caller: the header names it, nothing else changes', () => {
  const source = ascii('the quick brown fox');
  const wrongTargetCrc = new BpsBuilder(source.length, source.length)
    .sourceRead(source.length)
    .finish(referenceCrc32(source), referenceCrc32(source) ^ 0x80000000);
  const emitted: number[] = [];
  const header = applyBps(
    wrongTargetCrc,
    { size: source.length, crc32: crc32(source) },
    {
      readSource: (offset, n) => source.subarray(offset, offset + n),
      readTarget: () => assert.fail('no target copy'),
      emit: (bytes) => emitted.push(...bytes),
    },
    64,
    null,
  );
  assert.deepEqual(Uint8Array.from(emitted), source);
  assert.equal(header.targetCrc32, (referenceCrc32(source) ^ 0x80000000) >>> 0);
  // The source's CRC-32, the sizes and the patch's own CRC-32 are still checked.
  const io = { readSource: () => source, readTarget: () => source, emit: () => {} };
  assert.equal(
    patchError(() => applyBps(wrongTargetCrc, { size: source.length, crc32: 1 }, io, 64, null)).kind,
    'mismatch',
  );
  const damaged = wrongTargetCrc.slice();
  damaged[5]! ^= 1;
  assert.equal(
    patchError(() => applyBps(damaged, { size: source.length, crc32: crc32(source) }, io, 64, null)).kind,
    'mismatch',
  );
});

test('truncated patches and garbage are refused with a PatchError', () => {
  const next = rng(0x6a4);
  const source = randomBytes(next, 500);
  const changes = [
    { offset: 0, bytes: randomBytes(next, 10) },
    { offset: 490, bytes: randomBytes(next, 30) },
  ];
  const target = layChanges(source, changes, 700);
  const patch = encodeCase({ source, targetSize: 700, changes, target }, 'meta');
  for (let n = 0; n < patch.length; n++) {
    patchError(() => decode(patch.subarray(0, n), source));
    if (n >= 4) {
      // The cut made self-consistent: the last 12 bytes now sit where actions were.
      const resealed = sealBps(patch.subarray(0, n - 4));
      patchError(() => decode(resealed, source));
      assert.throws(() => referenceApplyBps(resealed, source));
    }
  }
  for (let n = 0; n < 300; n++) {
    const garbage = randomBytes(next, Math.floor(next() * 200));
    if (n % 2 === 0) garbage.set(ascii('BPS1').subarray(0, garbage.length));
    patchError(() => decode(garbage, source));
    patchError(() => decode(n % 3 === 0 ? sealBps(garbage) : garbage, source));
  }
  const kind = patchError(() => decode(ascii('IPS1xxxxxxxxxxxxxxxxxxxxxxxx'), source)).kind;
  assert.equal(kind, 'malformed');
});

test('malformed action lists are refused as malformed, like the reference refuses them', () => {
  const source = ascii('0123456789');
  const sourceCrc = referenceCrc32(source);
  const t = (s: string) => referenceCrc32(ascii(s));
  const cases: [string, Uint8Array, Uint8Array?][] = [
    ['too few bytes', new BpsBuilder(10, 12).sourceRead(10).finish(sourceCrc, t('0123456789'))],
    ['writes past the target', new BpsBuilder(10, 5).sourceRead(6).finish(sourceCrc, t('012345'))],
    [
      'SourceRead past the source',
      new BpsBuilder(10, 12).sourceRead(11).targetRead([0]).finish(sourceCrc, 0),
    ],
    ['SourceCopy before the source', new BpsBuilder(10, 3).sourceCopy(3, -1).finish(sourceCrc, 0)],
    ['SourceCopy past the source', new BpsBuilder(10, 3).sourceCopy(3, 8).finish(sourceCrc, 0)],
    ['SourceCopy far away', new BpsBuilder(10, 3).sourceCopy(3, 2 ** 40).finish(sourceCrc, 0)],
    [
      'SourceCopy of no source',
      new BpsBuilder(0, 3).sourceCopy(3, 0).finish(referenceCrc32(ascii('')), 0),
      ascii(''),
    ],
    ['TargetCopy first', new BpsBuilder(10, 3).targetCopy(3, 0).finish(sourceCrc, 0)],
    [
      'TargetCopy at unwritten bytes',
      new BpsBuilder(10, 4).sourceRead(2).targetCopy(2, 2).finish(sourceCrc, 0),
    ],
    [
      'TargetCopy before the target',
      new BpsBuilder(10, 4).sourceRead(2).targetCopy(2, -1).finish(sourceCrc, 0),
    ],
    [
      'TargetCopy whose cursor ran past',
      new BpsBuilder(10, 3).sourceRead(1).targetCopy(1, 0).targetCopy(1, +1).finish(sourceCrc, 0),
    ],
    [
      'TargetRead into the CRCs',
      new BpsBuilder(10, 20)
        .sourceRead(2)
        .number(17 * 4 + 1)
        .raw([1])
        .finish(sourceCrc, 0),
    ],
    [
      // Otherwise consistent: the 4 bytes read are the source CRC, and the target CRC is theirs.
      'TargetRead of the source CRC after the actions',
      new BpsBuilder(10, 4).number(3 * 4 + 1).finish(sourceCrc, referenceCrc32(le32(sourceCrc))),
    ],
    ['an action for an empty target', new BpsBuilder(10, 0).sourceRead(1).finish(sourceCrc, 0)],
    ['a number cut by the CRCs', new BpsBuilder(10, 10).raw([0x00, 0x00]).finish(sourceCrc, t('0123456789'))],
    ['no actions', new BpsBuilder(10, 10).finish(sourceCrc, t('0123456789'))],
    ['metadata size beyond the patch', withMetadataSize(10, 0, 100).raw([1, 2, 3]).finish(sourceCrc, t(''))],
  ];
  for (const [what, patch, src = source] of cases) {
    assert.equal(patchError(() => decode(patch, src)).kind, 'malformed', what);
    assert.throws(() => referenceApplyBps(patch, src), Error, what);
  }
});

test('huge sizes and endless numbers are refused at once, without allocating', () => {
  const source = ascii('0123456789');
  const sourceCrc = referenceCrc32(source);
  const endless = (n: number) => {
    const body = new Uint8Array(4 + n + 8);
    body.set(ascii('BPS1'));
    return sealBps(body);
  };
  const huge = 2 ** 40;
  const cases: [string, Uint8Array, PatchError['kind']][] = [
    ['a source size that never ends', endless(1_000_000), 'malformed'],
    ['a short endless number', endless(3), 'malformed'],
    ['a 2^40-byte target', new BpsBuilder(10, huge).targetCopy(huge, 0).finish(sourceCrc, 0), 'mismatch'],
    ['a 2^52-byte target', new BpsBuilder(10, 2 ** 52).sourceRead(10).finish(sourceCrc, 0), 'mismatch'],
    ['a 2^40-byte source', new BpsBuilder(huge, 10).sourceRead(10).finish(sourceCrc, 0), 'mismatch'],
    ['2^50 bytes of metadata', withMetadataSize(10, 10, 2 ** 50).finish(sourceCrc, 0), 'malformed'],
    ['a 2^45-byte action', new BpsBuilder(10, 10).number(2 ** 47).finish(sourceCrc, 0), 'malformed'],
    [
      'a number too long to be a size',
      sealBps(
        Uint8Array.from([...ascii('BPS1'), ...new Array(20).fill(0x7f), 0x81, 0x80, 0x80, ...new Array(8)]),
      ),
      'malformed',
    ],
    [
      'an endless action number',
      new BpsBuilder(10, 10).raw(new Array(100_000).fill(0x00)).finish(sourceCrc, 0),
      'malformed',
    ],
  ];
  for (const [what, patch, kind] of cases) {
    const before = process.memoryUsage().arrayBuffers;
    const started = performance.now();
    const error = patchError(() => decode(patch, source, MiB));
    const ms = performance.now() - started;
    assert.equal(error.kind, kind, `${what}: ${error.message}`);
    assert.ok(ms < 200, `${what}: ${ms} ms`);
    assert.ok(process.memoryUsage().arrayBuffers - before < 4 * MiB, `${what}: allocated`);
  }
});

/** A random mutation: flips, extreme bytes, cuts, insertions, deletions. */
function mutate(next: () => number, p: Uint8Array): Uint8Array {
  const int = (n: number) => Math.floor(next() * n);
  const at = int(p.length + 1);
  switch (int(6)) {
    case 0: {
      const q = p.slice();
      if (q.length > 0) q[Math.min(at, q.length - 1)]! ^= 1 + int(255);
      return q;
    }
    case 1: {
      const q = p.slice();
      if (q.length > 0) q[Math.min(at, q.length - 1)] = [0x00, 0x7f, 0x80, 0xff][int(4)]!;
      return q;
    }
    case 2:
      return p.slice(0, at);
    case 3: {
      const extra = Uint8Array.from({ length: 1 + int(8) }, () => int(256));
      return Uint8Array.from([...p.subarray(0, at), ...extra, ...p.subarray(at)]);
    }
    case 4:
      return Uint8Array.from([...p.subarray(0, at), ...p.subarray(at + 1 + int(8))]);
    default: {
      const q = p.slice();
      for (let k = 0; k < 2 + int(4) && q.length > 0; k++) q[int(q.length)]! ^= 1 + int(255);
      return q;
    }
  }
}

test('fuzz: mutated BPS patches only ever end in the same target as the reference or a PatchError, fast', () => {
  const next = rng(0xf0220);
  const pool: [Uint8Array, Uint8Array][] = [];
  for (let n = 0; n < 12; n++) {
    const source = randomBytes(next, n === 0 ? 0 : 1 + Math.floor(next() * 3000));
    pool.push([source, randomBpsActions(next, source, Math.floor(next() * 4000)).patch]);
    const c = randomChangeCase(next, 3000);
    pool.push([c.source, encodeCase(c, n % 3 === 0 ? 'metadata' : undefined)]);
    pool.push([c.source, referenceEncodeBpsNaive(c.source, c.target)]);
  }
  const big = randomBytes(next, 512);
  const bigTarget = layChanges(big, [{ offset: 600, bytes: ascii('x') }], 900 * 1024);
  pool.push([big, encodeCase({ source: big, targetSize: bigTarget.length, changes: [], target: bigTarget })]);
  const outcomes: Record<string, number> = {};
  let slowest = 0;
  for (let n = 0; n < 3000; n++) {
    const [source, patch] = pool[n % pool.length]!;
    let bad = mutate(next, patch);
    if (n % 2 === 0 && bad.length >= 4) bad = sealBps(bad.subarray(0, bad.length - 4));
    let expected: Uint8Array | null = null;
    try {
      expected = referenceApplyBps(bad, source, MiB);
    } catch {}
    const started = performance.now();
    let outcome = 'target';
    try {
      const got = decode(bad, source, MiB).target;
      assert.ok(expected !== null, `case ${n}: applyBps accepted what the reference refuses`);
      assert.deepEqual(got, expected, `case ${n}`);
    } catch (error) {
      if (!(error instanceof PatchError)) throw error;
      assert.equal(
        expected,
        null,
        `case ${n}: applyBps refused (${error.message}) what the reference accepts`,
      );
      outcome = error.kind;
    }
    slowest = Math.max(slowest, performance.now() - started);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  assert.ok((outcomes.malformed ?? 0) > 100, JSON.stringify(outcomes));
  assert.ok((outcomes.mismatch ?? 0) > 100, JSON.stringify(outcomes));
  assert.ok((outcomes.target ?? 0) > 0, JSON.stringify(outcomes));
  assert.ok(slowest < 500, `slowest case took ${slowest} ms`);
});
