// IPS codec against the reference applier in test/kit/patch-reference.ts: encoder round trips over random
// change sets (through the streaming decoder, and window by window through applyIpsRecords), records
// across the streaming decoder's windows, the record that may not start at 0x454F46, the 16 MiB limit,
// truncation and zero-run records, and a decoder that refuses anything malformed with a PatchError.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PatchError } from '../../../src/formats/patch/bps.js';
import {
  applyIpsRecords,
  decodeIps,
  encodeIps,
  IPS_LIMIT,
  IPS_WINDOW,
  type IpsRecord,
  ipsTargetSize,
  readIps,
} from '../../../src/formats/patch/ips.js';
import { runDecoder } from '../../../src/formats/patch/requests.js';
import {
  type ChangeCase,
  layChanges,
  randomChangeCase,
  referenceApplyIps,
} from '../../kit/patch-reference.js';
import { rng } from '../../kit/rng.js';

const MiB = 1 << 20;
const EOF_OFFSET = 0x454f46;
const ascii = (s: string) => new TextEncoder().encode(s);
const randomBytes = (next: () => number, n: number) => {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (next() * 256) | 0;
  return b;
};
const be24 = (v: number) => [v >>> 16, (v >>> 8) & 0xff, v & 0xff];
const be16 = (v: number) => [v >>> 8, v & 0xff];
const ips = (...records: number[][]) =>
  Uint8Array.from([...ascii('PATCH'), ...records.flat(), ...ascii('EOF')]);

/** The PatchError `fn` throws (anything else, or no error, fails the test). */
function patchError(fn: () => unknown): PatchError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof PatchError, `not a PatchError: ${String(error)}`);
    return error;
  }
  assert.fail('expected a PatchError');
}

function encodeCase(c: ChangeCase) {
  return encodeIps({
    sourceSize: c.source.length,
    targetSize: c.targetSize,
    changes: c.changes,
    targetByte: (offset) => {
      assert.ok(offset >= 0 && offset < c.targetSize, `targetByte(${offset})`);
      return c.target[offset]!;
    },
  });
}

function encodeOk(c: ChangeCase): Uint8Array {
  const r = encodeCase(c);
  assert.ok('patch' in r, 'refused' in r ? r.refused : '');
  return r.patch;
}

/**
 * The production decoder as nds_patch_apply runs it (decodeIps, window by window): source reads checked
 * to stay inside the source, emits checked to continue the target, the target collected from them.
 */
function decode(patch: Uint8Array, source: Uint8Array, maxTarget = 64 * MiB): Uint8Array {
  const r = readIps(patch, 1_000_000);
  const size = ipsTargetSize(r, source.length);
  if (size > maxTarget) throw new PatchError('mismatch', 'too large for the test');
  const target = new Uint8Array(size);
  let made = 0;
  const got = runDecoder(decodeIps(r, source.length), {
    readSource(offset, n) {
      assert.ok(offset >= 0 && n > 0 && offset + n <= source.length, `readSource(${offset}, ${n})`);
      return source.subarray(offset, offset + n);
    },
    readTarget() {
      assert.fail('an IPS decoder never reads the target back');
    },
    emit(bytes) {
      assert.ok(
        bytes.length <= IPS_WINDOW && made + bytes.length <= size,
        `emit of ${bytes.length} at ${made}`,
      );
      target.set(bytes, made);
      made += bytes.length;
    },
  });
  assert.equal(got, size);
  assert.equal(made, size, 'every target byte was emitted');
  return target;
}

/** The same, window by window through applyIpsRecords's `base`, at random cuts. */
function decodeInWindows(next: () => number, patch: Uint8Array, source: Uint8Array): Uint8Array {
  const r = readIps(patch, 1_000_000);
  const size = ipsTargetSize(r, source.length);
  const out = new Uint8Array(size);
  for (let base = 0; base < size; ) {
    const end = Math.min(size, base + 1 + Math.floor(next() * 70_000));
    const window = new Uint8Array(end - base);
    if (base < source.length) window.set(source.subarray(base, Math.min(end, source.length)));
    applyIpsRecords(r, window, base);
    out.set(window, base);
    base = end;
  }
  return out;
}

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((v, i) => v === b[i]);

