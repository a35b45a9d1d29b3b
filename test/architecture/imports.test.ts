// The layering rules of docs/ARCHITECTURE.md, checked on the real import graph of src/ (static,
// type-only and dynamic imports alike): pure folders import no node:*, no mcp/, no tools/; every
// import goes down (or sideways within one folder) the layer order; tool families import only their
// own folder and tools/shared; only the emulator registry (src/debug/registry.ts) imports an
// emulator's backend folder; outside src/analysis/ only the whole-program map's public surface is
// imported (its internals change behind it); the graph has no cycles. Three rules read the code
// itself (comments left out): the emulator seam (no module of src/ but src/debug/desmume/** spells
// DeSmuME, save the registry's one line for it; the names of RetroArch's libretro DS core are
// RetroArch's), typed services (no tool touches the service container's keyed storage: tools call
// their domain's accessors) and the map's build (no tool or debugger module reads a ProgramMap's
// `built` internals: they ask its queries or an answer). What the registry reaches statically (read
// at every start-up) loads no process or network module. The checkers are also run on synthetic
// graphs and sources that break each rule, so a checker that found nothing would fail here too.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { REPO_ROOT } from '../kit/mcp-harness.js';

/** Lowest first. A module may import its own folder and anything of a lower layer. */
const LAYERS: string[][] = [
  ['core', 'version', 'engine'],
  ['config'],
  ['workspace'],
  ['services'],
  ['formats'],
  ['graph', 'asm'],
  ['arm'],
  ['search', 'memory-scan'],
  ['roms'],
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
  'src/graph/raster-canvas.ts',
  'src/graph/raster-lines.ts',
  'src/graph/raster-shapes.ts',
  'src/graph/raster-text.ts',
  'src/asm/source.ts',
  'src/asm/ual.ts',
  'src/asm/encode.ts',
  'src/arm/',
  'src/search/',
  'src/memory-scan/',
  'src/debug/rsp/',
  'src/debug/calls.ts',
  'src/debug/conditions.ts',
  'src/debug/watch-stop.ts',
  'src/retroarch/codec.ts',
];

/**
 * The whole-program map's public surface: the only modules of src/analysis/program-map/ a module
 * outside src/analysis/ imports (the walker, the build, the stores and the idioms are its internals).
 */
const MAP_PUBLIC = [
  'map.ts',
  'service.ts',
  'types.ts',
  'components.ts',
  'pictures.ts',
  'function-record.ts',
].map((f) => `src/analysis/program-map/${f}`);

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

