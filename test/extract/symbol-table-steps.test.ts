// The symbol table's indexes are made in steps (SymbolTable.build, the server's way): the address sort
// is a merge of sorted runs with yields between, and must give exactly the order of one stable sort;
// the table built in slices answers as the one built at once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { driveSteps, runSteps } from '../../src/core/cooperative.js';
import { type StoredSymbol, SymbolTable, sortByAddress } from '../../src/extract/symbol-store.js';

function symbols(n: number, seed: number, spread: number): StoredSymbol[] {
  let x = seed;
  const next = () => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return x;
  };
  return Array.from({ length: n }, (_, i) => ({
    processor: next() % 3 === 0 ? 'arm7' : 'arm9',
    address: 0x02000000 + (next() % spread) * 4,
    overlayId: null,
    component: 'main',
    mode: 'arm',
    name: `fn_${i}`,
    size: null,
    comment: null,
    source: 'user',
  }));
}

test('the address sort in steps is the stable sort, ties in their first order, at every length around the run size', () => {
  for (const [n, spread] of [
    [0, 1],
    [1, 1],
    [2047, 100],
    [2048, 5000],
    [2049, 7],
    [4097, 30],
    [20_000, 1000],
    [33_333, 1_000_000],
  ] as const) {
    const list = symbols(n, n + 1, spread);
    const expected = [...list].sort((a, b) => a.address - b.address).map((s) => s.name);
    let yields = 0;
    const steps = sortByAddress([...list]);
    let r = steps.next();
    while (!r.done) {
      yields++;
      r = steps.next();
    }
    assert.deepEqual(
      r.value.map((s) => s.name),
      expected,
      `${n} names over ${spread} addresses`,
    );
    // The work is cut into pieces: a yield per run at least.
    assert.ok(yields >= Math.ceil(n / 2048), `${yields} yields for ${n} names`);
  }
});

test('a table built in slices answers as one built at once (lookups by address and by name)', async () => {
  const list = symbols(30_000, 3, 40_000);
  const atOnce = new SymbolTable(list);
  const sliced = await SymbolTable.build(list);
  assert.equal(sliced.size, atOnce.size);
  for (let a = 0x02000000; a < 0x02000000 + 40_000 * 4; a += 4 * 97)
    for (const p of ['arm9', 'arm7'] as const) assert.equal(sliced.nameOf(p, a + 2), atOnce.nameOf(p, a + 2));
  for (const i of [0, 1, 777, 29_999]) {
    const s = list[i]!;
    assert.deepEqual(sliced.named(s.processor, s.name), atOnce.named(s.processor, s.name));
    assert.equal(sliced.named(s.processor, s.name)[0], s);
  }
  assert.deepEqual(sliced.like('arm9', 'fn_2999', 5), atOnce.like('arm9', 'fn_2999', 5));
  // The same steps run at once and driven give the same order.
  const driven = await driveSteps(sortByAddress([...list]));
  assert.deepEqual(
    driven.map((s) => s.name),
    runSteps(sortByAddress([...list])).map((s) => s.name),
  );
  const stop = new AbortController();
  stop.abort();
  await assert.rejects(SymbolTable.build(list, stop.signal), { code: 'cancelled' });
});