test('encodeIps round trips: random sources and change sets through the reference and the decoder', () => {
  const next = rng(0x1b5);
  let truncated = 0;
  let grown = 0;
  for (let n = 0; n < 160; n++) {
    const c = randomChangeCase(next);
    const where = `case ${n}: source ${c.source.length}, target ${c.targetSize}, ${c.changes.length} changes`;
    const patch = encodeOk(c);
    assert.deepEqual(referenceApplyIps(patch, c.source), c.target, where);
    const r = readIps(patch, 1_000_000);
    assert.equal(ipsTargetSize(r, c.source.length), c.targetSize, where);
    assert.deepEqual(decode(patch, c.source), c.target, where);
    assert.deepEqual(decodeInWindows(next, patch, c.source), c.target, where);
    assert.deepEqual([...patch.subarray(0, 5)], [...ascii('PATCH')]);
    if (c.targetSize < c.source.length) {
      assert.deepEqual([...patch.subarray(-6)], [...ascii('EOF'), ...be24(c.targetSize)], where);
      assert.equal(r.truncate, c.targetSize);
      truncated++;
    } else {
      assert.deepEqual([...patch.subarray(-3)], [...ascii('EOF')], where);
      assert.equal(r.truncate, null);
    }
    // Records only for changes, and one run record per 64 KiB of zeros past the source.
    const zeros = Math.max(0, c.targetSize - c.source.length);
    const changed = c.changes.reduce(
      (sum, x) => sum + x.bytes.length + 5 * Math.ceil(x.bytes.length / 0xffff),
      0,
    );
    const bound = 5 + 3 + 3 + changed + 8 * (Math.ceil(zeros / 0xffff) + c.changes.length + 1);
    assert.ok(patch.length <= bound, `${where}: ${patch.length}-byte patch, bound ${bound}`);
    if (c.targetSize > c.source.length) grown++;
  }
  assert.ok(truncated > 20 && grown > 20, `${truncated} truncated, ${grown} grown`);
});

test('encodeIps edge cases: empty, changes at 0 and at the end, adjacent, across the source end', () => {
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
    [100, [[0, []]]],
  ];
  for (const [targetSize, raw] of cases) {
    const changes = raw.map(([offset, bytes]) => ({ offset, bytes: Uint8Array.from(bytes) }));
    const target = layChanges(source, changes, targetSize);
    const patch = encodeOk({ source, targetSize, changes, target });
    assert.deepEqual(referenceApplyIps(patch, source), target, JSON.stringify(raw));
    assert.deepEqual(decode(patch, source), target, JSON.stringify(raw));
  }
  // Nothing to say: an empty patch.
  const unchanged = encodeOk({ source, targetSize: 50, changes: [], target: source });
  assert.deepEqual([...unchanged], [...ips()]);
  const empty = new Uint8Array(0);
  const x = ascii('x');
  const fromEmpty = encodeOk({ source: empty, targetSize: 1, changes: [{ offset: 0, bytes: x }], target: x });
  assert.deepEqual([...fromEmpty], [...ips([0, 0, 0, 0, 1, 0x78])]);
  assert.deepEqual(decode(fromEmpty, empty), x);
});

