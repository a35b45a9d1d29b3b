// Hardening of the verification-check path: the bounded runner honours a cancellation that happened
// before it started, and the operator's config file is read only as a bounded regular file inside
// the workspace.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runBounded } from '../../src/core/bounded-process.js';
import { isReMcpError } from '../../src/core/errors.js';
import { loadChecks } from '../../src/project/checks-config.js';

let base: string;

before(async () => {
  base = await mkdtemp(join(tmpdir(), 're-mcp-checks-'));
});

after(async () => {
  await rm(base, { recursive: true, force: true });
});

test('a signal aborted before the run starts stops the child at once', async () => {
  const controller = new AbortController();
  controller.abort();
  const started = Date.now();
  const run = await runBounded({
    argv: ['sleep', '30'],
    cwd: base,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeoutMs: 20_000,
    maxOutputBytes: 1024,
    signal: controller.signal,
    killGraceMs: 100,
  });
  assert.equal(run.cancelled, true);
  assert.ok(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
});

async function loadError(ws: string): Promise<{ code: string; message: string }> {
  try {
    await loadChecks(ws);
  } catch (error) {
    if (isReMcpError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  assert.fail('loadChecks accepted the config');
}

test('a config file that is a symlink leaving the workspace is refused', async () => {
  const ws = join(base, 'ws-link');
  await mkdir(ws);
  const secret = join(base, 'secret.json');
  await writeFile(secret, 'TOP-SECRET-CONTENT not json');
  await symlink(secret, join(ws, 're-mcp.config.json'));
  const e = await loadError(ws);
  assert.equal(e.code, 'workspace-escape');
  assert.doesNotMatch(e.message, /TOP-SECRET/);
});

test('a config file that is a FIFO or a huge file is refused without reading it whole', async () => {
  const ws = join(base, 'ws-fifo');
  await mkdir(ws);
  execFileSync('mkfifo', [join(ws, 're-mcp.config.json')]);
  const fifo = await Promise.race([
    loadError(ws),
    new Promise<{ code: string }>((res) => setTimeout(() => res({ code: 'hung' }), 3_000)),
  ]);
  assert.equal(fifo.code, 'invalid-argument');
  const big = join(base, 'ws-big');
  await mkdir(big);
  await writeFile(join(big, 're-mcp.config.json'), `{"checks":{}, "x": "${'a'.repeat(2 * 1024 * 1024)}"}`);
  assert.equal((await loadError(big)).code, 'config-invalid');
});

test('JSON syntax errors do not echo the file content', async () => {
  const ws = join(base, 'ws-syntax');
  await mkdir(ws);
  await writeFile(join(ws, 're-mcp.config.json'), 'SECRETISH-TOKEN-abcdef');
  const e = await loadError(ws);
  assert.equal(e.code, 'config-invalid');
  assert.doesNotMatch(e.message, /SECRETISH/);
});

test('a NUL byte in a check argument or environment value is a config error, not a crash', async () => {
  for (const check of [{ argv: ['echo', 'a\u0000b'] }, { argv: ['echo'], env: { X: 'a\u0000b' } }]) {
    const ws = join(base, `ws-nul-${Object.keys(check).length}`);
    await mkdir(ws, { recursive: true });
    await writeFile(join(ws, 're-mcp.config.json'), JSON.stringify({ checks: { nul: check } }));
    assert.equal((await loadError(ws)).code, 'config-invalid');
  }
});
