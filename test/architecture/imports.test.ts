// The layering rules of docs/ARCHITECTURE.md, checked on the real import graph of src/ (static,
// type-only and dynamic imports alike): pure folders import no node:*, no mcp/, no tools/; every
// import goes down (or sideways within one folder) the layer order; tool families import only their
// own folder and tools/shared; the graph has no cycles. Two rules read the code itself (comments
// left out): the emulator backend seam (no debugger module but src/debug/desmume/** and
// src/debug/service.ts names or imports DeSmuME) and typed services (no tool touches the service
// container's keyed storage: tools call their domain's accessors). The checkers are also run on
// synthetic graphs and sources that break each rule, so a checker that found nothing would fail here too.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
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
  'src/asm/ual.ts',
  'src/asm/encode.ts',
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

/** Debugger modules that may name DeSmuME: its backend, and the service that wires it in. */
function mayNameDesmume(file: string): boolean {
  return (
    !file.startsWith('src/debug/') || file.startsWith('src/debug/desmume/') || file === 'src/debug/service.ts'
  );
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
      if (!mayNameDesmume(from) && to.startsWith('src/debug/desmume/'))
        found.push(
          `${from} imports ${to}: only src/debug/desmume/ and src/debug/service.ts reach the DeSmuME backend`,
        );
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

/** A module's code without its comments (string literals kept), as the TypeScript printer writes it. */
export function codeOf(file: string, text: string): string {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  return ts.createPrinter({ removeComments: true }).printFile(source);
}

/** The rules that read code: `sources` maps a module path to its code without comments (codeOf). */
export function codeViolations(sources: ReadonlyMap<string, string>): string[] {
  const found: string[] = [];
  for (const [file, code] of sources) {
    if (!mayNameDesmume(file)) {
      for (const m of code.matchAll(/[^\n]*desmume[^\n]*/gi))
        found.push(`${file} names DeSmuME outside its backend: ${m[0].trim()}`);
    }
    if (file.startsWith('src/tools/')) {
      for (const m of code.matchAll(/[^\n]*(?:\.lazy\s*\(|\bserviceKey\b|\bServiceKey\b)[^\n]*/g))
        found.push(`${file} touches the service container's keyed storage: ${m[0].trim()}`);
    }
  }
  return found;
}

/** The code (comments left out) of every module under src/debug/ and src/tools/. */
export function readCode(root: string): Map<string, string> {
  const sources = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts'))
        sources.set(relative(root, path), codeOf(path, readFileSync(path, 'utf8')));
    }
  };
  walk(join(root, 'src/debug'));
  walk(join(root, 'src/tools'));
  return sources;
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

test('src/ keeps the rules that read code: the emulator backend seam and typed services', () => {
  const sources = readCode(REPO_ROOT);
  assert.ok(sources.size > 60, `read ${sources.size} modules`);
  assert.deepEqual(codeViolations(sources), []);
  // The rules see what they must: DeSmuME's backend names it, a domain accessor uses lazy().
  assert.match(sources.get('src/debug/desmume/backend.ts') ?? '', /DeSmuME/);
  assert.match(sources.get('src/debug/service.ts') ?? '', /\.lazy\(/);
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

test('the backend seam checker catches a debugger module that imports DeSmuME', () => {
  const broken: ImportGraph = new Map([
    ['src/debug/session.ts', ['src/debug/desmume/process.ts']],
    ['src/debug/rsp/codec.ts', ['src/debug/desmume/backend.ts']],
    ['src/debug/desmume/backend.ts', ['src/debug/desmume/process.ts', 'src/debug/backend.ts']],
    ['src/debug/service.ts', ['src/debug/desmume/backend.ts']],
    ['src/debug/desmume/process.ts', []],
    ['src/debug/backend.ts', []],
  ]);
  const found = violations(broken);
  assert.deepEqual(
    found.map((f) => f.split(' ')[0]),
    ['src/debug/session.ts', 'src/debug/rsp/codec.ts'],
  );
  assert.match(found[0]!, /only src\/debug\/desmume\/ and src\/debug\/service\.ts reach the DeSmuME backend/);
});

test('the code checker catches DeSmuME named in neutral code and tools reaching keyed storage', () => {
  const source = (file: string, text: string): [string, string] => [file, codeOf(file, text)];
  const broken = new Map([
    // Named in a string, an identifier, a template: each is code.
    source('src/debug/cpu.ts', "throw new Error('call desmume_pause first');"),
    source('src/debug/session.ts', 'const p = new DesmumeProcess();'),
    source('src/debug/rsp/codec.ts', 'export const MAX = 0x200; const who = `DeSmuME`;'),
    // Comments are not code; the backend and the service may name it.
    source('src/debug/control.ts', '// the DeSmuME stub ignores Ctrl-C\n/* desmume */ export const x = 1;'),
    source('src/debug/desmume/backend.ts', "export const names = { emulator: 'DeSmuME' };"),
    source('src/debug/service.ts', "import { desmumeBackend } from './desmume/backend.js';"),
    // A tool calling lazy() or declaring a key, against one calling its domain's accessor.
    source(
      'src/tools/desmume/common.ts',
      "export const s = (v) => v.services.lazy('desmume.session', () => 1);",
    ),
    source(
      'src/tools/retroarch/x.ts',
      "import { serviceKey } from '../../services.js';\nconst K = serviceKey('k');",
    ),
    source(
      'src/tools/nds/y.ts',
      'export const roms = (ctx) => getRomStore(ctx.services); // not .lazy( here',
    ),
    source('src/nds/rom-store.ts', "services.lazy(ROMS, () => 1); const d = 'desmume';"),
  ]);
  const found = codeViolations(broken);
  const files = [...new Set(found.map((f) => f.split(' ')[0]))];
  assert.deepEqual(files, [
    'src/debug/cpu.ts',
    'src/debug/session.ts',
    'src/debug/rsp/codec.ts',
    'src/tools/desmume/common.ts',
    'src/tools/retroarch/x.ts',
  ]);
  assert.match(
    found.join('\n'),
    /src\/debug\/cpu\.ts names DeSmuME outside its backend: throw new Error\(.call desmume_pause first.\)/,
  );
  assert.match(
    found.join('\n'),
    /src\/tools\/desmume\/common\.ts touches the service container's keyed storage/,
  );
});