test('decoding patches it did not write: overlapping records, runs, growth, truncation', () => {
  const source = ascii('0123456789');
  const patch = ips(
    [...be24(2), ...be16(3), ...ascii('abc')],
    [...be24(4), 0, 0, ...be16(3), 0x7a], // zzz over the c
    [...be24(12), ...be16(1), 0x51], // past the end: 10 and 11 become zeros
  );
  const expected = Uint8Array.from([...ascii('01abzzz789'), 0, 0, 0x51]);
  assert.deepEqual(referenceApplyIps(patch, source), expected);
  assert.deepEqual(decode(patch, source), expected);
  const r = readIps(patch, 3);
  assert.deepEqual(r.records, [
    { offset: 2, bytes: ascii('abc') },
    { offset: 4, count: 3, value: 0x7a },
    { offset: 12, bytes: Uint8Array.of(0x51) },
  ] satisfies IpsRecord[]);
  assert.equal(ipsTargetSize(r, 10), 13);
  assert.equal(ipsTargetSize(r, 20), 20);
  patchError(() => readIps(patch, 2));
  // A truncation: records first, then the cut; a truncation larger than the file zero-extends it.
  const cut = Uint8Array.from([...patch, ...be24(6)]);
  assert.deepEqual(decode(cut, source), ascii('01abzz'));
  assert.deepEqual(referenceApplyIps(cut, source), ascii('01abzz'));
  const longer = Uint8Array.from([...ips([...be24(1), ...be16(1), 0x41]), ...be24(14)]);
  assert.deepEqual(decode(longer, source), Uint8Array.from([...ascii('0A23456789'), 0, 0, 0, 0]));
  // Random record lists, against the reference.
  const next = rng(0x1e5);
  for (let n = 0; n < 300; n++) {
    const src = randomBytes(next, Math.floor(next() * 2000));
    const records: number[][] = [];
    for (let k = Math.floor(next() * 12); k > 0; k--) {
      const offset = Math.floor(next() * 3000);
      const value = Math.floor(next() * 256);
      if (next() < 0.3) records.push([...be24(offset), 0, 0, ...be16(1 + Math.floor(next() * 500)), value]);
      else {
        const bytes = randomBytes(next, 1 + Math.floor(next() * 300));
        records.push([...be24(offset), ...be16(bytes.length), ...bytes]);
      }
    }
    let p = ips(...records);
    if (next() < 0.3) p = Uint8Array.from([...p, ...be24(Math.floor(next() * 4000))]);
    assert.deepEqual(decode(p, src), referenceApplyIps(p, src), `case ${n}`);
    assert.deepEqual(decodeInWindows(next, p, src), referenceApplyIps(p, src), `case ${n}`);
  }
});

test('the streaming decoder lays records across its windows in patch order, like the reference', () => {
  const next = rng(0x3d1);
  const int = (n: number) => Math.floor(next() * n);
  for (let n = 0; n < 24; n++) {
    const source = randomBytes(next, int(3) === 0 ? int(64) : int(2 * IPS_WINDOW + 5000));
    const records: number[][] = [];
    for (let k = 0, count = 1 + int(120); k < count; k++) {
      // Most records start within a record's length of a window edge (so they cross it), some anywhere.
      const edge = (1 + int(3)) * IPS_WINDOW;
      let offset = int(4) === 0 ? int(3 * IPS_WINDOW + 0x10000) : edge - int(0x10000) + int(64);
      if (offset === EOF_OFFSET) offset++;
      const length = 1 + int(int(3) === 0 ? 0xffff : 300);
      if (int(3) === 0) records.push([...be24(offset), 0, 0, ...be16(length), int(256)]);
      else records.push([...be24(offset), ...be16(length), ...randomBytes(next, length)]);
    }
    const body = ips(...records);
    // Sometimes cut (or grown) by the truncation extension, to a size inside a window or on its edge.
    const patch =
      int(3) === 0
        ? Uint8Array.from([...body, ...be24(int(2) === 0 ? IPS_WINDOW * (1 + int(2)) : int(3 * IPS_WINDOW))])
        : body;
    const expected = referenceApplyIps(patch, source);
    assert.ok(same(decode(patch, source), expected), `case ${n}: ${records.length} records`);
  }
});

