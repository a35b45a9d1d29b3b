// The map's reference store: the order "who references X" is answered from is every index ordered by
// target, equal targets in the order added (orderByValue against a comparison sort, with repeats and
// the extreme values); to_ gives exactly the references to a target, in the order added, and a
// reference added after a query is found by the next one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { orderByValue, RefStore } from '../../../src/analysis/program-map/refs.js';
import { rng } from '../../kit/rng.js';

test('orderByValue orders indices by value, equal values by index, like a comparison sort', () => {
  const next = rng(7);
  for (const [n, spread] of [
    [0, 1],
    [1, 1],
    [2, 1],
    [1000, 3],
    [5000, 70_000],
    [20_000, 2 ** 32],
  ] as const) {
    const values = new Uint32Array(n);
    for (let i = 0; i < n; i++) values[i] = Math.floor(next() * spread) >>> 0;
    if (n > 4) {
      values[0] = 0xffffffff;
      values[1] = 0;
      values[2] = 0x0001_0000;
      values[3] = 0x0000_ffff;
    }
    const want = Array.from({ length: n }, (_, i) => i).sort((a, b) => values[a]! - values[b]! || a - b);
    assert.deepEqual(Array.from(orderByValue(values)), want, `${n} values below ${spread}`);
  }
});

test('to_ gives the references to a target in the order added, and sees references added later', () => {
  const next = rng(8);
  const store = new RefStore();
  const targets: number[] = [];
  const add = (to: number) => {
    store.addOf(0x02000000 + targets.length * 4, to, 'direct-call', 0, 'arm', 'proven', false, 0);
    targets.push(to >>> 0);
  };
  for (let i = 0; i < 3000; i++) add(0x02000000 + Math.floor(next() * 200) * 4);
  add(0xfffffffc);
  add(0);
  const naive = (t: number) => targets.flatMap((x, i) => (x === t >>> 0 ? [i] : []));
  for (const t of [0x02000000, 0x02000004, 0x02000320, 0x02000324, 0xfffffffc, 0, 0x02000002])
    assert.deepEqual(store.to_(t), naive(t), `target ${t.toString(16)}`);
  add(0x02000002);
  assert.deepEqual(store.to_(0x02000002), [targets.length - 1]);
});
