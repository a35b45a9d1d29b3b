// The exports rule of docs/ARCHITECTURE.md ("Rules"): every name a module of src/ exports is imported
// by some other module (of src/, test/, bench/ or scripts/), or the module is one of the package's
// entry points (the bundle's, scripts/bundle.mjs). A name only its own module uses is not exported; a
// name nothing uses is deleted. Imports are read from the code: static, type-only and dynamic
// (`(await import('./x.js')).name`, `const { name } = await import(...)`), `typeof import('./x.js').name`,
// re-exports (a name re-exported counts as used only when its re-export is used: followed to the
// module that declares it, `export *` included). A namespace import (`import * as m`) uses the names
// read from it as `m.name`, or every name when it is used otherwise. The checker also runs on
// synthetic sources, so a checker that found nothing would fail here.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { REPO_ROOT } from '../kit/mcp-harness.js';

/** The package's entry points: what they export is the package's own surface. */
const ENTRY_POINTS = ['src/cli/main.ts', 'src/cli/loader.ts'];
/** The folders whose modules' imports count as uses. */
const READERS = ['src', 'test', 'bench', 'scripts'];

/** A module named by its path from the repository's root. */
const REPO_PATH = /^src\/[\w/.-]+\.ts$/;

/** A use of a module's names: each name, or every name ('*'). */
export interface Use {
  module: string;
  names: string[] | '*';
}

/** What one module says: what it exports and what it takes from other modules. */
export interface ModuleFacts {
  /** Names it declares and exports. */
  own: Set<string>;
  /** Names it re-exports: its name -> the module and that module's name. */
  reexports: Map<string, { module: string; name: string }>;
  /** Modules whose every export it re-exports (`export * from`). */
  stars: string[];
  /** What it imports (re-exports are not uses until they are used themselves). */
  uses: Use[];
}

const hasExport = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
const isDefault = (node: ts.Node): boolean =>
  ts.canHaveModifiers(node) &&
  (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.DefaultKeyword);

/** The names a binding declares (`a`, `{ a, b: c }`, `[a, ...b]`). */
function bindingNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text];
  return name.elements.flatMap((e) => (ts.isOmittedExpression(e) ? [] : bindingNames(e.name)));
}

/**
 * The facts of module `file` from its text; `resolveModule(file, specifier)` names the module a
 * relative specifier reaches (null when it is not a module of the repository).
 */