test('a change at 0x454F46 is written from 0x454F45, and every record around that offset still applies', () => {
  const next = rng(0xe0f);
  // The record bytes, exactly: one byte early, with the target byte there.
  const source = randomBytes(next, EOF_OFFSET + 10);
  const bytes = ascii('HELLO');
  const changes = [{ offset: EOF_OFFSET, bytes }];
  const target = layChanges(source, changes, source.length);
  const patch = encodeOk({ source, targetSize: source.length, changes, target });
  assert.deepEqual([...patch], [...ips([0x45, 0x4f, 0x45, 0, 6, source[EOF_OFFSET - 1]!, ...bytes])]);
  assert.deepEqual(referenceApplyIps(patch, source), target);
  assert.ok(same(decode(patch, source), target));
  const cases: [string, ChangeCase][] = [];
  const add = (what: string, src: Uint8Array, targetSize: number, raw: [number, Uint8Array][]) => {
    const cs = raw.map(([offset, b]) => ({ offset, bytes: b }));
    cases.push([what, { source: src, targetSize, changes: cs, target: layChanges(src, cs, targetSize) }]);
  };
  const small = randomBytes(next, 1000);
  add('a change there past a small source', small, EOF_OFFSET + 10, [[EOF_OFFSET, randomBytes(next, 10)]]);
  add('zeros from there', source.subarray(0, EOF_OFFSET), EOF_OFFSET + 100, []);
  add('one zero there', source.subarray(0, EOF_OFFSET), EOF_OFFSET + 1, []);
  add(
    'zeros whose second run starts there',
    source.subarray(0, EOF_OFFSET - 0xffff),
    EOF_OFFSET + 0x20000,
    [],
  );
  add('a long change whose second record starts there', source, EOF_OFFSET + 0x20000, [
    [EOF_OFFSET - 0xffff, randomBytes(next, 0x20000)],
  ]);
  add('a change ending there and one starting there', source, source.length, [
    [EOF_OFFSET - 3, randomBytes(next, 3)],
    [EOF_OFFSET, randomBytes(next, 2)],
  ]);
  add('a change from there to the end', source, EOF_OFFSET + 3, [[EOF_OFFSET, randomBytes(next, 3)]]);
  add('a change of one byte there, then zeros', source.subarray(0, EOF_OFFSET - 5), EOF_OFFSET + 70_000, [
    [EOF_OFFSET, Uint8Array.of(0x99)],
  ]);
  add('a change of 0xffff bytes there', source, EOF_OFFSET + 0x10000, [
    [EOF_OFFSET, randomBytes(next, 0xffff)],
  ]);
  for (const [what, c] of cases) {
    const p = encodeOk(c);
    const r = readIps(p, 1_000_000);
    assert.ok(
      r.records.some((x) => x.offset === EOF_OFFSET - 1),
      `${what}: no record at 0x454F45`,
    );
    assert.ok(!r.records.some((x) => x.offset === EOF_OFFSET), what);
    assert.equal(ipsTargetSize(r, c.source.length), c.targetSize, what);
    assert.ok(same(referenceApplyIps(p, c.source), c.target), what);
    assert.ok(same(decode(p, c.source), c.target), what);
  }
  // The plain zero written first at 0x454F45 carries the byte already there, then a run from 0x454F47.
  const c = cases[1]![1];
  const zerosPatch = encodeOk(c);
  assert.deepEqual(
    [...zerosPatch],
    [...ips([0x45, 0x4f, 0x45, 0, 2, c.source[EOF_OFFSET - 1]!, 0], [0x45, 0x4f, 0x47, 0, 0, 0, 99, 0])],
  );
});