/** The one module that imports each emulator's backend folder, one line each. */
const REGISTRY = 'src/debug/registry.ts';
/** The registry's line for one emulator: `export { x } from './x/index.js';`. */
const REGISTRATION = /^export \{ \w+ \} from ['"]\.\/[a-z0-9]+\/index\.js['"];$/;
/**
 * RetroArch's libretro DS core (Debian package libretro-desmume, core desmume_libretro, and the names
 * RetroArch gives DS cores, src/retroarch/support.ts): not the backend.
 */
const LIBRETRO_CORE = /libretro-desmume|desmume_libretro|LIBRETRO_DS_CORES = \/[^/]*\/[a-z]*/gi;

/** The emulator backend folders: those the registry imports from (src/debug/<folder>/). */
function backendFolders(graph: ImportGraph): string[] {
  return (graph.get(REGISTRY) ?? [])
    .filter((to) => to.startsWith('src/debug/') && to.split('/').length > 3)
    .map((to) => `${dirname(to)}/`);
}

/** The tool family of a file under src/tools/ (its folder), or null for src/tools/index.ts. */
function family(file: string): string | null {
  const parts = file.split('/');
  return parts[1] === 'tools' && parts.length > 3 ? parts[2]! : null;
}

export function violations(graph: ImportGraph): string[] {
  const found: string[] = [];
  const backends = backendFolders(graph);
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
      const backend = backends.find((folder) => to.startsWith(folder));
      if (backend !== undefined && from !== REGISTRY && !from.startsWith(backend))
        found.push(`${from} imports ${to}: only ${REGISTRY} reaches an emulator's backend folder`);
      if (
        to.startsWith('src/analysis/program-map/') &&
        !from.startsWith('src/analysis/') &&
        !MAP_PUBLIC.includes(to)
      )
        found.push(
          `${from} imports ${to}: outside src/analysis/ only the map's public surface (${MAP_PUBLIC.map((m) => m.split('/').pop()).join(', ')})`,
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
    if (!file.startsWith('src/debug/desmume/')) {
      for (const m of code.matchAll(/[^\n]*desmume[^\n]*/gi)) {
        const line = m[0].trim();
        if (file === REGISTRY && REGISTRATION.test(line)) continue;
        if (!/desmume/i.test(line.replace(LIBRETRO_CORE, ''))) continue;
        found.push(`${file} names DeSmuME outside its backend: ${line}`);
      }
    }
    if (file.startsWith('src/tools/')) {
      for (const m of code.matchAll(/[^\n]*(?:\.lazy\s*\(|\bserviceKey\b|\bServiceKey\b)[^\n]*/g))
        found.push(`${file} touches the service container's keyed storage: ${m[0].trim()}`);
    }
    if (file.startsWith('src/tools/') || file.startsWith('src/debug/')) {
      for (const m of code.matchAll(/[^\n]*\.built\b[^\n]*/g))
        found.push(
          `${file} reads the program map's build internals (ask a map query or an answer): ${m[0].trim()}`,
        );
    }
  }
  return found;
}

/** The code (comments left out) of every module under src/. */
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
  walk(join(root, 'src'));
  return sources;
}

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g;

/** The graph of src/, each module's imports as `importsOf` reads them, resolved repo-relative. */
function graphOf(root: string, importsOf: (path: string, text: string) => string[]): ImportGraph {
  const graph: ImportGraph = new Map();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) {
        const targets = importsOf(path, readFileSync(path, 'utf8')).map((spec) =>
          spec.startsWith('.') ? relative(root, resolve(dirname(path), spec.replace(/\.js$/, '.ts'))) : spec,
        );
        graph.set(relative(root, path), targets);
      }
    }
  };
  walk(join(root, 'src'));
  return graph;
}

/** Every import of src/: static, type-only and dynamic alike. */
export function readGraph(root: string): ImportGraph {
  return graphOf(root, (_path, text) => [...text.matchAll(SPECIFIER)].map(([, spec]) => spec!));
}

/** A module's static value imports: type-only ones are erased, dynamic ones load on first use. */
export function staticImports(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            bindings !== undefined &&
            ts.isNamedImports(bindings) &&
            bindings.elements.length > 0 &&
            bindings.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) found.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) {
      found.push((node.moduleSpecifier as ts.StringLiteral).text);
    }
  }
  return found;
}

/** Node modules that start processes or open sockets: start-up loads none of them. */
const PROCESS_MODULES = ['node:child_process', 'node:net', 'node:dgram'];

/**
 * Every entry point reads the emulator registry at start-up (settings, flags, the instructions):
 * what it reaches statically must not load a process or network module (an entry defers its backend).
 */
export function startupViolations(staticGraph: ImportGraph): string[] {
  const seen = new Set<string>();
  const pending = [REGISTRY];
  const found: string[] = [];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const to of staticGraph.get(file) ?? []) {
      if (PROCESS_MODULES.includes(to))
        found.push(`${file} imports ${to} and is loaded at start-up through ${REGISTRY}`);
      if (to.startsWith('src/')) pending.push(to);
    }
  }
  return found;
}

/** The static value-import graph of src/ (see staticImports). */
export function readStaticGraph(root: string): ImportGraph {
  return graphOf(root, staticImports);
}

