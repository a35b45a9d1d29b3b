// Matching by structure on real code: a function whose bytes changed between two builds of one
// program (and whose caller changed too, so no caller names it) is named by what it uses — the
// strings it loads, the named functions it calls, the constants of its pool — when it and the set's
// function are each the other's one best; a twin in the new build that uses the same things leaves
// both unnamed; a library's set pairs nothing by structure.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { applySteps } from '../../../src/analysis/signatures/apply.js';
import { runSteps } from '../../../src/core/cooperative.js';
import { objectKit } from '../../kit/signature-objects.js';

const { compile, link, setOf, dir, cleanup } = objectKit('re-mcp-structure-');
after(cleanup);

const HELPERS = [
  '__attribute__((noinline)) int h1(const char *s) { int h = 7; for (; *s; s++) h = h * 31 + *s; return h; }',
  '__attribute__((noinline)) int h2(int a, int b) { int r = 0; for (int i = 0; i < a; i++) r += b ^ i; return r; }',
].join('\n');
const REPORT = (name: string, body: string) =>
  `__attribute__((noinline)) int ${name}(int x) { int a = h1("the score of this round"); int b = h2(x, 0x1234567); int c = h1("and the best one yet"); ${body} }`;

const A = [HELPERS, REPORT('report', 'return a + b * c;'), 'int main(int n) { return report(n) + 3; }'].join(
  '\n',
);
const B = [
  HELPERS,
  REPORT('report', 'return a * 7 + b - c + x;'),
  'int main(int n) { return report(n * 2) - 5; }',
].join('\n');

test('a changed function whose caller changed too is named by the strings, callees and constants it uses', () => {
  link('st-a', 0x02000000, [compile('st-a', A, ['-O2'])]);
  const set = setOf([`${dir}/st-a.elf`]);
  assert.deepEqual(
    set.sources.map((s) => s.kind),
    ['elf'],
  );
  const b = link('st-b', 0x02004000, [compile('st-b', B, ['-O2'])]);
  const at = new Map(b.functions.map((f) => [f.name, f.address]));
  const r = runSteps(applySteps(set, b.functions, b.memory));
  const byName = new Map(r.proposals.filter((p) => p.mode !== 'data').map((p) => [p.name, p]));
  for (const n of ['h1', 'h2']) assert.equal(byName.get(n)?.address, at.get(n), n);
  const report = byName.get('report');
  assert.ok(report, JSON.stringify(r.proposals.map((p) => [p.name, p.reasons])));
  assert.equal(report.address, at.get('report'));
  assert.equal(report.tier, 'supported');
  const why = report.reasons.join(' ');
  assert.match(why, /its structure is report's/);
  assert.match(why, /2 string\(s\) it loads/);
  assert.match(why, /calls h1, h2|calls h2, h1/);
  // Nothing else is named by structure, and nothing wrongly.
  for (const p of r.proposals)
    if (p.name !== null && p.mode !== 'data') assert.equal(p.address, at.get(p.name), p.name);
  assert.ok(!r.unmatched.items.some((i) => set.items[i]!.names[0] === 'report'));
});

test('two functions of the new build that use the same things: neither is named', () => {
  const twin = REPORT('report_twin', 'return a - b + c * x;');
  const b2 = `${B}\nint other(int n) { return report_twin(n) ^ 9; }`.replace(
    'int main(int n)',
    `${twin}\nint main(int n)`,
  );
  const b = link('st-b2', 0x02004000, [compile('st-b2', b2, ['-O2'])], ['-Wl,--no-gc-sections']);
  const set = setOf([`${dir}/st-a.elf`]);
  const r = runSteps(applySteps(set, b.functions, b.memory));
  const names = new Set(r.proposals.map((p) => p.name));
  assert.ok(!names.has('report'), 'report named though its twin uses the same strings and callees');
  assert.ok(names.has('h1') && names.has('h2'));
});

test("a library's set names nothing by structure", () => {
  const lib = compile('st-lib', [HELPERS, REPORT('report', 'return a + b * c;')].join('\n'), ['-O2']);
  const set = setOf([lib]);
  assert.equal(set.sources[0]!.kind, 'object');
  const b = link('st-b3', 0x02004000, [compile('st-b3', B, ['-O2'])]);
  const r = runSteps(applySteps(set, b.functions, b.memory));
  assert.ok(!r.proposals.some((p) => p.name === 'report'));
});
