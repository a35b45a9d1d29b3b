// Data labels on real code: a library object's variables and tables, linked into a program here, are
// proposed at the addresses the words of the functions named by their signatures give (every user
// agreeing), their content compared where they have any; content that differs names nothing.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { applySteps } from '../../../src/analysis/signatures/apply.js';
import { dataLabels } from '../../../src/analysis/signatures/data-labels.js';
import type { ProgramMemory } from '../../../src/analysis/signatures/types.js';
import { runSteps } from '../../../src/core/cooperative.js';
import { objectKit } from '../../kit/signature-objects.js';

const { compile, link, setOf, cleanup } = objectKit('re-mcp-data-labels-');
after(cleanup);

const LIB = [
  'int lib_count;',
  'int lib_table[6] = { 3, 1, 4, 1, 5, 9 };',
  'int lib_add(int x) { for (int i = 0; i < 6; i++) lib_count += lib_table[i] * x; return lib_count; }',
  'int lib_get(int i) { lib_count ^= i * 7; return lib_table[i % 6] + lib_count * 5; }',
].join('\n');
const APP = 'extern int lib_add(int), lib_get(int);\nint main(void) { return lib_add(2) + lib_get(3); }';

test('a variable and a table named where the functions using them say, their content compared', () => {
  const lib = compile('dl-lib', LIB);
  const p = link('dl', 0x02000000, [compile('dl-app', APP), lib], ['-Wl,-Tdata=0x02100000']);
  const set = setOf([lib]);
  const r = runSteps(applySteps(set, p.functions, p.memory));
  const data = r.proposals.filter((x) => x.mode === 'data');
  assert.equal(r.counts.data, data.length);
  const byName = new Map(data.map((x) => [x.name, x]));
  const table = byName.get('lib_table');
  const count = byName.get('lib_count');
  assert.ok(table && count, JSON.stringify(data));
  // lib_count is used by lib_add and lib_get (two users agree); lib_table by lib_get alone, its 24
  // bytes compared and equal: both strong.
  assert.equal(count.candidates[0]!.refsAgreed, 2);
  assert.equal(table.candidates[0]!.refsAgreed, 1);
  for (const x of [table, count]) {
    assert.equal(x.tier, 'strong');
    assert.equal(x.inMap, null);
  }
  assert.ok(
    count.reasons.some((why) => /named by the address words of 2 function\(s\)/.test(why)),
    count.reasons.join('; '),
  );
  // lib_table's 24 bytes are in the program and compared; lib_count (uninitialised) has none.
  assert.equal(table.candidates[0]!.comparedBytes, 24);
  assert.equal(count.candidates[0]!.comparedBytes, 0);
  // At the addresses the program's own code reads: the table's bytes are there.
  const at = table.address;
  assert.deepEqual([...(p.memory.read(at, 8) ?? [])], [3, 0, 0, 0, 1, 0, 0, 0]);
  assert.notEqual(count.address, table.address);
});

test('users that disagree make the label ambiguous; content that differs names nothing', () => {
  const lib = compile('dl-lib', LIB);
  const set = setOf([lib]);
  const byName = new Map<string, number>();
  for (const [i, item] of set.items.entries()) for (const n of item.names) byName.set(n, i);
  const add = byName.get('lib_add')!;
  const get = byName.get('lib_get')!;
  // The words naming a variable, chosen per function (anything else: elsewhere).
  const wordFor = (item: number, target: string, address: number) => (at: number) =>
    set.items[item]!.refs.some((r) => r.at === at && r.target === target) ? address : 0x02300000;
  const table = new Uint8Array(new Uint32Array([3, 1, 4, 1, 5, 9]).buffer);
  const memory = (base: number, bytes: Uint8Array): ProgramMemory => ({
    read: (a, n) =>
      a >= base && a + n <= base + bytes.length ? bytes.subarray(a - base, a - base + n) : null,
  });
  const none = memory(0, new Uint8Array(0));
  // lib_add and lib_get name lib_count at two addresses (it has no content to settle it): ambiguous.
  const disagree = [
    { address: 0x1000, name: 'lib_add', item: add, word: wordFor(add, 'lib_count', 0x02200000) },
    { address: 0x1100, name: 'lib_get', item: get, word: wordFor(get, 'lib_count', 0x02200040) },
  ];
  const split = dataLabels(set.items, byName, disagree, none, 16).find((d) =>
    d.candidates.some((c) => c.name === 'lib_count'),
  );
  assert.equal(split?.name, null);
  assert.equal(split.tier, 'ambiguous');
  assert.deepEqual(split.alsoAt, [0x02200040]);
  // lib_get names lib_table where other bytes are: ruled out; where its bytes are: named.
  const getTable = [
    { address: 0x1100, name: 'lib_get', item: get, word: wordFor(get, 'lib_table', 0x02100000) },
  ];
  const other = memory(0x02100000, new Uint8Array(24).fill(7));
  assert.equal(
    dataLabels(set.items, byName, getTable, other, 16).some((d) =>
      d.candidates.some((c) => c.name === 'lib_table'),
    ),
    false,
  );
  const right = dataLabels(set.items, byName, getTable, memory(0x02100000, table), 16).find(
    (d) => d.name === 'lib_table',
  );
  assert.equal(right?.address, 0x02100000);
  assert.equal(right.tier, 'strong');
  assert.equal(right.candidates[0]!.comparedBytes, 24);
});