test('changes or growth past 16 MiB are refused; up to the limit they are written', () => {
  const at = (offset: number, n: number) => [{ offset, bytes: new Uint8Array(n).fill(7) }];
  const refuse = (
    sourceSize: number,
    targetSize: number,
    changes: { offset: number; bytes: Uint8Array }[],
  ) => {
    const r = encodeIps({ sourceSize, targetSize, changes, targetByte: () => 0 });
    assert.ok(
      'refused' in r,
      `${sourceSize} -> ${targetSize}: ${JSON.stringify(changes.map((c) => c.offset))}`,
    );
    assert.ok(r.refused.length > 0);
  };
  refuse(IPS_LIMIT + 10, IPS_LIMIT + 10, at(IPS_LIMIT, 1));
  refuse(IPS_LIMIT + 10, IPS_LIMIT + 10, at(IPS_LIMIT - 1, 2));
  refuse(IPS_LIMIT + 10, IPS_LIMIT + 10, at(IPS_LIMIT + 5, 3));
  refuse(100, IPS_LIMIT + 1, []);
  refuse(100, IPS_LIMIT + 1, at(IPS_LIMIT - 10, 10));
  refuse(IPS_LIMIT, IPS_LIMIT + 1, []);
  refuse(IPS_LIMIT + 5, IPS_LIMIT + 1, []); // the truncation size needs 25 bits
  refuse(IPS_LIMIT + 5, IPS_LIMIT, []);
  // Inside the limit: the last byte, a cut to 0xFFFFFF, a big source changed low down.
  const src = new Uint8Array(100).fill(1);
  const target = layChanges(src, at(IPS_LIMIT - 1, 1), IPS_LIMIT);
  const p = encodeOk({ source: src, targetSize: IPS_LIMIT, changes: at(IPS_LIMIT - 1, 1), target });
  assert.ok(same(decode(p, src), target));
  assert.ok(same(referenceApplyIps(p, src, IPS_LIMIT), target));
  const cut = encodeIps({
    sourceSize: IPS_LIMIT + 5,
    targetSize: IPS_LIMIT - 1,
    changes: [],
    targetByte: () => 0,
  });
  assert.ok('patch' in cut);
  assert.deepEqual([...cut.patch], [...ips(), 0xff, 0xff, 0xff]);
  const low = encodeIps({
    sourceSize: IPS_LIMIT + 5,
    targetSize: IPS_LIMIT + 5,
    changes: at(3, 2),
    targetByte: () => 7,
  });
  assert.ok('patch' in low);
  assert.deepEqual([...low.patch], [...ips([0, 0, 3, 0, 2, 7, 7])]);
});

test('a smaller target writes the truncation size; zeros past the source are run records', () => {
  const source = ascii('0123456789');
  const cut = encodeOk({ source, targetSize: 4, changes: [], target: ascii('0123') });
  assert.deepEqual([...cut], [...ips(), 0, 0, 4]);
  assert.deepEqual(decode(cut, source), ascii('0123'));
  const none = encodeOk({ source, targetSize: 0, changes: [], target: new Uint8Array(0) });
  assert.deepEqual([...none], [...ips(), 0, 0, 0]);
  assert.deepEqual(referenceApplyIps(none, source), new Uint8Array(0));
  assert.deepEqual(decode(none, source), new Uint8Array(0));
  // 200,000 zeros: runs of 0xFFFF from offset 10, the last one shorter.
  const grown = layChanges(source, [], 10 + 200_000);
  const p = encodeOk({ source, targetSize: grown.length, changes: [], target: grown });
  const runs = [0, 1, 2, 3].map((k) => [
    ...be24(10 + k * 0xffff),
    0,
    0,
    ...be16(k < 3 ? 0xffff : 200_000 - 3 * 0xffff),
    0,
  ]);
  assert.deepEqual([...p], [...ips(...runs)]);
  assert.ok(same(decode(p, source), grown));
  // A change in the grown part: runs before and after it.
  const changes = [{ offset: 500, bytes: ascii('mid') }];
  const withChange = layChanges(source, changes, 1000);
  const q = encodeOk({ source, targetSize: 1000, changes, target: withChange });
  assert.deepEqual(
    [...q],
    [
      ...ips(
        [...be24(10), 0, 0, ...be16(490), 0],
        [...be24(500), 0, 3, ...ascii('mid')],
        [...be24(503), 0, 0, ...be16(497), 0],
      ),
    ],
  );
  assert.deepEqual(decode(q, source), withChange);
});

test('an 8 MiB zero extension of a 1 KB source is a small patch that decodes quickly', () => {
  const next = rng(0x8e);
  const source = randomBytes(next, 1024);
  const targetSize = 1024 + 8 * MiB;
  const target = layChanges(source, [], targetSize);
  const patch = encodeOk({ source, targetSize, changes: [], target });
  assert.equal(patch.length, 5 + 8 * Math.ceil((8 * MiB) / 0xffff) + 3);
  const started = performance.now();
  const got = decode(patch, source);
  assert.ok(performance.now() - started < 1000);
  assert.ok(same(got, target));
  assert.ok(readIps(patch, 1000).records.every((r) => 'count' in r && r.value === 0));
});

