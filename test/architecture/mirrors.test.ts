// The mirror rule of test/README.md ("Where a module's tests are"), checked on the real trees: a module
// src/<dir>/<module>.ts has a test test/<dir>/<module>.test.ts or test/<dir>/<module>-<aspect>.test.ts
// (an aspect test belongs to the module of the longest name it starts with, so `walker-x.test.ts`
// mirrors walker.ts even beside a walker-y.ts). The modules without one today are listed in
// test/architecture/mirrors.json: a new module without its test fails, and so does a listed module
// that has one now or is gone, so the list only shrinks. The check also runs on synthetic trees.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../kit/mcp-harness.js';

const LIST = join(REPO_ROOT, 'test', 'architecture', 'mirrors.json');

/** The modules of `modules` (src/...ts) that no test of `tests` (test/...test.ts) mirrors, sorted. */
export function unmirrored(modules: readonly string[], tests: readonly string[]): string[] {
  const byDir = new Map<string, string[]>();
  for (const m of modules) {
    const dir = posix.dirname(m.replace(/^src\//, ''));
    byDir.set(dir, [...(byDir.get(dir) ?? []), posix.basename(m, '.ts')]);
  }
  const mirrored = new Set<string>();
  for (const t of tests) {
    const dir = posix.dirname(t.replace(/^test\//, ''));
    const stem = posix.basename(t, '.test.ts');
    let best: string | null = null;
    for (const name of byDir.get(dir) ?? [])
      if ((stem === name || stem.startsWith(`${name}-`)) && (best === null || name.length > best.length))
        best = name;
    if (best !== null) mirrored.add(`src/${dir === '.' ? '' : `${dir}/`}${best}.ts`);
  }
  return modules.filter((m) => !mirrored.has(m)).sort();
}

/** What breaks the rule against the list: unlisted modules without a test, listed entries not needed. */
export function mirrorViolations(missing: readonly string[], listed: readonly string[]): string[] {
  const found: string[] = [];
  for (const m of missing)
    if (!listed.includes(m)) {
      const stem = m.replace(/^src\//, 'test/').replace(/\.ts$/, '');
      found.push(`${m}: no test mirrors its path (write ${stem}.test.ts or ${stem}-<aspect>.test.ts)`);
    }
  for (const m of listed)
    if (!missing.includes(m)) found.push(`${m}: has a test now or is gone: remove it from mirrors.json`);
  return found;
}

function files(dir: string, suffix: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path, suffix));
    else if (name.endsWith(suffix)) out.push(relative(REPO_ROOT, path).split('\\').join('/'));
  }
  return out;
}

test('mirrors: every src module has a test mirroring its path, but those listed in mirrors.json', () => {
  const listed = (JSON.parse(readFileSync(LIST, 'utf8')) as { modules: string[] }).modules;
  const modules = files(join(REPO_ROOT, 'src'), '.ts');
  const tests = files(join(REPO_ROOT, 'test'), '.test.ts');
  assert.ok(modules.length > 100 && tests.length > 100, 'the trees were read');
  const missing = unmirrored(modules, tests);
  assert.ok(missing.length < modules.length, 'some modules are mirrored');
  const found = mirrorViolations(missing, listed);
  assert.equal(found.length, 0, found.join('\n'));
});

test('mirrors: the check pairs tests with modules by path, name and aspect', () => {
  const modules = [
    'src/a/walker.ts',
    'src/a/walker-cache.ts',
    'src/a/plain.ts',
    'src/a/b/deep.ts',
    'src/top.ts',
    'src/a/lonely.ts',
  ];
  const tests = [
    'test/a/walker-resolvers.test.ts',
    'test/a/plain.test.ts',
    'test/a/deep.test.ts',
    'test/top-edges.test.ts',
    'test/a/walker-cache-hits.test.ts',
  ];
  // deep.test.ts is in the wrong folder; walker-cache-hits mirrors walker-cache.ts, not walker.ts.
  assert.deepEqual(unmirrored(modules, tests), ['src/a/b/deep.ts', 'src/a/lonely.ts']);
  assert.deepEqual(unmirrored(modules, [...tests, 'test/a/b/deep.test.ts']), ['src/a/lonely.ts']);
  assert.deepEqual(unmirrored(['src/a/walker.ts'], ['test/a/walker-cache-hits.test.ts']), []);
  assert.deepEqual(mirrorViolations(['src/a/lonely.ts', 'src/new.ts'], ['src/a/lonely.ts', 'src/old.ts']), [
    'src/new.ts: no test mirrors its path (write test/new.test.ts or test/new-<aspect>.test.ts)',
    'src/old.ts: has a test now or is gone: remove it from mirrors.json',
  ]);
});
