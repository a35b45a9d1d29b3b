// Tables found by the functions they hold, on real code: a table of handlers whose user is not in
// the set is found where the handlers named by their bytes are held at its offsets, and its slots name
// the handler whose bytes changed; a table sharing those handlers is told apart by a slot holding a
// function named otherwise, and two tables nothing tells apart are found nowhere.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { applySteps } from '../../../src/analysis/signatures/apply.js';
import { runSteps } from '../../../src/core/cooperative.js';
import { objectKit } from '../../kit/signature-objects.js';

const { compile, link, setOf, cleanup } = objectKit('re-mcp-data-slots-');
after(cleanup);

const HANDLERS = (changed: boolean) =>
  [
    'int h_a(int x) { int s = 0; for (int i = 0; i < x; i++) s += i * 3 + x; return s; }',
    'int h_b(int x) { int s = 1; for (int i = 1; i < x; i++) s = s * 5 ^ i; return s; }',
    changed
      ? 'int h_c(int x) { int s = 9; while (x > 0) { s += x * x; x -= 3; } return s - 1; }'
      : 'int h_c(int x) { int s = 7; while (x > 1) { s += x % 5; x >>= 1; } return s; }',
    'int h_d(int x) { int s = 2; for (int i = 0; i < 8; i++) s += (x >> i) & 3; return s; }',
    'int (*const t1[])(int) = { h_a, h_b, h_c };',
    'int (*const t2[])(int) = { h_a, h_b, h_d };',
  ].join('\n');
const USER = [
  'extern int (*const t1[])(int), (*const t2[])(int);',
  'int main(int n) { return t1[n % 3](n) + t2[n % 3](n); }',
].join('\n');

test('a table found by the functions it holds names its changed one; a table sharing them is told apart', () => {
  const a = compile('tb-a', HANDLERS(false), ['-O2']);
  const b = compile('tb-b', HANDLERS(true), ['-O2']);
  // The user of the tables is not in the set: the tables can only be found by what they hold.
  const p = link('tb', 0x02000000, [compile('tb-user', USER, ['-O2']), b]);
  const r = runSteps(applySteps(setOf([a]), p.functions, p.memory));
  const at = new Map(p.functions.map((f) => [f.name, f.address]));
  const named = new Map(r.proposals.map((x) => [x.name, x]));
  for (const n of ['h_a', 'h_b', 'h_d']) assert.equal(named.get(n)?.address, at.get(n), n);
  // h_c's bytes changed: t1, found where h_a and h_b are held at its offsets (t2's place holds them
  // too, but its third slot holds h_d, named otherwise), names it.
  const hc = named.get('h_c')!;
  assert.equal(hc?.address, at.get('h_c'));
  assert.equal(hc.tier, 'supported');
  assert.match(hc.reasons.join(' '), /held by t1 \(0x[0-9a-f]+\) at \+8/);
  const t1 = named.get('t1')!;
  const t2 = named.get('t2')!;
  assert.equal(t1?.mode, 'data');
  assert.equal(t2?.mode, 'data');
  assert.notEqual(t1.address, t2.address);
  assert.deepEqual([...(p.memory.read(t1.address + 8, 4) ?? [])], [...u32le(at.get('h_c')!)]);
  assert.match(t1.reasons.join(' '), /the one place whose words hold the 2 function\(s\)/);
  // Without h_d named (its bytes changed too), t1 and t2 hold the same named functions at one offset
  // each: every place matches both, so neither table is found and h_c stays unnamed.
  const both = compile('tb-b2', HANDLERS(true).replace('(x >> i) & 3', '(x >> i) & 7'), ['-O2']);
  const q = link('tb2', 0x02000000, [compile('tb-user2', USER, ['-O2']), both]);
  const r2 = runSteps(applySteps(setOf([a]), q.functions, q.memory));
  const names2 = new Set(r2.proposals.map((x) => x.name));
  for (const n of ['h_c', 't1', 't2']) assert.ok(!names2.has(n), `${n} named`);
});

const u32le = (v: number) => [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24];
