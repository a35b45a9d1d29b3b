import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePattern, MAX_ANCHOR, type PatternInput } from '../../src/search/pattern.js';
import { errorCode } from '../kit/errors.js';

const sig = (signature: string) => compilePattern({ kind: 'byte-signature', signature });
const int = (value: number, width: 8 | 16 | 32, endianness: 'little' | 'big', signed: boolean) =>
  compilePattern({ kind: 'integer', value, width, endianness, signed });

test('byte signatures: exact bytes, whole-byte wildcards, any whitespace', () => {
  const p = sig('  12 34\t?? \n78 ');
  assert.deepEqual([...p.bytes], [0x12, 0x34, 0, 0x78]);
  assert.deepEqual([...p.mask!], [1, 1, 0, 1]);
  assert.equal(p.canonical, '12 34 ?? 78');
  assert.equal(sig('aB cd').canonical, 'AB CD');
  assert.equal(sig('aB cd').mask, null, 'no wildcard: no mask');
});

test('byte signatures: every malformed spelling is a typed refusal', () => {
  for (const bad of [
    'A? 12',
    '?A 12',
    '1 2',
    '123',
    'GG',
    '0x12',
    '12,34',
    '12 ?',
    '12 ???',
    '.*',
    '12|34',
    '',
  ]) {
    assert.equal(
      errorCode(() => sig(bad)),
      'invalid-argument',
      bad,
    );
  }
  assert.equal(
    errorCode(() => sig('?? ??')),
    'invalid-argument',
    'all-wildcard',
  );
  assert.equal(
    errorCode(() => sig(Array(4097).fill('AA').join(' '))),
    'limit-exceeded',
  );
  assert.equal(sig(Array(4096).fill('AA').join(' ')).bytes.length, 4096);
});

test('integers: width, endianness and signedness encode exactly as two-complement', () => {
  assert.deepEqual([...int(0x12345678, 32, 'little', false).bytes], [0x78, 0x56, 0x34, 0x12]);
  assert.deepEqual([...int(0x12345678, 32, 'big', false).bytes], [0x12, 0x34, 0x56, 0x78]);
  assert.deepEqual([...int(-1, 16, 'little', true).bytes], [0xff, 0xff]);
  assert.deepEqual([...int(-2, 32, 'big', true).bytes], [0xff, 0xff, 0xff, 0xfe]);
  assert.deepEqual([...int(-128, 8, 'little', true).bytes], [0x80]);
  assert.deepEqual([...int(0xffffffff, 32, 'little', false).bytes], [0xff, 0xff, 0xff, 0xff]);
  assert.deepEqual([...int(-0x80000000, 32, 'little', true).bytes], [0, 0, 0, 0x80]);
  const aligned = compilePattern({
    kind: 'integer',
    value: 7,
    width: 16,
    endianness: 'little',
    signed: false,
    alignment: 4,
  });
  assert.equal(aligned.alignment, 4);
  assert.equal(int(7, 32, 'little', false).alignment, 1, 'width never implies alignment');
});

test('integers: out-of-range values and bad options are refused', () => {
  const cases: Array<[number, 8 | 16 | 32, boolean]> = [
    [256, 8, false],
    [-1, 8, false],
    [128, 8, true],
    [-129, 8, true],
    [0x10000, 16, false],
    [0x8000, 16, true],
    [0x1_0000_0000, 32, false],
    [0x8000_0000, 32, true],
    [-0x8000_0001, 32, true],
    [1.5, 32, false],
  ];
  for (const [value, width, signed] of cases) {
    assert.equal(
      errorCode(() => int(value, width, 'little', signed)),
      'invalid-argument',
      `${value}/${width}/${signed}`,
    );
  }
  const bad = { kind: 'integer', value: 1, width: 16, endianness: 'little', signed: false } as const;
  assert.equal(
    errorCode(() => compilePattern({ ...bad, alignment: 3 as 2 })),
    'invalid-argument',
  );
  assert.equal(
    errorCode(() => compilePattern({ ...bad, width: 24 as 16 })),
    'invalid-argument',
  );
  assert.equal(
    errorCode(() => compilePattern({ ...bad, endianness: 'middle' as 'big' })),
    'invalid-argument',
  );
});

test('strings: ASCII exact and ASCII-only; UTF-16LE exact code units; no terminator', () => {
  assert.deepEqual([...compilePattern({ kind: 'ascii', text: 'Ab' }).bytes], [0x41, 0x62]);
  assert.equal(
    errorCode(() => compilePattern({ kind: 'ascii', text: 'café' })),
    'invalid-argument',
  );
  assert.equal(
    errorCode(() => compilePattern({ kind: 'ascii', text: '' })),
    'invalid-argument',
  );
  assert.deepEqual([...compilePattern({ kind: 'utf16le', text: 'Aé' }).bytes], [0x41, 0, 0xe9, 0]);
  // No normalization: a decomposed é stays two code units.
  assert.deepEqual([...compilePattern({ kind: 'utf16le', text: 'e\u0301' }).bytes], [0x65, 0, 0x01, 0x03]);
  assert.equal(compilePattern({ kind: 'utf16le', text: 'x'.repeat(2048) }).bytes.length, 4096);
  assert.equal(
    errorCode(() => compilePattern({ kind: 'utf16le', text: 'x'.repeat(2049) })),
    'limit-exceeded',
  );
  assert.equal(
    errorCode(() => compilePattern({ kind: 'ascii', text: 'x'.repeat(4097) })),
    'limit-exceeded',
  );
  assert.equal(
    errorCode(() => compilePattern({ kind: 'regex', text: 'x' } as unknown as PatternInput)),
    'invalid-argument',
  );
});

test('a pattern without wildcards is its own anchor (indexOf does the whole match)', () => {
  const p = sig('00 00 00 00 12 34 56 78 9A BC DE');
  assert.equal(p.anchorStart, 0);
  assert.equal(p.anchorLength, 11);
  const long = sig(`${'00 '.repeat(4095)}01`);
  assert.equal(long.anchorLength, 4096);
});

test('with wildcards the anchor is a short exact window, chosen by rarity, never on a wildcard', () => {
  const q = sig('AA ?? ?? BB CC ?? DD');
  assert.equal(q.anchorLength, 2);
  assert.equal(q.anchorStart, 3);
  for (let i = q.anchorStart; i < q.anchorStart + q.anchorLength; i++) assert.equal(q.mask![i], 1);
  const p = sig('00 00 ?? 00 A0 E3');
  assert.equal(p.anchorStart, 4, 'a leading padding byte is trimmed');
  assert.equal(p.anchorLength, 2);
  const single = sig('00 ?? 12');
  assert.equal(single.anchorStart, 2, 'one-byte runs: the non-padding byte');
  const padded = sig(`${'00 '.repeat(4094)}?? 01`);
  assert.equal(padded.anchorStart, 4095, 'a long run of padding loses to one rare byte');
  assert.equal(padded.anchorLength, 1);
  const ff = sig(`?? ${'FF '.repeat(4000)}00 12`);
  assert.ok(ff.anchorLength <= MAX_ANCHOR);
  assert.equal(ff.anchorStart + ff.anchorLength, 4003, 'the window ends on the rare byte');
});
