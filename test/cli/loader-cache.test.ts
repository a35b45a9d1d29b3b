// The code-cached entry (dist/index.js): a cache that does not belong to the bundle next to it must
// never run in its place. V8 alone only compares the source length, so a same-length change to the
// bundle (a one-character hotfix) would silently keep running the old code from a stale cache.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { REPO_ROOT } from '../kit/mcp-harness.js';

const dirs: string[] = [];
after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function copyDist(): string {
  const dir = mkdtempSync(join(tmpdir(), 're-mcp-loader-'));
  dirs.push(dir);
  for (const name of ['index.js', 'package.json', 're-mcp.cjs', 're-mcp.cjs.cache'])
    cpSync(join(REPO_ROOT, 'dist', name), join(dir, name));
  return dir;
}

const version = (dir: string) =>
  execFileSync(process.execPath, [join(dir, 'index.js'), '--version'], { encoding: 'utf8' }).trim();

test('a stale cache is not used for a same-length edit of the bundle', () => {
  const dir = copyDist();
  const original = version(dir);
  const bundle = readFileSync(join(dir, 're-mcp.cjs'), 'utf8');
  const patched = '9'.repeat(original.length);
  assert.ok(bundle.includes(`"${original}"`));
  writeFileSync(join(dir, 're-mcp.cjs'), bundle.replace(`"${original}"`, `"${patched}"`));
  assert.equal(version(dir), patched);
});

test('a corrupted or truncated cache only costs speed', () => {
  const dir = copyDist();
  const expected = version(dir);
  const cache = readFileSync(join(dir, 're-mcp.cjs.cache'));
  writeFileSync(join(dir, 're-mcp.cjs.cache'), cache.subarray(0, 100));
  assert.equal(version(dir), expected);
  const flipped = Buffer.from(cache);
  for (let i = 64; i < flipped.length; i += 97) flipped[i] = flipped[i]! ^ 0xff;
  writeFileSync(join(dir, 're-mcp.cjs.cache'), flipped);
  assert.equal(version(dir), expected);
  writeFileSync(join(dir, 're-mcp.cjs.cache'), '');
  assert.equal(version(dir), expected);
});
