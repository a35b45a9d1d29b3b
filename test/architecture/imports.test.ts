// The layering rules of docs/ARCHITECTURE.md, checked on the real import graph of src/ (static,
// type-only and dynamic imports alike): pure folders import no node:*, no mcp/, no tools/; every
// import goes down (or sideways within one folder) the layer order; tool families import only their
// own folder and tools/shared; the graph has no cycles. The checker is also run on synthetic graphs
// that break each rule, so a checker that found nothing would fail here too.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../kit/mcp-harness.js';

/** Lowest first. A module may import its own folder and anything of a lower layer. */
const LAYERS: string[][] = [
  ['core', 'version'],
  ['config'],
  ['workspace'],
  ['services'],
  ['formats'],
  ['graph', 'asm'],
  ['arm'],
  ['search', 'scan'],
  ['nds'],
  ['analysis'],
  ['extract', 'debug', 'retroarch', 'project'],
  ['rebuild'],
  ['mcp'],
  ['tools'],
  ['cli'],
];
/** Pure: bytes in, data out; no I/O, no protocol, no tools. */
const PURE = [
  'src/formats/',
  'src/graph/dot.ts',
  'src/graph/font.ts',
  'src/graph/raster.ts',
  'src/asm/source.ts',
  'src/arm/',
  'src/search/',
  'src/scan/',
  'src/debug/rsp/',
  'src/debug/calls.ts',
  'src/debug/conditions.ts',
  'src/debug/watch-stop.ts',
  'src/retroarch/codec.ts',
];

export type ImportGraph = Map<string, string[]>;

/** src/a/b.ts -> "a"; src/services.ts -> "services". */
function area(file: string): string {
  const parts = file.split('/');
  return parts.length > 2 ? parts[1]! : parts[1]!.replace(/\.ts$/, '');
}

function rank(file: string): number {
  const a = area(file);
  const r = LAYERS.findIndex((layer) => layer.includes(a));
  assert.notEqual(r, -1, `${file}: folder ${a} has no place in the layer order`);
  return r;
}

/** The tool family of a file under src/tools/ (its folder), or null for src/tools/index.ts. */
function family(file: string): string | null {
  const parts = file.split('/');
  return parts[1] === 'tools' && parts.length > 3 ? parts[2]! : null;
}

export function violations(graph: ImportGraph): string[] {
  const found: string[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const internal = to.startsWith('src/');
      if (PURE.some((p) => from.startsWith(p))) {
        if (to.startsWith('node:')) found.push(`${from}: pure module imports ${to}`);
        if (internal && ['mcp', 'tools'].includes(area(to))) found.push(`${from}: pure module imports ${to}`);
      }
      if (!internal) continue;
      const [a, b] = [rank(from), rank(to)];
      if (b > a || (b === a && area(from) !== area(to) && LAYERS[a]!.length > 1 && area(from) !== 'core'))
        found.push(`${from} imports ${to} against the layer order`);
      const [ff, tf] = [family(from), family(to)];
      if (ff !== null && tf !== null && ff !== tf && tf !== 'shared')
        found.push(`${from}: tool family ${ff} imports family ${tf}`);
      if (ff === 'shared' && tf !== null && tf !== 'shared')
        found.push(`${from}: tools/shared imports ${to}`);
    }
  }
  // Cycles: depth-first search with colours; report each back edge's cycle.
  const state = new Map<string, 'active' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'active');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (state.get(next) === 'active')
        found.push(`import cycle: ${[...stack.slice(stack.indexOf(next)), next].join(' -> ')}`);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

export function readGraph(root: string): ImportGraph {
  const graph: ImportGraph = new Map();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) {
        const file = relative(root, path);
        const text = readFileSync(path, 'utf8');
        const targets = [...text.matchAll(SPECIFIER)].map(([, spec]) =>
          spec!.startsWith('.')
            ? relative(root, resolve(dirname(path), spec!.replace(/\.js$/, '.ts')))
            : spec!,
        );
        graph.set(file, targets);
      }
    }
  };
  walk(join(root, 'src'));
  return graph;
}

test('src/ keeps the architecture rules', () => {
  const graph = readGraph(REPO_ROOT);
  assert.ok(graph.size > 100, `read ${graph.size} modules`);
  assert.deepEqual(violations(graph), []);
});

test('the checker catches each kind of break', () => {
  const broken: ImportGraph = new Map([
    ['src/formats/nds/x.ts', ['node:fs', 'src/core/errors.ts']],
    ['src/arm/y.ts', ['src/mcp/tool.ts']],
    ['src/tools/arm/a.ts', ['src/tools/nds/b.ts', 'src/tools/shared/rom.ts']],
    ['src/tools/nds/b.ts', []],
    ['src/tools/shared/rom.ts', []],
    ['src/nds/store.ts', ['src/tools/arm/a.ts']],
    ['src/debug/s.ts', ['src/retroarch/c.ts']],
    ['src/retroarch/c.ts', []],
    ['src/core/p.ts', ['src/core/q.ts']],
    ['src/core/q.ts', ['src/core/p.ts']],
    ['src/mcp/tool.ts', []],
    ['src/core/errors.ts', []],
  ]);
  const found = violations(broken).join('\n');
  assert.match(found, /src\/formats\/nds\/x\.ts: pure module imports node:fs/);
  assert.match(found, /src\/arm\/y\.ts: pure module imports src\/mcp\/tool\.ts/);
  assert.match(found, /tool family arm imports family nds/);
  assert.doesNotMatch(found, /imports family shared/);
  assert.match(found, /src\/nds\/store\.ts imports src\/tools\/arm\/a\.ts against the layer order/);
  assert.match(found, /src\/debug\/s\.ts imports src\/retroarch\/c\.ts against the layer order/);
  assert.match(found, /import cycle: src\/core\/p\.ts -> src\/core\/q\.ts -> src\/core\/p\.ts/);
});