export function moduleFacts(
  file: string,
  text: string,
  resolveModule: (from: string, specifier: string) => string | null,
): ModuleFacts {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const facts: ModuleFacts = { own: new Set(), reexports: new Map(), stars: [], uses: [] };
  const target = (spec: ts.Node | undefined): string | null =>
    spec !== undefined && ts.isStringLiteralLike(spec) ? resolveModule(file, spec.text) : null;
  const namespaces: { name: string; module: string }[] = [];

  for (const statement of sf.statements) {
    if (ts.isImportDeclaration(statement)) {
      const module = target(statement.moduleSpecifier);
      const clause = statement.importClause;
      if (module === null || clause === undefined) continue;
      const names: string[] = [];
      if (clause.name) names.push('default');
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) namespaces.push({ name: bindings.name.text, module });
      else if (bindings) for (const e of bindings.elements) names.push((e.propertyName ?? e.name).text);
      if (names.length > 0) facts.uses.push({ module, names });
    } else if (ts.isExportDeclaration(statement)) {
      const module = target(statement.moduleSpecifier);
      const clause = statement.exportClause;
      if (statement.moduleSpecifier !== undefined) {
        if (module === null) continue;
        if (clause === undefined) facts.stars.push(module);
        else if (ts.isNamedExports(clause))
          for (const e of clause.elements)
            facts.reexports.set(e.name.text, { module, name: (e.propertyName ?? e.name).text });
        else facts.reexports.set(clause.name.text, { module, name: '*' });
      } else if (clause && ts.isNamedExports(clause)) {
        for (const e of clause.elements) facts.own.add(e.name.text);
      }
    } else if (ts.isExportAssignment(statement)) {
      facts.own.add('default');
    } else if (hasExport(statement)) {
      if (isDefault(statement)) facts.own.add('default');
      else if (ts.isVariableStatement(statement))
        for (const d of statement.declarationList.declarations)
          for (const n of bindingNames(d.name)) facts.own.add(n);
      else {
        const name = (statement as ts.Node & { name?: ts.Node }).name;
        if (name !== undefined && ts.isIdentifier(name)) facts.own.add(name.text);
      }
    }
  }

  const namespaceReads = new Map<string, Set<string> | '*'>(namespaces.map((n) => [n.name, new Set()]));
  const visit = (node: ts.Node): void => {
    // import('./x.js'): the names read from what it gives, else every name.
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const module = target(node.arguments[0]);
      if (module !== null) facts.uses.push({ module, names: dynamicNames(node) });
    }
    // A module named by its repository path (`src/x.ts`) and loaded by a helper or a computed import:
    // `(await at('src/x.ts')).name`, `await import(join(root, 'src/x.ts'))` (the benches).
    if (ts.isStringLiteral(node) && REPO_PATH.test(node.text) && ts.isCallExpression(node.parent)) {
      const module = resolveModule(file, node.text);
      let call: ts.CallExpression = node.parent;
      if (ts.isCallExpression(call.parent) && call.parent.expression.kind === ts.SyntaxKind.ImportKeyword)
        call = call.parent;
      if (module !== null) facts.uses.push({ module, names: dynamicNames(call) });
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      const module = target(node.argument.literal);
      if (module !== null)
        facts.uses.push({
          module,
          names: node.qualifier
            ? [ts.isIdentifier(node.qualifier) ? node.qualifier.text : node.qualifier.left.getText(sf)]
            : '*',
        });
    }
    if (ts.isIdentifier(node) && namespaceReads.has(node.text)) {
      const parent = node.parent;
      const reads = namespaceReads.get(node.text)!;
      const isImport = ts.isNamespaceImport(parent);
      if (!isImport && reads !== '*') {
        if (
          (ts.isPropertyAccessExpression(parent) || ts.isQualifiedName(parent)) &&
          parent.getChildAt(0) === node
        ) {
          const member = ts.isPropertyAccessExpression(parent) ? parent.name : parent.right;
          reads.add(member.text);
        } else namespaceReads.set(node.text, '*');
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  for (const n of namespaces) {
    const reads = namespaceReads.get(n.name)!;
    facts.uses.push({ module: n.module, names: reads === '*' ? '*' : [...reads] });
  }
  return facts;
}

/** The names read from a dynamic import's result, or every name when it is used otherwise. */
function dynamicNames(call: ts.CallExpression): string[] | '*' {
  let node: ts.Node = call;
  if (ts.isAwaitExpression(node.parent)) node = node.parent;
  while (ts.isParenthesizedExpression(node.parent) || ts.isAsExpression(node.parent)) node = node.parent;
  const parent = node.parent;
  if (ts.isPropertyAccessExpression(parent) && parent.expression === node) return [parent.name.text];
  if (ts.isVariableDeclaration(parent) && ts.isObjectBindingPattern(parent.name))
    return parent.name.elements.map((e) =>
      e.propertyName && ts.isIdentifier(e.propertyName) ? e.propertyName.text : bindingNames(e.name)[0]!,
    );
  return '*';
}

/**
 * The exports of `exported` modules that no other module uses: `path: name`, sorted. `entries` are
 * exempt. A use of a re-exported name is followed to the module that declares it.
 */
export function unusedExports(
  facts: ReadonlyMap<string, ModuleFacts>,
  exported: (file: string) => boolean,
  entries: readonly string[],
): string[] {
  const used = new Map<string, Set<string> | '*'>();
  const mark = (module: string, name: string | '*', seen = new Set<string>()): void => {
    const key = `${module}#${name}`;
    if (seen.has(key)) return;
    seen.add(key);
    const m = facts.get(module);
    const current = used.get(module) ?? new Set<string>();
    if (current === '*') return;
    if (name === '*') {
      used.set(module, '*');
      if (m === undefined) return;
      for (const r of m.reexports.values()) mark(r.module, r.name, seen);
      for (const s of m.stars) mark(s, '*', seen);
      return;
    }
    current.add(name);
    used.set(module, current);
    if (m === undefined || m.own.has(name)) return;
    const r = m.reexports.get(name);
    if (r !== undefined) mark(r.module, r.name, seen);
    else for (const s of m.stars) mark(s, name, seen);
  };
  for (const [file, m] of facts)
    for (const use of m.uses) {
      if (use.module === file) continue;
      if (use.names === '*') mark(use.module, '*');
      else for (const name of use.names) mark(use.module, name);
    }
  for (const entry of entries) mark(entry, '*');
  const found: string[] = [];
  for (const [file, m] of facts) {
    if (!exported(file)) continue;
    const u = used.get(file);
    if (u === '*') continue;
    for (const name of [...m.own, ...m.reexports.keys()]) if (!u?.has(name)) found.push(`${file}: ${name}`);
  }
  return found.sort();
}

/** Every .ts/.mts/.mjs file under `dir`, relative to the repository with forward slashes. */
function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (name === 'node_modules') continue;
    if (statSync(path).isDirectory()) out.push(...files(path));
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts'))
      out.push(relative(REPO_ROOT, path).split('\\').join('/'));
  }
  return out;
}

