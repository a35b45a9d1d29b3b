// Property tests: the streaming matcher (any chunk size, any segments, any limit) finds exactly what
// the naive reference finds. Small alphabets make hits, overlaps and chunk-straddling matches common.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePattern } from '../../src/search/pattern.js';
import { mergeRanges, scanSegments } from '../../src/search/scan.js';
import { rng } from '../kit/rng.js';
import { bufferReader } from './memory-io.js';
import { type NaivePattern, naiveSearch, toSignature } from './naive.js';

function randomData(next: () => number, length: number, alphabet: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = 0x40 + Math.floor(next() * alphabet);
  return out;
}

function randomPattern(next: () => number, data: Uint8Array): NaivePattern {
  const length = 1 + Math.floor(next() * (next() < 0.2 ? 40 : 6));
  const from = Math.floor(next() * Math.max(1, data.length - length));
  const p: NaivePattern = [];
  for (let k = 0; k < length; k++) {
    const byte = next() < 0.8 ? (data[from + k] ?? 0x40) : 0x40 + Math.floor(next() * 4);
    p.push(next() < 0.25 ? null : byte);
  }
  if (!p.some((b) => b !== null)) p[Math.floor(next() * length)] = 0x41;
  return p;
}

test('property: streamed whole-range scan equals the naive search (random chunking, straddles)', async () => {
  for (let seed = 1; seed <= 400; seed++) {
    const next = rng(seed);
    const data = randomData(next, 1 + Math.floor(next() * 3000), 1 + Math.floor(next() * 4));
    const naive = randomPattern(next, data);
    const pattern = compilePattern({ kind: 'byte-signature', signature: toSignature(naive) });
    const chunkSize = 1 + Math.floor(next() * 97);
    const result = await scanSegments(pattern, bufferReader(data), {
      segments: [{ start: 0, end: data.length }],
      maxScanBytes: data.length,
      maxMatches: 1_000_000,
      chunkSize,
    });
    assert.deepEqual(result.offsets, naiveSearch(data, naive), `seed ${seed} chunk ${chunkSize}`);
    assert.equal(result.scannedBytes, data.length);
    assert.deepEqual(result.reasons, []);
  }
});

test('property: segments, containment, alignment, budget and match limit agree with the reference', async () => {
  for (let seed = 1000; seed < 1300; seed++) {
    const next = rng(seed);
    const data = randomData(next, 200 + Math.floor(next() * 2000), 1 + Math.floor(next() * 3));
    const naive = randomPattern(next, data);
    const alignment = ([1, 2, 4] as const)[Math.floor(next() * 3)]!;
    const pattern = {
      ...compilePattern({ kind: 'byte-signature', signature: toSignature(naive) }),
      alignment,
    };
    // Random components (possibly overlapping or touching); matches must fit in one of them.
    const components = Array.from({ length: 1 + Math.floor(next() * 5) }, () => {
      const start = Math.floor(next() * data.length);
      return { start, end: Math.min(data.length, start + Math.floor(next() * 600)) };
    });
    const segments = mergeRanges(components);
    const scopeBytes = segments.reduce((n, s) => n + s.end - s.start, 0);
    const maxScanBytes = next() < 0.3 ? Math.max(1, Math.floor(next() * scopeBytes)) : scopeBytes;
    const maxMatches = next() < 0.3 ? Math.floor(next() * 20) : 1_000_000;
    // Reference: walk the segments with the same budget; keep spans inside one component.
    const expected: number[] = [];
    let budget = maxScanBytes;
    for (const seg of segments) {
      if (budget <= 0) break;
      const end = Math.min(seg.end, seg.start + budget);
      budget -= end - seg.start;
      for (const s of naiveSearch(data.subarray(seg.start, end), naive, alignment, seg.start)) {
        if (components.some((c) => c.start <= s && s + naive.length <= c.end)) expected.push(s);
      }
    }
    const result = await scanSegments(pattern, bufferReader(data), {
      segments,
      maxScanBytes,
      maxMatches,
      accept: (s, e) => components.some((c) => c.start <= s && e <= c.end),
      chunkSize: 1 + Math.floor(next() * 300),
    });
    const label = `seed ${seed}`;
    assert.deepEqual(result.offsets, expected.slice(0, maxMatches), label);
    assert.equal(result.reasons.includes('match-count-limit'), expected.length > maxMatches, label);
    assert.equal(result.reasons.includes('scan-byte-limit'), maxScanBytes < scopeBytes, label);
    if (expected.length <= maxMatches)
      assert.equal(result.scannedBytes, Math.min(maxScanBytes, scopeBytes), label);
  }
});

