// memoByText (src/core/text-memo.ts): an answer is computed once per text and the same answer (the
// same object) comes back; null is an answer kept like any other; past `max` texts all are dropped
// and computed afresh, so the memo never holds more than `max`; a bound that is no positive integer
// is refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoByText } from '../../src/core/text-memo.js';

test('each text is computed once and answers with the same value', () => {
  const calls: string[] = [];
  const parse = memoByText((t) => {
    calls.push(t);
    return t.startsWith('x') ? null : { length: t.length };
  }, 8);
  const a = parse('push');
  assert.deepEqual(a, { length: 4 });
  assert.equal(parse('push'), a, 'the kept object itself');
  assert.equal(parse('xyz'), null);
  assert.equal(parse('xyz'), null);
  assert.deepEqual(calls, ['push', 'xyz'], 'null is kept too');
});

test('past max texts the memo starts over: never more than max kept', () => {
  let computed = 0;
  const f = memoByText((t) => {
    computed++;
    return t.length;
  }, 4);
  for (const t of ['a', 'bb', 'ccc', 'dddd']) f(t);
  assert.equal(computed, 4);
  f('a');
  assert.equal(computed, 4, 'still kept');
  f('eeeee'); // the fifth text: the four are dropped, this one kept
  f('a');
  assert.equal(computed, 6, 'computed afresh after the memo started over');
  // Many distinct texts: the count computed is the count asked (nothing wrongly kept or lost).
  const g = memoByText((t) => t.toUpperCase(), 16);
  for (let i = 0; i < 1000; i++) assert.equal(g(`t${i % 40}`), `T${i % 40}`);
});

test('a bound that is no positive integer is refused', () => {
  for (const max of [0, -1, 1.5, Number.NaN]) assert.throws(() => memoByText((t) => t, max), RangeError);
});