/** A relative specifier (`./x.js`, `../y/index.js`) to the repository module it names. */
function resolveRepoModule(from: string, specifier: string): string | null {
  if (REPO_PATH.test(specifier)) return existsSync(join(REPO_ROOT, specifier)) ? specifier : null;
  if (!specifier.startsWith('.')) return null;
  const base = relative(REPO_ROOT, resolve(REPO_ROOT, dirname(from), specifier))
    .split('\\')
    .join('/');
  for (const candidate of [
    base.replace(/\.js$/, '.ts'),
    base.replace(/\.mjs$/, '.mts'),
    base,
    `${base}.ts`,
    `${base}/index.ts`,
  ])
    if (existsSync(join(REPO_ROOT, candidate)) && statSync(join(REPO_ROOT, candidate)).isFile())
      return candidate;
  return null;
}

test('exports: every export of src/ is imported by another module (src, test, bench, scripts)', () => {
  const facts = new Map<string, ModuleFacts>();
  for (const folder of READERS)
    for (const file of files(join(REPO_ROOT, folder)))
      facts.set(file, moduleFacts(file, readFileSync(join(REPO_ROOT, file), 'utf8'), resolveRepoModule));
  assert.ok([...facts.keys()].filter((f) => f.startsWith('src/')).length > 100, 'the source tree was read');
  for (const entry of ENTRY_POINTS) assert.ok(facts.has(entry), `${entry} (an entry point) exists`);
  const unused = unusedExports(facts, (f) => f.startsWith('src/'), ENTRY_POINTS);
  assert.equal(
    unused.length,
    0,
    `exported but imported nowhere (drop the export, or delete what nothing uses):\n${unused.join('\n')}`,
  );
});

test('exports: the checker finds an export nobody imports, through every kind of import', () => {
  const sources: Record<string, string> = {
    'src/a.ts': [
      'export const used = 1;',
      'export const unused = 2;',
      'export function viaType() {}',
      'export interface OnlyHere { x: number }',
      'const local = 3;',
      'export { local as renamed };',
      'export default 4;',
    ].join('\n'),
    'src/b.ts': 'export const fromDynamic = 1;\nexport const destructured = 2;\nexport const never = 3;',
    'src/c.ts': 'export const viaNamespace = 1;\nexport const notRead = 2;',
    'src/d.ts': 'export const passedOn = 1;\nexport const starred = 2;\nexport const deadEnd = 3;',
    'src/index.ts': "export { passedOn } from './d.js';\nexport { deadEnd as unusedAgain } from './d.js';",
    'src/stars.ts': "export * from './d.js';",
    'src/entry.ts': 'export const publicName = 1;',
    'src/e.ts': 'export const byPath = 1;\nexport const byJoin = 2;\nexport const notByPath = 3;',
    'test/t.ts': [
      "import { used, type OnlyHere } from '../src/a.js';",
      "import renamedDefault from '../src/a.js';",
      "import * as c from '../src/c.js';",
      "import { passedOn } from '../src/index.js';",
      "import { starred } from '../src/stars.js';",
      "type T = typeof import('../src/a.js').viaType;",
      'async function f() {',
      "  const x = (await import('../src/b.js')).fromDynamic;",
      "  const { destructured: y } = await import('../src/b.js');",
      "  const z = ((await at('src/e.ts')) as { byPath: number }).byPath;",
      "  const { byJoin } = await import(join(root, 'src/e.ts'));",
      '  return [x, y, c.viaNamespace];',
      '}',
    ].join('\n'),
  };
  const resolveSynthetic = (from: string, spec: string): string | null => {
    if (REPO_PATH.test(spec)) return spec in sources ? spec : null;
    const path = join(dirname(from), spec).split('\\').join('/').replace(/\.js$/, '.ts');
    return path in sources ? path : null;
  };
  const facts = new Map(
    Object.entries(sources).map(([file, text]) => [file, moduleFacts(file, text, resolveSynthetic)]),
  );
  assert.deepEqual(
    unusedExports(facts, (f) => f.startsWith('src/'), ['src/entry.ts']),
    [
      'src/a.ts: renamed',
      'src/a.ts: unused',
      'src/b.ts: never',
      'src/c.ts: notRead',
      'src/d.ts: deadEnd',
      'src/e.ts: notByPath',
      'src/index.ts: unusedAgain',
    ],
  );
  // A namespace used as a whole uses every name.
  facts.set(
    'test/u.ts',
    moduleFacts('test/u.ts', "import * as c from '../src/c.js';\nconsole.log(c);", resolveSynthetic),
  );
  assert.ok(!unusedExports(facts, (f) => f.startsWith('src/'), []).includes('src/c.ts: notRead'));
});
