import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Harness, makeWorkspace, startServer } from '../kit/mcp-harness.js';
import { killAll, uniqueSleep, waitGone } from '../kit/processes.js';

let harness: Harness;
let workspace: string;

const SLEEPY_MARKER = uniqueSleep();

before(async () => {
  workspace = await makeWorkspace();
  await mkdir(join(workspace, 'sub'));
  const pidFile = join(workspace, 'child.pid');
  await writeFile(
    join(workspace, 're-mcp.config.json'),
    JSON.stringify({
      checks: {
        ok: { argv: ['node', '-e', 'console.log("fine"); console.error("warn")'] },
        fails: { argv: ['node', '-e', 'process.exit(3)'] },
        // Starts a grandchild that would outlive a naive kill, records its pid, then sleeps.
        sleepy: {
          argv: ['sh', '-c', `sleep ${SLEEPY_MARKER} & echo started > ${pidFile}; sleep 60`],
          timeoutMs: 500,
        },
        chatty: {
          argv: ['node', '-e', 'process.stdout.write("x".repeat(100000) + "END")'],
          maxOutputBytes: 1024,
        },
        binary: {
          argv: ['node', '-e', 'process.stdout.write("\\x01".repeat(300000))'],
          maxOutputBytes: 300_000,
        },
        cwd: { argv: ['pwd'], cwd: 'sub' },
        env: {
          argv: ['node', '-e', 'console.log(JSON.stringify(Object.keys(process.env).sort()))'],
          env: { EXTRA: '1' },
        },
        missing: { argv: ['definitely-not-a-command-re-mcp'] },
        escape: { argv: ['pwd'], cwd: '../' },
      },
    }),
  );
  harness = await startServer({ workspace });
});

after(async () => {
  await harness?.close();
  await rm(workspace, { recursive: true, force: true });
});

test('a passing check reports exit code and output tails', async () => {
  const r = await harness.ok<Record<string, any>>('run_project_verification', { check: 'ok' });
  assert.equal(r.exitCode, 0);
  assert.equal(r.passed, true);
  assert.equal(r.stdout.tail, 'fine\n');
  assert.equal(r.stderr.tail, 'warn\n');
  assert.equal(r.timedOut, false);
});

test('a failing check is a result, not a tool error', async () => {
  const r = await harness.ok<Record<string, any>>('run_project_verification', { check: 'fails' });
  assert.equal(r.exitCode, 3);
  assert.equal(r.passed, false);
});

test('a check that sleeps past its timeout is killed with its children', async () => {
  const r = await harness.ok<Record<string, any>>('run_project_verification', { check: 'sleepy' });
  assert.equal(r.timedOut, true);
  assert.equal(r.passed, false);
  assert.ok(r.durationMs < 10_000, `took ${r.durationMs} ms`);
  const { readFile } = await import('node:fs/promises');
  assert.equal((await readFile(join(workspace, 'child.pid'), 'utf8')).trim(), 'started');
  // Found by marker: a pid echoed inside the check's PID namespace is not a host pid.
  const left = await waitGone(SLEEPY_MARKER, 5_000);
  killAll(left);
  assert.deepEqual(left, [], 'the backgrounded grandchild was killed too');
});

test('output that fits its own bound but grows 6x once JSON-escaped still returns the verdict', async () => {
  const r = await harness.ok<Record<string, any>>('run_project_verification', { check: 'binary' });
  assert.equal(r.passed, true);
  assert.equal(r.stdout.totalBytes, 300_000);
  assert.equal(r.stdout.truncated, true);
  assert.ok(r.stdout.tail.length > 1000 && /^\x01+$/.test(r.stdout.tail), 'the tail keeps the end');
});

test('output over the bound is truncated with a flag, keeping the tail', async () => {
  const r = await harness.ok<Record<string, any>>('run_project_verification', { check: 'chatty' });
  assert.equal(r.stdout.truncated, true);
  assert.equal(r.stdout.totalBytes, 100_003);
  assert.ok(r.stdout.tail.length <= 1024);
  assert.ok(r.stdout.tail.endsWith('END'));
});

test('cwd is contained and the environment is minimal', async () => {
  const r = await harness.ok<Record<string, any>>('run_project_verification', { check: 'cwd' });
  assert.equal(r.stdout.tail.trim(), join(workspace, 'sub'));
  const e = await harness.ok<Record<string, any>>('run_project_verification', { check: 'env' });
  const keys = JSON.parse(e.stdout.tail) as string[];
  assert.ok(keys.includes('EXTRA'));
  assert.ok(!keys.includes('RE_MCP_WORKSPACE_ROOT'), 'server environment does not leak into checks');
  assert.ok(keys.length <= 8, `minimal environment, got ${keys.join(',')}`);
  const escaped = await harness.fail('run_project_verification', { check: 'escape' });
  assert.equal(escaped.code, 'workspace-escape');
});

test('unknown check names and unstartable commands are typed errors', async () => {
  const unknown = await harness.fail('run_project_verification', { check: 'rm-rf' });
  assert.equal(unknown.code, 'not-found');
  const missing = await harness.fail('run_project_verification', { check: 'missing' });
  assert.equal(missing.code, 'launch-failed');
});

test('a config with a shell string instead of an argv array is refused', async () => {
  const ws = await makeWorkspace();
  await writeFile(
    join(ws, 're-mcp.config.json'),
    JSON.stringify({ checks: { bad: { argv: 'npm test && rm -rf /' } } }),
  );
  const h = await startServer({ workspace: ws });
  try {
    const e = await h.fail('run_project_verification', { check: 'bad' });
    assert.equal(e.code, 'config-invalid');
    assert.match(e.message, /argv/);
  } finally {
    await h.close();
  }
});

test('no config file: not-configured', async () => {
  const h = await startServer();
  try {
    assert.equal((await h.fail('run_project_verification', { check: 'x' })).code, 'not-configured');
  } finally {
    await h.close();
  }
});

test('git status reports branch and changed files of workspace repositories', async () => {
  const ws = await makeWorkspace();
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe' });
  await mkdir(join(ws, 'game'));
  git(join(ws, 'game'), 'init', '-q', '-b', 'main');
  await writeFile(join(ws, 'game', 'a.txt'), 'a');
  git(join(ws, 'game'), 'add', 'a.txt');
  git(join(ws, 'game'), 'commit', '-qm', 'a');
  await writeFile(join(ws, 'game', 'a.txt'), 'changed');
  await writeFile(join(ws, 'game', 'new file.txt'), 'n');
  const h = await startServer({ workspace: ws });
  try {
    const r = await h.ok<Record<string, any>>('get_project_status', {});
    assert.equal(r.repositories.length, 1);
    const repo = r.repositories[0];
    assert.equal(repo.path, 'game');
    assert.equal(repo.branch, 'main');
    assert.equal(repo.changedCount, 2);
    assert.deepEqual(repo.changed.map((c: { path: string }) => c.path).sort(), ['a.txt', 'new file.txt']);
    const limited = await h.ok<Record<string, any>>('get_project_status', { maxFiles: 1 });
    assert.equal(limited.repositories[0].truncated, true);
    assert.equal(limited.repositories[0].changed.length, 1);
  } finally {
    await h.close();
  }
});
