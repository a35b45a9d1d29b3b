// Names from the layout of objects, on real code: GCC compiles, ld links (with and without garbage
// collection of sections), and the functions too short or too alike for their bytes alone are named by
// where the linker must have put them: between two named sections of their object (dropped sections
// taking no room), between two objects with whole objects of the set laid in the gap, and where the
// map found no function at all. What is not decided (two objects of the same bytes, a set without the
// sections' spans) names nothing.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { applySteps, type Proposal } from '../../../src/analysis/signatures/apply.js';
import { LAYOUT_LIMITS } from '../../../src/analysis/signatures/object-layout.js';
import type { SignatureSet } from '../../../src/analysis/signatures/types.js';
import { runSteps } from '../../../src/core/cooperative.js';
import { type LinkedProgram, objectKit } from '../../kit/signature-objects.js';

const { compile, link, setOf, cleanup } = objectKit('re-mcp-object-layout-');
after(cleanup);

const LAY = [
  'extern int counter;',
  'int lay_first(int x) { int s = 0; for (int i = 0; i < x; i++) s += (i * counter) ^ (s >> 3); return s; }',
  'int lay_one(void) { return 1; }',
  'int lay_two(void) { return 2; }',
  'int lay_dropped(void) { return 5; }',
  'int lay_uno(void) { return 1; }',
  'int lay_last(int x) { int s = 1; for (int i = 0; i < x; i++) s = s * counter + (i << 2); return s; }',
].join('\n');
const LAY_APP = [
  'int counter = 3;',
  'extern int lay_first(int), lay_last(int), lay_one(void), lay_two(void), lay_uno(void);',
  'int (*const table[])(void) = { lay_one, lay_two, lay_uno };',
  'int main(void) { return lay_first(4) + lay_last(2) + table[counter % 3](); }',
].join('\n');

const apply = (set: SignatureSet, p: LinkedProgram) =>
  runSteps(applySteps(set, p.functions, p.memory)).proposals;
const at = (p: LinkedProgram, name: string) => p.functions.find((f) => f.name === name)?.address;
const proposalOf = (proposals: Proposal[], p: LinkedProgram, name: string) =>
  proposals.find((x) => x.address === at(p, name));

/** Every name proposed is the one the program's ELF gives that address. */
function noneWrong(proposals: Proposal[], p: LinkedProgram): void {
  for (const x of proposals) {
    if (x.name === null) continue;
    const there = p.functions.filter((f) => f.address === x.address).map((f) => f.name);
    const names = [x.name, ...x.candidates[0]!.aliases];
    assert.ok(
      names.some((n) => there.includes(n)),
      `${x.name} proposed at 0x${x.address.toString(16)}, the ELF says ${there.join(', ')}`,
    );
  }
}

test('sections between two named ones are laid out again: the tiny and the identical named, a dropped one taking no room', () => {
  const lay = compile('lay', LAY, ['-ffunction-sections']);
  const app = compile('lay-app', LAY_APP);
  const p = link('lay', 0x02000000, [app, lay], ['-Wl,--gc-sections']);
  assert.equal(at(p, 'lay_dropped'), undefined, 'the linker dropped the unused section');
  const set = setOf([lay]);
  // Version 2 places: each function's section with its length and alignment.
  for (const i of set.items.filter((x) => x.kind === 'function'))
    assert.ok(i.place?.span !== undefined && i.place.span.size >= i.size, i.key);
  const proposals = apply(set, p);
  noneWrong(proposals, p);
  for (const n of ['lay_first', 'lay_last']) assert.equal(proposalOf(proposals, p, n)?.tier, 'strong', n);
  // lay_one and lay_uno have the same bytes; lay_two's are too few to stand alone.
  for (const n of ['lay_one', 'lay_two', 'lay_uno']) {
    const x = proposalOf(proposals, p, n);
    assert.equal(x?.name, n, `${n}: ${JSON.stringify(x)}`);
    assert.equal(x.tier, 'supported');
    assert.ok(
      x.reasons.some((r) => /laid out between lay_first \(0x[0-9a-f]+\) and lay_last/.test(r)),
      x.reasons.join('; '),
    );
    assert.equal(x.inMap, true);
  }
  // The same set without the sections' spans (as a version 1 file reads) cannot lay anything out.
  const bare: SignatureSet = {
    ...set,
    items: set.items.map((i) => ({
      ...i,
      ...(i.place ? { place: { section: i.place.section, offset: i.place.offset } } : {}),
    })),
  };
  const without = apply(bare, p);
  noneWrong(without, p);
  for (const n of ['lay_one', 'lay_uno']) assert.equal(proposalOf(without, p, n)?.name ?? null, null, n);
});

