// Text runs in bytes (src/search/strings.ts): what each encoding accepts, where runs end, that a run
// never grows past its byte bound, and that scanning a buffer in pieces of any size finds exactly the
// runs one scan of the whole finds (random buffers with planted strings of every encoding).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type FoundString,
  SCAN_START,
  type StringEncoding,
  type StringScanOptions,
  scanPieces,
  scanStrings,
  sjisAvailable,
  stringText,
  textView,
} from '../../src/search/strings.js';
import { rng } from '../kit/rng.js';

const ALL = new Set<StringEncoding>(['ascii', 'sjis', 'utf16le']);
const opts = (o: Partial<StringScanOptions> = {}): StringScanOptions => ({
  encodings: ALL,
  minLength: 4,
  maxBytes: 4096,
  ...o,
});

function whole(bytes: Uint8Array, o: StringScanOptions): (FoundString & { text: string })[] {
  const out: (FoundString & { text: string })[] = [];
  scanStrings(bytes, SCAN_START, bytes.length, bytes.length, o, (s) =>
    out.push({ ...s, text: stringText(bytes, s) }),
  );
  return out;
}

async function pieces(bytes: Uint8Array, o: StringScanOptions, piece: number, end = bytes.length) {
  const out: (FoundString & { text: string })[] = [];
  let last = 0;
  await scanPieces(
    (s, e) => bytes.slice(s, e),
    bytes.length,
    end,
    piece,
    o,
    (s, text) => out.push({ ...s, text }),
    async (done) => {
      assert.ok(done > last && done <= end, `progress ${done} after ${last}`);
      last = done;
    },
  );
  return out;
}

