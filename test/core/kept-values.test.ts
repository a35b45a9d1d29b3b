// core/kept-values.ts: kept values are found again (the least recently used goes first), bounded by a
// count and a byte total; each holds its share of the memory budget, is not kept without room, and goes
// when a reservation needs the room.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeptValues } from '../../src/core/kept-values.js';
import { MemoryBudget } from '../../src/core/memory-budget.js';

test('the least recently used value goes first, within the count and the byte total', () => {
  const kept = new KeptValues<string>(null, { maxValues: 3, maxBytes: 100 });
  assert.ok(kept.keep('a', 'A', 10));
  assert.ok(kept.keep('b', 'B', 10));
  assert.ok(kept.keep('c', 'C', 10));
  assert.equal(kept.get('a'), 'A'); // now the most recently used
  assert.ok(kept.keep('d', 'D', 10));
  assert.equal(kept.get('b'), undefined, 'b was the least recently used');
  assert.deepEqual(
    ['a', 'c', 'd'].map((k) => kept.get(k)),
    ['A', 'C', 'D'],
  );
  // 90 bytes: the oldest go to make room, only as many as needed.
  assert.ok(kept.keep('big', 'BIG', 90));
  assert.equal(kept.size, 2);
  assert.equal(kept.bytes, 100);
  assert.deepEqual(
    ['a', 'c', 'd'].map((k) => kept.get(k)),
    [undefined, undefined, 'D'],
  );
  // Larger than the total: never kept.
  assert.equal(kept.keep('huge', 'H', 101), false);
  assert.equal(kept.get('huge'), undefined);
  // Keeping a key again replaces its value and its bytes.
  assert.ok(kept.keep('big', 'BIG2', 40));
  assert.equal(kept.bytes, 50);
  assert.equal(kept.get('big'), 'BIG2');
});

test('kept values hold their shares of the budget and go under pressure', async () => {
  const memory = new MemoryBudget(1000);
  const kept = new KeptValues<number>(memory, { maxValues: 10, maxBytes: 1000 });
  assert.ok(kept.keep('x', 1, 300));
  assert.ok(kept.keep('y', 2, 300));
  assert.equal(memory.reserved, 600);
  // A reservation that does not fit beside them makes the oldest go, only as many as needed.
  const call = await memory.reserve(600, 'a call');
  assert.equal(kept.get('x'), undefined);
  assert.equal(kept.get('y'), 2);
  assert.equal(memory.reserved, 900);
  // No room for a share: older values go; with none left to go, the value is not kept.
  assert.ok(kept.keep('z', 3, 400));
  assert.equal(kept.get('y'), undefined);
  assert.equal(kept.keep('w', 4, 500), false);
  assert.equal(kept.get('w'), undefined);
  call.release();
  kept.delete('z');
  assert.equal(memory.reserved, 0);
});
