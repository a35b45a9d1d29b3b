// A hostile repository must not make `get_project_status` run anything it configures, nor make git
// look at (and report) files outside the workspace.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { repositoryStatus } from '../../src/project/git-status.js';

let base: string;
let ws: string;
let outside: string;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', ...args], { cwd, stdio: 'pipe' });

async function makeRepo(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  await writeFile(join(dir, 'a.txt'), 'a');
  git(dir, 'add', 'a.txt');
  git(dir, 'commit', '-qm', 'a');
  // Same size, new mtime: git must re-read the content, which is when a clean filter would run.
  const later = new Date(Date.now() + 5_000);
  await utimes(join(dir, 'a.txt'), later, later);
}

before(async () => {
  base = await mkdtemp(join(tmpdir(), 're-mcp-git-'));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  await mkdir(ws);
  await mkdir(outside);
  await writeFile(join(outside, 'outside-secret.txt'), 'secret');
});

after(async () => {
  await rm(base, { recursive: true, force: true });
});

test('clean/process filters configured by the repository are never run', async () => {
  const repo = join(ws, 'filters');
  await makeRepo(repo);
  const marker = join(base, 'filter-ran');
  git(repo, 'config', 'filter.evil.clean', `touch ${marker}; cat`);
  git(repo, 'config', 'filter.evil.required', 'true');
  git(repo, 'config', 'filter.x.y.process', `touch ${marker}`);
  await writeFile(join(repo, '.git', 'info', 'attributes'), '* filter=evil\n');
  await writeFile(join(repo, '.gitattributes'), 'a.txt filter=x.y\n');
  git(repo, 'config', 'core.hooksPath', join(base, 'hooks'));
  git(repo, 'config', 'core.fsmonitor', `touch ${marker}`);
  const status = await repositoryStatus(ws, 'filters', 100);
  assert.equal(existsSync(marker), false, 'a repository-configured command ran');
  assert.equal(status.branch, 'main');
});

test('core.worktree pointing outside the workspace is not followed', async () => {
  const repo = join(ws, 'worktree');
  await makeRepo(repo);
  git(repo, 'config', 'core.worktree', outside);
  const status = await repositoryStatus(ws, 'worktree', 100);
  const paths = status.changed.map((c) => c.path);
  assert.ok(!paths.includes('outside-secret.txt'), `listed a file outside: ${paths.join(',')}`);
});

test('a .git file pointing outside the workspace is refused', async () => {
  const real = join(outside, 'real');
  await makeRepo(real);
  const linked = join(ws, 'gitfile');
  await mkdir(linked);
  await writeFile(join(linked, '.git'), `gitdir: ${join(real, '.git')}\n`);
  const status = await repositoryStatus(ws, 'gitfile', 100);
  assert.notEqual(status.error, null);
  assert.equal(status.head, null);
});

test('a directory that is not a repository does not report an enclosing repository', async () => {
  const enclosing = join(base, 'enclosing');
  await makeRepo(enclosing);
  const inner = join(enclosing, 'ws');
  await mkdir(join(inner, 'plain'), { recursive: true });
  const status = await repositoryStatus(inner, 'plain', 100);
  assert.notEqual(status.error, null);
  assert.equal(status.head, null);
  const root = await repositoryStatus(inner, '.', 100);
  assert.notEqual(root.error, null);
});

test('a relative PATH entry cannot make a repository-shipped "git" run', async () => {
  const repo = join(ws, 'shipped');
  await makeRepo(repo);
  const marker = join(base, 'shipped-git-ran');
  await writeFile(join(repo, 'git'), `#!/bin/sh\ntouch ${marker}\n`, { mode: 0o755 });
  const saved = process.env.PATH;
  process.env.PATH = `.:${saved}`;
  try {
    await repositoryStatus(ws, 'shipped', 100);
  } finally {
    process.env.PATH = saved;
  }
  assert.equal(existsSync(marker), false, 'the repository-shipped git ran');
});

test('a commondir that is a FIFO or a link to /dev/zero is refused at once, and the server keeps working', async () => {
  const repo = join(ws, 'fifo-common');
  await makeRepo(repo);
  execFileSync('mkfifo', [join(repo, '.git', 'commondir')]);
  const started = Date.now();
  // More calls than libuv has workers: blocking reads would wedge every later file operation.
  const all = await Promise.all(Array.from({ length: 6 }, () => repositoryStatus(ws, 'fifo-common', 100)));
  for (const status of all) assert.match(String(status.error), /commondir/);
  const zero = join(ws, 'zero-common');
  await makeRepo(zero);
  await symlink('/dev/zero', join(zero, '.git', 'commondir'));
  const status = await repositoryStatus(ws, 'zero-common', 100);
  assert.match(String(status.error), /commondir/);
  assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  await writeFile(join(base, 'still-works'), 'x');
});