test('src/ keeps the architecture rules', () => {
  const graph = readGraph(REPO_ROOT);
  assert.ok(graph.size > 100, `read ${graph.size} modules`);
  assert.deepEqual(violations(graph), []);
});

test('src/ keeps the rules that read code: the emulator backend seam, typed services, the map build', () => {
  const sources = readCode(REPO_ROOT);
  assert.ok(sources.size > 200, `read ${sources.size} modules`);
  assert.deepEqual(codeViolations(sources), []);
  // The rules see what they must: DeSmuME's backend names it, the registry has its line, a domain
  // accessor uses lazy().
  assert.match(sources.get('src/debug/desmume/backend.ts') ?? '', /DeSmuME/);
  const registry = (sources.get(REGISTRY) ?? '').split('\n').filter((l) => /desmume/i.test(l));
  assert.equal(registry.length, 1, registry.join('\n'));
  assert.match(registry[0]!.trim(), REGISTRATION);
  assert.match(sources.get('src/debug/service.ts') ?? '', /\.lazy\(/);
});

test('the checker catches each kind of break', () => {
  const broken: ImportGraph = new Map([
    ['src/formats/nds/x.ts', ['node:fs', 'src/core/errors.ts']],
    ['src/arm/y.ts', ['src/mcp/tool.ts']],
    ['src/tools/arm/a.ts', ['src/tools/nds/b.ts', 'src/tools/shared/rom.ts']],
    ['src/tools/nds/b.ts', []],
    ['src/tools/shared/rom.ts', []],
    ['src/roms/store.ts', ['src/tools/arm/a.ts']],
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
  assert.match(found, /src\/roms\/store\.ts imports src\/tools\/arm\/a\.ts against the layer order/);
  assert.match(found, /src\/debug\/s\.ts imports src\/retroarch\/c\.ts against the layer order/);
  assert.match(found, /import cycle: src\/core\/p\.ts -> src\/core\/q\.ts -> src\/core\/p\.ts/);
});

test("the backend seam checker catches a module reaching an emulator's folder past the registry", () => {
  const broken: ImportGraph = new Map([
    [REGISTRY, ['src/debug/desmume/index.ts', 'src/debug/fakeemu/index.ts']],
    ['src/debug/desmume/index.ts', ['src/debug/desmume/backend.ts', 'src/debug/backend.ts']],
    ['src/debug/desmume/backend.ts', ['src/debug/desmume/process.ts', 'src/debug/backend.ts']],
    ['src/debug/desmume/process.ts', []],
    ['src/debug/fakeemu/index.ts', ['src/debug/backend.ts']],
    ['src/debug/backend.ts', []],
    ['src/debug/emulators.ts', [REGISTRY, 'src/debug/backend.ts']],
    // Past the registry: the service, a debugger module, a tool, the doctor.
    ['src/debug/service.ts', ['src/debug/emulators.ts', 'src/debug/desmume/backend.ts']],
    ['src/debug/session.ts', ['src/debug/desmume/process.ts']],
    ['src/tools/debug/lifecycle.ts', ['src/debug/fakeemu/index.ts']],
    ['src/cli/doctor/integration-checks.ts', ['src/debug/desmume/index.ts', 'src/debug/emulators.ts']],
  ]);
  const found = violations(broken);
  assert.deepEqual(
    found.map((f) => f.split(' ')[0]),
    [
      'src/debug/service.ts',
      'src/debug/session.ts',
      'src/tools/debug/lifecycle.ts',
      'src/cli/doctor/integration-checks.ts',
    ],
  );
  assert.match(
    found[0]!,
    /imports src\/debug\/desmume\/backend\.ts: only src\/debug\/registry\.ts reaches an emulator's backend folder/,
  );
  assert.match(found[2]!, /imports src\/debug\/fakeemu\/index\.ts/);
});

test("the checker catches a module outside src/analysis/ importing the map's internals", () => {
  const broken: ImportGraph = new Map([
    // Tools and the debugger reach the walker, the build, the call store: internals.
    ['src/tools/analysis/x.ts', ['src/analysis/program-map/walker.ts', 'src/analysis/program-map/map.ts']],
    ['src/debug/correlate/y.ts', ['src/analysis/program-map/call-store.ts', 'src/analysis/answers/z.ts']],
    ['src/rebuild/w.ts', ['src/analysis/program-map/build.ts', 'src/analysis/program-map/types.ts']],
    // Inside src/analysis/ the internals are open: the answers and the evidence classes use them.
    ['src/analysis/answers/z.ts', ['src/analysis/program-map/walker.ts', 'src/analysis/program-map/refs.ts']],
    ['src/analysis/evidence/v.ts', ['src/analysis/program-map/walker.ts']],
    ['src/analysis/program-map/walker.ts', []],
    ['src/analysis/program-map/map.ts', []],
    ['src/analysis/program-map/call-store.ts', []],
    ['src/analysis/program-map/build.ts', []],
    ['src/analysis/program-map/types.ts', []],
    ['src/analysis/program-map/refs.ts', []],
  ]);
  const found = violations(broken);
  assert.deepEqual(
    found.map((f) => f.split(' ').slice(0, 3).join(' ')),
    [
      'src/tools/analysis/x.ts imports src/analysis/program-map/walker.ts:',
      'src/debug/correlate/y.ts imports src/analysis/program-map/call-store.ts:',
      'src/rebuild/w.ts imports src/analysis/program-map/build.ts:',
    ],
  );
  assert.match(found[0]!, /only the map's public surface \(map\.ts, service\.ts, types\.ts/);
});

test('the code checker catches DeSmuME spelled outside its folder and tools reaching keyed storage', () => {
  const source = (file: string, text: string): [string, string] => [file, codeOf(file, text)];
  const broken = new Map([
    // Named in a string, an identifier, a template, a setting's name: each is code, in any layer.
    source('src/debug/cpu.ts', "throw new Error('call desmume_pause first');"),
    source('src/debug/session.ts', 'const p = new DesmumeProcess();'),
    source('src/debug/rsp/codec.ts', 'export const MAX = 0x200; const who = `DeSmuME`;'),
    source('src/config/config.ts', "export const S = [['RE_MCP_DESMUME_LAUNCHER', '--desmume-launcher']];"),
    source('src/tools/debug/lifecycle.ts', "export const t = { name: 'desmume_start' };"),
    source('src/cli/doctor/doctor.ts', "for (const id of ['desmume', 'retroarch']) check(id);"),
    // Comments are not code; the backend's folder may name it; the registry has its one line.
    source('src/debug/control.ts', '// the DeSmuME stub ignores Ctrl-C\n/* desmume */ export const x = 1;'),
    source('src/debug/desmume/backend.ts', "export const names = { emulator: 'DeSmuME' };"),
    source(
      REGISTRY,
      "// DeSmuME\nexport { desmume } from './desmume/index.js';\nexport { fakeemu } from './fakeemu/index.js';",
    ),
    // RetroArch's libretro DS core is RetroArch's name: allowed, but not as a cover for the backend's.
    source('src/cli/retroarch-setup.ts', "const hint = 'apt-get install libretro-mgba libretro-desmume';"),
    source(
      'src/retroarch/codec.ts',
      "const core = 'desmume_libretro.so'; const use = 'use DeSmuME instead';",
    ),
    // A tool calling lazy() or declaring a key, against one calling its domain's accessor.
    source('src/tools/debug/common.ts', "export const s = (v) => v.services.lazy('debug.session', () => 1);"),
    source(
      'src/tools/retroarch/x.ts',
      "import { serviceKey } from '../../services.js';\nconst K = serviceKey('k');",
    ),
    source(
      'src/tools/nds/y.ts',
      'export const roms = (ctx) => getRomStore(ctx.services); // not .lazy( here',
    ),
    // A tool or debugger module reading the map's build; the map itself and the answers may.
    source('src/tools/analysis/z.ts', 'const n = map.built.walker.blocks.length;'),
    source('src/debug/correlate/c.ts', 'for (const c of map.built.walker.calls) use(c); // not .built here'),
    source('src/analysis/answers/a.ts', 'const s = map.built.status;'),
    source('src/tools/analysis/ok.ts', 'const s = map.status; const rebuilt = 1; // map.built'),
  ]);
  const found = codeViolations(broken);
  const files = [...new Set(found.map((f) => f.split(' ')[0]))];
  assert.deepEqual(files, [
    'src/debug/cpu.ts',
    'src/debug/session.ts',
    'src/debug/rsp/codec.ts',
    'src/config/config.ts',
    'src/tools/debug/lifecycle.ts',
    'src/cli/doctor/doctor.ts',
    'src/retroarch/codec.ts',
    'src/tools/debug/common.ts',
    'src/tools/retroarch/x.ts',
    'src/tools/analysis/z.ts',
    'src/debug/correlate/c.ts',
  ]);
  assert.match(
    found.join('\n'),
    /src\/debug\/cpu\.ts names DeSmuME outside its backend: throw new Error\(.call desmume_pause first.\)/,
  );
  assert.match(
    found.join('\n'),
    /src\/retroarch\/codec\.ts names DeSmuME outside its backend: .*use DeSmuME instead/,
  );
  assert.match(
    found.join('\n'),
    /src\/tools\/debug\/common\.ts touches the service container's keyed storage/,
  );
  assert.match(
    found.join('\n'),
    /src\/tools\/analysis\/z\.ts reads the program map's build internals \(ask a map query or an answer\): const n = map\.built\.walker/,
  );
  // A second line for DeSmuME in the registry is not its registration.
  const twice = codeViolations(
    new Map([
      source(REGISTRY, "export { desmume } from './desmume/index.js';\nexport const again = desmume;"),
    ]),
  );
  assert.equal(twice.length, 1);
  assert.match(twice[0]!, /registry\.ts names DeSmuME outside its backend: export const again = desmume;/);
});

test('start-up loads no process or network module through the emulator registry', () => {
  const graph = readStaticGraph(REPO_ROOT);
  assert.deepEqual(startupViolations(graph), []);
  // The walk sees what it must: DeSmuME's entry, and its process code only behind import().
  const entry = graph.get('src/debug/desmume/index.ts') ?? [];
  assert.ok(entry.includes('src/debug/desmume/settings.ts'), entry.join(', '));
  assert.ok(!entry.includes('src/debug/desmume/backend.ts'));
  assert.ok(graph.get('src/debug/desmume/process.ts')?.includes('node:child_process'));
  // Type-only imports and dynamic ones are not static value imports; the rest are.
  assert.deepEqual(
    staticImports(
      'x.ts',
      [
        "import type { A } from './a.js';",
        "import { type B, type C } from './b.js';",
        "import { type D, e } from './d.js';",
        "import './side.js';",
        "export { f } from './f.js';",
        "export type { G } from './g.js';",
        "const h = () => import('./h.js');",
      ].join('\n'),
    ),
    ['./d.js', './side.js', './f.js'],
  );
  // An entry that imports its backend statically is caught, with the module that loads the process.
  const broken: ImportGraph = new Map([
    [REGISTRY, ['src/debug/desmume/index.ts', 'src/debug/fakeemu/index.ts']],
    ['src/debug/desmume/index.ts', ['src/debug/backend.ts']],
    ['src/debug/fakeemu/index.ts', ['src/debug/fakeemu/process.ts']],
    ['src/debug/fakeemu/process.ts', ['node:fs', 'node:net']],
    ['src/debug/backend.ts', []],
  ]);
  assert.deepEqual(startupViolations(broken), [
    'src/debug/fakeemu/process.ts imports node:net and is loaded at start-up through src/debug/registry.ts',
  ]);
});
