// The size rule of docs/ARCHITECTURE.md ("Rules"): no module of src/ over FILE_LIMIT lines, no
// function over FUNCTION_LIMIT lines. What is not split yet is named in test/architecture/sizes.json,
// each entry with the lines it had when listed: an entry may not grow past that (a listed file is no
// licence to add to it), and an entry the code no longer needs fails too, so the list only shrinks.
// A function is any function-like node (declaration, method, accessor, constructor, function
// expression, arrow), named by the path of names around it (`ndsFindXrefs.handler`,
// `Walker.walk`; an arrow that is a variable's or property's value by that name); any other anonymous
// one is its parent's name plus `>fn`. Its length is from its first to
// its last line. The measure runs on synthetic sources too, so a checker that found nothing would
// fail here.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { REPO_ROOT } from '../kit/mcp-harness.js';

export const FILE_LIMIT = 500;
export const FUNCTION_LIMIT = 120;

/** What is over a limit today, with its lines when listed: `files` by path, `functions` by `path#name`. */
interface Allowed {
  files: Record<string, number>;
  functions: Record<string, number>;
}

export interface Measured {
  /** Lines of the file. */
  lines: number;
  /** The longest function of each name in the file, in lines. */
  functions: Map<string, number>;
}

function lineCount(text: string): number {
  if (text.length === 0) return 0;
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

function ownName(node: ts.Node): string | null {
  const named = node as ts.Node & { name?: ts.Node };
  if (
    (ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isGetAccessorDeclaration(node) ||
      ts.isSetAccessorDeclaration(node) ||
      ts.isClassDeclaration(node) ||
      ts.isClassExpression(node) ||
      ts.isVariableDeclaration(node) ||
      ts.isPropertyAssignment(node) ||
      ts.isPropertyDeclaration(node) ||
      ts.isFunctionExpression(node)) &&
    named.name !== undefined &&
    (ts.isIdentifier(named.name) || ts.isStringLiteral(named.name) || ts.isPrivateIdentifier(named.name))
  )
    return named.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return null;
}

const isFunctionLike = (node: ts.Node): boolean =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node);