const enc = (s: string) => new TextEncoder().encode(s);
const utf16 = (s: string) => {
  const b = new Uint8Array(s.length * 2);
  for (let i = 0; i < s.length; i++) {
    b[2 * i] = s.charCodeAt(i) & 0xff;
    b[2 * i + 1] = s.charCodeAt(i) >> 8;
  }
  return b;
};
const cat = (...parts: (Uint8Array | number[])[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

test('ASCII: maximal printable runs of at least minLength, terminated when a NUL follows', () => {
  const b = cat([0xff], enc('Hello, world'), [0], enc('abc'), [0], enc('tail!'), [0xfe]);
  const r = whole(b, opts());
  assert.deepEqual(
    r.map((s) => [s.offset, s.text, s.encoding, s.terminated]),
    [
      [1, 'Hello, world', 'ascii', true],
      [18, 'tail!', 'ascii', false],
    ],
  );
  assert.deepEqual(
    whole(b, opts({ minLength: 3 })).map((s) => s.text),
    ['Hello, world', 'abc', 'tail!'],
  );
  assert.deepEqual(whole(b, opts({ encodings: new Set(['utf16le']) })), []);
});

test('a run longer than maxBytes is cut there and goes on as the next run', () => {
  const b = cat(enc('x'.repeat(100)), [0]);
  const r = whole(b, opts({ maxBytes: 40 }));
  assert.deepEqual(
    r.map((s) => [s.offset, s.byteLength, s.cut, s.terminated]),
    [
      [0, 40, true, false],
      [40, 40, true, false],
      [80, 20, false, true],
    ],
  );
});

test('UTF-16LE: ASCII-only runs need no terminator, runs beyond ASCII do', () => {
  const b = cat(
    [1, 1],
    utf16('Save file'),
    [0, 0],
    [7, 7],
    utf16('ポケモン'),
    [0, 0],
    utf16('データ'),
    [1, 1],
  );
  const r = whole(b, opts({ encodings: new Set(['utf16le']) }));
  assert.deepEqual(
    r.map((s) => [s.offset, s.text, s.terminated]),
    [
      [2, 'Save file', true],
      [24, 'ポケモン', true],
    ],
  );
  assert.equal(r[0]!.chars, 9);
  assert.equal(r[0]!.byteLength, 18);
});

test('Shift-JIS: a run with a double-byte character and a NUL; without the pair it is ASCII', (t) => {
  if (!sjisAvailable()) {
    // The official Node.js builds carry full ICU; a build without it must say so in the result.
    assert.fail('this Node.js has no Shift-JIS decoder');
  }
  // "テスト" in Shift-JIS, then ASCII.
  const sjis = [0x83, 0x65, 0x83, 0x58, 0x83, 0x67];
  const b = cat([0xff], sjis, enc('OK'), [0], enc('plain text'), [0]);
  const r = whole(b, opts());
  assert.deepEqual(
    r.map((s) => [s.offset, s.text, s.encoding]),
    [
      [1, 'テストOK', 'sjis'],
      [10, 'plain text', 'ascii'],
    ],
  );
  // Unterminated: not Shift-JIS.
  const open = cat([0xff], sjis, enc('OKAY'), [0xff]);
  assert.deepEqual(
    whole(open, opts()).map((s) => s.encoding),
    ['ascii'],
  );
  t.diagnostic(`sjis decoded as ${r[0]!.text}`);
});

test('pieces of any size find exactly the runs of one whole scan (random buffers, planted strings)', async () => {
  const rand = rng(0x5eed);
  const pick = (n: number) => Math.floor(rand() * n);
  const words = ['Hello', 'GAME OVER', 'data/level1.bin', 'x', 'ab', 'Press START'];
  for (let round = 0; round < 60; round++) {
    const parts: (Uint8Array | number[])[] = [];
    const n = 4 + pick(40);
    for (let i = 0; i < n; i++) {
      const k = pick(6);
      if (k === 0) parts.push(Array.from({ length: pick(12) }, () => pick(256)));
      else if (k === 1) parts.push(enc(words[pick(words.length)]!));
      else if (k === 2) parts.push(cat(utf16(['Menu', 'セーブ', 'Options'][pick(3)]!), [0, 0]));
      else if (k === 3) parts.push([0x83, 0x65, 0x83, 0x58, 0x41, 0x42, 0]);
      else if (k === 4) parts.push(enc('#'.repeat(pick(90))));
      else parts.push(Array.from({ length: pick(6) }, () => [0, 0x20, 0x81, 0x41, 0xa5][pick(5)]!));
    }
    const bytes = cat(...parts);
    for (const o of [opts({ maxBytes: 32 }), opts({ minLength: 3, maxBytes: 64 }), opts()]) {
      const want = whole(bytes, o);
      for (const piece of [1, 3, 7, 16, 33, 100, bytes.length + 1]) {
        const got = await pieces(bytes, o, piece);
        assert.deepEqual(got, want, `round ${round}, piece ${piece}, maxBytes ${o.maxBytes}`);
      }
      // A bound on where runs start: exactly the runs starting before it.
      const end = Math.floor(bytes.length / 2);
      const bounded = await pieces(bytes, o, 5, end);
      assert.deepEqual(
        bounded,
        want.filter((s) => s.offset < end),
        `round ${round}, end ${end}`,
      );
    }
  }
});

test('a long printable buffer costs runs of at most maxBytes, never one unbounded string', async () => {
  const bytes = new Uint8Array(1 << 20).fill(0x41);
  let runs = 0;
  let longest = 0;
  await scanPieces(
    (s, e) => bytes.subarray(s, e),
    bytes.length,
    bytes.length,
    1 << 16,
    opts(),
    (s) => {
      runs++;
      longest = Math.max(longest, s.byteLength);
    },
    async () => {},
  );
  assert.equal(longest, 4096);
  // 256 ASCII runs; "AA" (U+4141) is no UTF-16LE character the scan accepts.
  assert.equal(runs, 256);
});

test('textView: BOMs decide, then valid UTF-8, Shift-JIS with a pair, a UTF-16LE pattern, else Windows-1252', () => {
  const v = (b: number[] | Uint8Array) => textView(Uint8Array.from(b));
  assert.deepEqual(
    [v([0xef, 0xbb, 0xbf, 0x68, 0x69]).encoding, v([0xef, 0xbb, 0xbf, 0x68, 0x69]).content],
    ['utf-8', 'hi'],
  );
  assert.equal(v([0xfe, 0xff, 0x00, 0x41]).content, 'A');
  assert.equal(v([0xfe, 0xff, 0x00, 0x41]).encoding, 'utf-16be');
  assert.equal(v(utf16('plain units')).encoding, 'utf-16le');
  assert.equal(v(utf16('plain units')).by, 'utf-16le pattern');
  assert.equal(v(enc('just ascii')).encoding, 'utf-8');
  assert.deepEqual([v([0x83, 0x65, 0x41]).encoding, v([0x83, 0x65, 0x41]).content], ['shift_jis', 'テA']);
  const latin = v([0xff, 0x41, 0xe9, 0x00]);
  assert.equal(latin.encoding, 'windows-1252');
  assert.equal(latin.content, 'ÿAé\u2400');
  assert.equal(latin.controls, 1);
  // A cut UTF-8 character at the end is left out and counted.
  const cut = v([0x61, 0xe6, 0x97]);
  assert.deepEqual([cut.encoding, cut.content, cut.partialTail], ['utf-8', 'a', 2]);
});

test('textView on random bytes: never throws, never emits a C0 control, never longer than its input', () => {
  const rand = rng(0x7e57);
  for (let i = 0; i < 2000; i++) {
    const b = Uint8Array.from({ length: Math.floor(rand() * 64) }, () => Math.floor(rand() * 256));
    const t = textView(b);
    assert.doesNotMatch(t.content, /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/);
    assert.ok([...t.content].length <= b.length, `${t.encoding}: ${t.content.length} > ${b.length}`);
    assert.ok(t.partialTail >= 0 && t.partialTail <= 3);
  }
});