test('the scan reads each selected byte once, in large chunks, and never outside the segments', async () => {
  const data = randomData(rng(5), 100_000, 3);
  const log: Array<[number, number]> = [];
  const pattern = compilePattern({ kind: 'byte-signature', signature: '41 ?? 42' });
  const segments = [
    { start: 10, end: 40_000 },
    { start: 50_000, end: 99_000 },
  ];
  await scanSegments(pattern, bufferReader(data, log), {
    segments,
    maxScanBytes: 1 << 30,
    maxMatches: 1 << 30,
    chunkSize: 8192,
  });
  const covered = log.map(([p, n]) => `${p}+${n}`);
  let total = 0;
  for (const [p, n] of log) {
    assert.ok(
      segments.some((s) => s.start <= p && p + n <= s.end),
      `read ${p}+${n} outside the scope`,
    );
    total += n;
  }
  assert.equal(total, 39_990 + 49_000, covered.join(' '));
});

test('dense anchors (far more candidates than matches) fall back correctly', async () => {
  // Sparse random-ish bytes first, then a long zero run: the density check must trigger mid-chunk.
  const data = new Uint8Array(300_000);
  const next = rng(77);
  for (let i = 0; i < 100_000; i++) data[i] = 0x40 + Math.floor(next() * 8);
  for (let i = 0; i < data.length; i += 997) data[i + 2] = 0x12;
  const naive: NaivePattern = [0, null, 0x12];
  for (const signature of ['00 ?? 12', '00 00']) {
    const expectedPattern = signature === '00 00' ? [0, 0] : naive;
    const pattern = compilePattern({ kind: 'byte-signature', signature });
    const result = await scanSegments(pattern, bufferReader(data), {
      segments: [{ start: 0, end: data.length }],
      maxScanBytes: data.length,
      maxMatches: 1_000_000,
      chunkSize: 65_536,
    });
    assert.deepEqual(result.offsets, naiveSearch(data, expectedPattern), signature);
  }
});

test('overlapping hits are all kept: AA AA in AA AA AA gives 0 and 1', async () => {
  const data = Uint8Array.of(0xaa, 0xaa, 0xaa);
  const result = await scanSegments(
    compilePattern({ kind: 'byte-signature', signature: 'AA AA' }),
    bufferReader(data),
    {
      segments: [{ start: 0, end: 3 }],
      maxScanBytes: 3,
      maxMatches: 10,
      chunkSize: 1,
    },
  );
  assert.deepEqual(result.offsets, [0, 1]);
});

test('cancellation between chunks is honoured and a short read means the ROM changed', async () => {
  const data = new Uint8Array(1 << 16);
  const controller = new AbortController();
  const pattern = compilePattern({ kind: 'ascii', text: 'x' });
  let chunks = 0;
  await assert.rejects(
    scanSegments(pattern, bufferReader(data), {
      segments: [{ start: 0, end: data.length }],
      maxScanBytes: data.length,
      maxMatches: 10,
      chunkSize: 1024,
      signal: controller.signal,
      onProgress: () => {
        if (++chunks === 3) controller.abort();
      },
    }),
    { code: 'cancelled' },
  );
  assert.equal(chunks, 3);
  await assert.rejects(
    scanSegments(pattern, bufferReader(data), {
      segments: [{ start: 0, end: data.length + 10 }],
      maxScanBytes: 1 << 20,
      maxMatches: 10,
      chunkSize: 1024,
    }),
    { code: 'rom-changed' },
  );
});

test('property: exact patterns longer than the memchr piece (found through a piece, then whole) equal the naive search', async () => {
  for (let seed = 5000; seed < 5300; seed++) {
    const next = rng(seed);
    // Small alphabets: the piece occurs often where the whole pattern does not (the fallback to the
    // whole anchor after too many misses is exercised), and hits overlap.
    const data = randomData(next, 500 + Math.floor(next() * 20_000), 1 + Math.floor(next() * 3));
    const length = 8 + Math.floor(next() * 60);
    const from = Math.floor(next() * (data.length - length));
    const naive: NaivePattern = Array.from(data.subarray(from, from + length));
    if (next() < 0.3) naive[Math.floor(next() * length)] = 0x40 + Math.floor(next() * 4);
    const pattern = compilePattern({ kind: 'byte-signature', signature: toSignature(naive) });
    assert.equal(pattern.anchorLength, length, 'an exact pattern is its own anchor');
    const chunkSize = [97, 1000, 65_536][Math.floor(next() * 3)]!;
    const result = await scanSegments(pattern, bufferReader(data), {
      segments: [{ start: 0, end: data.length }],
      maxScanBytes: data.length,
      maxMatches: 1_000_000,
      chunkSize,
    });
    assert.deepEqual(result.offsets, naiveSearch(data, naive), `seed ${seed} chunk ${chunkSize}`);
  }
  // Long runs of one byte with the pattern's rare tail: every place of the piece misses but one.
  const zeros = new Uint8Array(200_000);
  zeros.set([0x12, 0x34], 150_000);
  const naive: NaivePattern = [...new Array(40).fill(0), 0x12, 0x34];
  const pattern = compilePattern({ kind: 'byte-signature', signature: toSignature(naive) });
  const result = await scanSegments(pattern, bufferReader(zeros), {
    segments: [{ start: 0, end: zeros.length }],
    maxScanBytes: zeros.length,
    maxMatches: 10,
  });
  assert.deepEqual(result.offsets, [150_000 - 40]);
  assert.deepEqual(result.reasons, []);
});