test('a function the map did not find is proposed where its object places it, said so', () => {
  const lay = compile('lay', LAY, ['-ffunction-sections']);
  const app = compile('lay-app', LAY_APP);
  const p = link('lay', 0x02000000, [app, lay], ['-Wl,--gc-sections']);
  const two = at(p, 'lay_two')!;
  const missing: LinkedProgram = { ...p, functions: p.functions.filter((f) => f.address !== two) };
  const proposals = apply(setOf([lay]), missing);
  noneWrong(proposals, p);
  const x = proposals.find((y) => y.address === two);
  assert.equal(x?.name, 'lay_two', JSON.stringify(proposals.map((y) => [y.address, y.name])));
  assert.equal(x.inMap, false);
  assert.equal(x.tier, 'supported');
  assert.ok(x.reasons.some((r) => /the map found no function here/.test(r)));
  // Its key is the function's that placed it (its component, for the overlay it is in).
  assert.equal(x.key, 'lay_first');
  const counts = runSteps(applySteps(setOf([lay]), missing.functions, missing.memory)).counts;
  assert.equal(counts.outsideMap, 1);
});

const EDGE_A =
  'extern int counter;\nint a_work(int x) { int s = 7; for (int i = 0; i < x; i++) s ^= (s << 3) + i * counter; return s; }';
const EDGE_C =
  'extern int counter;\nint c_work(int x) { int s = 9; for (int i = 0; i < x; i++) s += (s >> 2) - i * counter; return s; }';
const MID = 'int mid_one(void) { return 11; }\nint mid_two(void) { return 12; }';
const EDGE_APP = [
  'int counter = 5;',
  'extern int a_work(int), c_work(int), mid_one(void), mid_two(void);',
  'int (*const hooks[])(void) = { mid_one, mid_two };',
  'int main(void) { return a_work(3) + c_work(4) + hooks[counter & 1](); }',
].join('\n');

test('a gap between two objects is filled with a whole object of the set, named; two objects of the same bytes name nothing', () => {
  const a = compile('edge-a', EDGE_A);
  const c = compile('edge-c', EDGE_C);
  const mid = compile('mid', MID);
  const app = compile('edge-app', EDGE_APP);
  const p = link('edge', 0x02000000, [app, a, mid, c]);
  const filled = apply(setOf([a, mid, c]), p);
  noneWrong(filled, p);
  for (const n of ['mid_one', 'mid_two']) {
    const x = proposalOf(filled, p, n);
    assert.equal(x?.name, n, `${n}: ${JSON.stringify(x)}`);
    assert.ok(
      x.reasons.some((r) => /whole objects of the set between/.test(r)),
      x.reasons.join('; '),
    );
  }
  // Without the middle object in the set nothing fills the gap.
  const without = apply(setOf([a, c]), p);
  noneWrong(without, p);
  for (const n of ['mid_one', 'mid_two']) assert.equal(proposalOf(without, p, n), undefined, n);
  // A second object of the same bytes under other names fills it as well: neither is chosen.
  const twin = compile('twin', 'int twin_one(void) { return 11; }\nint twin_two(void) { return 12; }');
  const both = apply(setOf([a, mid, twin, c]), p);
  noneWrong(both, p);
  for (const n of ['mid_one', 'mid_two']) assert.equal(proposalOf(both, p, n)?.name ?? null, null, n);
});

test('the layout search is bounded', () => {
  for (const [k, v] of Object.entries(LAYOUT_LIMITS)) assert.ok(Number.isInteger(v.max) && v.max > 0, k);
  // Many optional sections of the same bytes: every choice of the kept ones closes the gap, so the
  // ways are too many or disagree, and none of them is named (never one chosen).
  const same = Array.from({ length: 12 }, (_, i) => `int same_${i}(void) { return 1; }`).join('\n');
  const src = `${LAY.split('\n').slice(0, 2).join('\n')}\n${same}\n${LAY.split('\n')[6]}`;
  const obj = compile('same', src, ['-ffunction-sections']);
  const keep = [1, 4, 9];
  const app = compile(
    'same-app',
    [
      'int counter = 3;',
      `extern int lay_first(int), lay_last(int), ${keep.map((i) => `same_${i}(void)`).join(', ')};`,
      `int (*const table[])(void) = { ${keep.map((i) => `same_${i}`).join(', ')} };`,
      'int main(void) { return lay_first(4) + lay_last(2) + table[counter % 3](); }',
    ].join('\n'),
  );
  const p = link('same', 0x02000000, [app, obj], ['-Wl,--gc-sections']);
  const proposals = apply(setOf([obj]), p);
  noneWrong(proposals, p);
  for (const i of keep) assert.equal(proposalOf(proposals, p, `same_${i}`)?.name ?? null, null, `same_${i}`);
});
