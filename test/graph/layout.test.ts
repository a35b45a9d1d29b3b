// The DOT writer and the Graphviz worker: hostile names stay inside their labels, the real Graphviz lays
// the text out (every node and edge comes back), and a layout past its deadline or cancelled ends
// with a typed error while the worker is terminated.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReMcpError } from '../../src/core/errors.js';
import { dotString, type Graph, MAX_LABEL_LINE, toDot } from '../../src/graph/dot.js';
import { layout } from '../../src/graph/graphviz.js';

const graph = (n: number, names: (i: number) => string): Graph => ({
  title: 'test "graph"',
  direction: 'TB',
  nodes: Array.from({ length: n }, (_, i) => ({
    id: `id ${i}`,
    lines: [names(i), `line two ${i}`],
    fill: i % 2 ? '#cfe9d4' : 'not a colour',
    border: i === 0 ? 'bold' : 'solid',
    shape: 'box',
  })),
  edges: [
    ...Array.from({ length: n - 1 }, (_, i) => ({
      from: `id ${i}`,
      to: `id ${i + 1}`,
      color: '#2e7d32',
      style: 'dashed' as const,
      label: i === 0 ? 'first' : undefined,
    })),
    { from: 'id 0', to: 'nowhere', color: '#000000', style: 'solid' },
  ],
  legend: ['a legend'],
});

test('dotString escapes quotes, backslashes and control characters, and caps the length', () => {
  assert.equal(dotString('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(dotString('x\ny\u202e'), '"x\\\\x0ay\\\\u202e"');
  const long = dotString('n'.repeat(500));
  assert.equal(long.length, MAX_LABEL_LINE + 2);
  assert.ok(long.endsWith('..."'));
});

test('a hostile name cannot end its label or start a statement of its own', async () => {
  const hostile = ['"]; evil -> x; a [label="', '\\', '}\ndigraph x {', '\u0000\u001b[2J', 'é ü 日本'];
  const g = graph(hostile.length, (i) => hostile[i]!);
  const dot = toDot(g);
  // The dangling edge is left out; colours that are no colour become black.
  assert.ok(!dot.includes('nowhere'));
  assert.ok(dot.includes('fillcolor="#000000"'));
  const laid = await layout(dot, { svg: true, timeoutMs: 30_000 });
  const json = laid.json as { objects: { name: string; label?: string }[]; edges: unknown[] };
  // Exactly our nodes and the legend: no node named evil or x was created by a name.
  assert.equal(json.objects.length, hostile.length + 1);
  assert.ok(!json.objects.some((o) => o.name === 'evil' || o.name === 'x'));
  assert.equal(json.edges.length, hostile.length - 1);
  assert.match(laid.svg!, /<svg/);
  assert.ok(laid.millis >= 0);
});

test('a layout past its deadline ends with timeout; a cancelled one with cancelled', async () => {
  // Large enough that Graphviz takes far longer than the deadline (worker start-up alone does).
  const big = graph(600, (i) => `node ${i}`);
  for (let i = 0; i < 1200; i++)
    big.edges.push({
      from: `id ${(i * 7) % 600}`,
      to: `id ${(i * 13 + 5) % 600}`,
      color: '#333333',
      style: 'solid',
    });
  const dot = toDot(big);
  await assert.rejects(layout(dot, { svg: false, timeoutMs: 30 }), (e: unknown) => {
    assert.ok(e instanceof ReMcpError);
    assert.equal(e.code, 'timeout');
    return true;
  });
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 30);
  await assert.rejects(layout(dot, { svg: false, timeoutMs: 60_000, signal: ac.signal }), (e: unknown) => {
    assert.ok(e instanceof ReMcpError);
    assert.equal(e.code, 'cancelled');
    return true;
  });
  // Already cancelled: refused before any worker starts.
  await assert.rejects(layout(dot, { svg: false, timeoutMs: 60_000, signal: AbortSignal.abort() }), {
    code: 'cancelled',
  });
});