/** The lines of a source and of each function in it (see the header for how functions are named). */
export function measure(fileName: string, text: string): Measured {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const functions = new Map<string, number>();
  const visit = (node: ts.Node, path: string[]): void => {
    const own = ownName(node);
    let inner = own === null ? path : [...path, own];
    if (isFunctionLike(node)) {
      // An arrow or function expression that is a variable's or a property's value is named by it.
      const parent = node.parent as ts.Node & { initializer?: ts.Node };
      const valueOfNamed =
        (ts.isVariableDeclaration(parent) ||
          ts.isPropertyAssignment(parent) ||
          ts.isPropertyDeclaration(parent)) &&
        parent.initializer === node;
      if (own === null && !valueOfNamed) inner = [...path, `${path.length > 0 ? '' : '(top)'}>fn`];
      const name = inner.join('.').replace(/\.>fn/g, '>fn');
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = last - first + 1;
      functions.set(name, Math.max(functions.get(name) ?? 0, length));
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(sf, []);
  return { lines: lineCount(text), functions };
}

/** What breaks the rule: over a limit and not listed, listed but grown, or listed and no longer over. */
export function sizeViolations(measured: Map<string, Measured>, allowed: Allowed): string[] {
  const found: string[] = [];
  const seenFunctions = new Set<string>();
  for (const [file, m] of measured) {
    const listed = allowed.files[file];
    if (m.lines > FILE_LIMIT && listed === undefined)
      found.push(`${file}: ${m.lines} lines, over ${FILE_LIMIT} (split it)`);
    else if (listed !== undefined && m.lines > listed)
      found.push(`${file}: ${m.lines} lines, more than the ${listed} it had when listed in sizes.json`);
    for (const [name, length] of m.functions) {
      const key = `${file}#${name}`;
      seenFunctions.add(key);
      const limit = allowed.functions[key];
      if (length > FUNCTION_LIMIT && limit === undefined)
        found.push(`${key}: ${length} lines, over ${FUNCTION_LIMIT} (split it)`);
      else if (limit !== undefined && length > limit)
        found.push(`${key}: ${length} lines, more than the ${limit} it had when listed in sizes.json`);
      else if (limit !== undefined && length <= FUNCTION_LIMIT)
        found.push(`${key}: ${length} lines, within the limit now: remove it from sizes.json`);
    }
  }
  for (const [file, listed] of Object.entries(allowed.files)) {
    const m = measured.get(file);
    if (m === undefined) found.push(`${file}: listed in sizes.json but not found: remove it`);
    else if (m.lines <= FILE_LIMIT && listed !== undefined)
      found.push(`${file}: ${m.lines} lines, within the limit now: remove it from sizes.json`);
  }
  for (const key of Object.keys(allowed.functions))
    if (!seenFunctions.has(key)) found.push(`${key}: listed in sizes.json but not found: remove it`);
  return found;
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

const ALLOWED_PATH = join(REPO_ROOT, 'test', 'architecture', 'sizes.json');

test('sizes: no src module over 500 lines and no function over 120, but those listed in sizes.json', () => {
  const allowed = JSON.parse(readFileSync(ALLOWED_PATH, 'utf8')) as Allowed & { about?: string };
  const measured = new Map<string, Measured>();
  for (const path of sources(join(REPO_ROOT, 'src'))) {
    const file = relative(REPO_ROOT, path).split('\\').join('/');
    measured.set(file, measure(file, readFileSync(path, 'utf8')));
  }
  assert.ok(measured.size > 100, 'the source tree was read');
  assert.deepEqual(sizeViolations(measured, allowed), []);
});

test('sizes: the measure finds long files and long functions, named by where they stand', () => {
  const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
  const text = [
    `export function long(): void {\n${body(FUNCTION_LIMIT)}\n}`,
    'export class Walker {',
    `  walk(): void {\n${body(10)}\n  }`,
    '}',
    `export const tool = { handler: async () => {\n${body(3)}\n} };`,
    `run(() => {\n${body(2)}\n});`,
  ].join('\n');
  const m = measure('src/x.ts', text);
  assert.equal(m.functions.get('long'), FUNCTION_LIMIT + 2);
  assert.equal(m.functions.get('Walker.walk'), 12);
  assert.equal(m.functions.get('tool.handler'), 5);
  assert.equal(m.functions.get('(top)>fn'), 4);
  assert.equal(m.lines, lineCount(text));

  const measured = new Map([['src/x.ts', m]]);
  assert.deepEqual(sizeViolations(measured, { files: {}, functions: {} }), [
    `src/x.ts#long: ${FUNCTION_LIMIT + 2} lines, over ${FUNCTION_LIMIT} (split it)`,
  ]);
  // Listed: allowed at its size, refused when it grows, and a stale entry is named.
  assert.deepEqual(
    sizeViolations(measured, { files: {}, functions: { 'src/x.ts#long': FUNCTION_LIMIT + 2 } }),
    [],
  );
  assert.deepEqual(
    sizeViolations(measured, {
      files: { 'src/x.ts': 10, 'src/gone.ts': 900 },
      functions: { 'src/x.ts#long': FUNCTION_LIMIT, 'src/x.ts#Walker.walk': 200 },
    }),
    [
      `src/x.ts: ${m.lines} lines, more than the 10 it had when listed in sizes.json`,
      `src/x.ts#long: ${FUNCTION_LIMIT + 2} lines, more than the ${FUNCTION_LIMIT} it had when listed in sizes.json`,
      'src/x.ts#Walker.walk: 12 lines, within the limit now: remove it from sizes.json',
      `src/x.ts: ${m.lines} lines, within the limit now: remove it from sizes.json`,
      'src/gone.ts: listed in sizes.json but not found: remove it',
    ],
  );
  const big = measure('src/big.ts', `${body(FILE_LIMIT + 1)}\n`);
  assert.deepEqual(sizeViolations(new Map([['src/big.ts', big]]), { files: {}, functions: {} }), [
    `src/big.ts: ${FILE_LIMIT + 1} lines, over ${FILE_LIMIT} (split it)`,
  ]);
});
