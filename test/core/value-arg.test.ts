// valueArg: the value a memory comparison takes, in the forms address arguments take ("0x1f", "31")
// plus a sign; anything else is a validation issue, never a guess.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { valueArg } from '../../src/core/vocabulary.js';

test('integers, hex and decimal strings, with a sign; nothing else', () => {
  const arg = valueArg();
  for (const [input, want] of [
    [5, 5],
    [-7, -7],
    ['0x1f', 31],
    ['0X1F', 31],
    ['-0x10', -16],
    ['31', 31],
    ['-12', -12],
    ['0xffffffff', 0xffffffff],
  ] as const)
    assert.equal(arg.parse(input), want, String(input));
  for (const bad of ['1.5', '0x', 'abc', '', '--1', '0x123456789', ' 1', 1.5, '1e3'])
    assert.equal(arg.safeParse(bad).success, false, JSON.stringify(bad));
});