test('malformed IPS patches are refused with a PatchError', () => {
  const source = ascii('0123456789');
  const record = [...be24(1), ...be16(2), 0x41, 0x42];
  const cases: [string, Uint8Array][] = [
    ['empty', new Uint8Array(0)],
    ['no header', Uint8Array.from([...ascii('PATCX'), ...ascii('EOF')])],
    ['lower-case header', Uint8Array.from([...ascii('patch'), ...ascii('EOF')])],
    ['only the header', ascii('PATCH')],
    ['no EOF', Uint8Array.from([...ascii('PATCH'), ...record])],
    ['half an EOF', Uint8Array.from([...ascii('PATCH'), ...record, 0x45, 0x4f])],
    ['a record past the end', ips([...be24(1), ...be16(0x10), 1, 2, 3])],
    ['a record header cut', Uint8Array.from([...ascii('PATCH'), 0, 0, 1, 0])],
    ['a run record cut', Uint8Array.from([...ascii('PATCH'), 0, 0, 1, 0, 0, 0, 5])],
    ['a run of zero bytes', ips([...be24(1), 0, 0, 0, 0, 0x41])],
    ['one byte after EOF', Uint8Array.from([...ips(record), 1])],
    ['two bytes after EOF', Uint8Array.from([...ips(record), 1, 2])],
    ['four bytes after EOF', Uint8Array.from([...ips(record), 0, 0, 1, 2])],
    ['a second EOF', Uint8Array.from([...ips(record), ...ascii('EOF'), 0])],
  ];
  for (const [what, patch] of cases) {
    assert.equal(patchError(() => readIps(patch, 1000)).kind, 'malformed', what);
    assert.throws(() => referenceApplyIps(patch, source), Error, what);
  }
  // Exactly three bytes after EOF are a truncation, even when they spell EOF.
  assert.deepEqual(readIps(Uint8Array.from([...ips(), ...ascii('EOF')]), 10).truncate, EOF_OFFSET);
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
      if (q.length > 0) q[Math.min(at, q.length - 1)] = [0x00, 0x45, 0x4f, 0x46, 0xff][int(5)]!;
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

test('fuzz: mutated IPS patches decode like the reference or end in a PatchError, fast', () => {
  const next = rng(0xf0221);
  const pool: [Uint8Array, Uint8Array][] = [];
  while (pool.length < 30) {
    const c = randomChangeCase(next, 3000);
    const patch = encodeOk(c);
    if (patch.length < 20_000) pool.push([c.source, patch]);
  }
  const outcomes: Record<string, number> = {};
  let slowest = 0;
  for (let n = 0; n < 3000; n++) {
    const [source, patch] = pool[n % pool.length]!;
    const bad = mutate(next, patch);
    let expected: Uint8Array | null = null;
    try {
      expected = referenceApplyIps(bad, source, MiB);
    } catch {}
    const started = performance.now();
    let outcome = 'target';
    try {
      const r = readIps(bad, 100_000);
      const size = ipsTargetSize(r, source.length);
      if (size > MiB) {
        assert.equal(expected, null, `case ${n}`);
        outcome = 'large';
      } else {
        const got = decode(bad, source);
        assert.ok(expected !== null, `case ${n}: decoded what the reference refuses`);
        assert.deepEqual(got, expected, `case ${n}`);
      }
    } catch (error) {
      if (!(error instanceof PatchError)) throw error;
      assert.equal(expected, null, `case ${n}: refused (${error.message}) what the reference accepts`);
      outcome = error.kind;
    }
    slowest = Math.max(slowest, performance.now() - started);
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  assert.ok((outcomes.malformed ?? 0) > 300, JSON.stringify(outcomes));
  assert.ok((outcomes.target ?? 0) > 300, JSON.stringify(outcomes));
  assert.ok(slowest < 500, `slowest case took ${slowest} ms`);
});
