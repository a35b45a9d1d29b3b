// Release hygiene: the version has one source (package.json) that every report follows, the changelog's
// newest entry names it, and the license file is the one package.json declares.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { VERSION } from '../../src/version.js';
import { REPO_ROOT } from '../kit/mcp-harness.js';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  license: string;
  bin: Record<string, string>;
  files: string[];
  dependencies: Record<string, string>;
  bundleDependencies: string[];
};

test('the version is written in package.json only', () => {
  assert.equal(VERSION, pkg.version);
  assert.doesNotMatch(readFileSync(join(REPO_ROOT, 'src', 'version.ts'), 'utf8'), /\d+\.\d+\.\d+/);
  // The bundle carries it as a literal (set at build time from package.json).
  assert.ok(
    readFileSync(join(REPO_ROOT, 'dist', 're-mcp.cjs'), 'utf8').includes(JSON.stringify(pkg.version)),
  );
});

test("the changelog's newest entry is this version", () => {
  const changelog = readFileSync(join(REPO_ROOT, 'CHANGELOG.md'), 'utf8');
  const newest = /^## (\d+\.\d+\.\d+\S*)/m.exec(changelog);
  assert.equal(newest?.[1], pkg.version);
});

test('the license file is the declared license', () => {
  assert.equal(pkg.license, 'MIT');
  assert.match(readFileSync(join(REPO_ROOT, 'LICENSE'), 'utf8'), /^MIT License\n/);
});

test('every runtime dependency ships inside the package (nothing to fetch on install)', () => {
  assert.deepEqual(Object.keys(pkg.dependencies).sort(), [...pkg.bundleDependencies].sort());
  assert.equal(pkg.bin['re-mcp'], 'dist/index.js');
  assert.ok(pkg.files.includes('dist/index.js'));
});
