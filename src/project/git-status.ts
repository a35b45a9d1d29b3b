// Git status of the workspace's repositories: the workspace itself when it is a repository, and its
// direct subdirectories that are. Git runs with an argument array, a minimal environment, a timeout,
// and with every command a repository can configure for a status call switched off (fsmonitor,
// hooks, clean/process filters, submodule recursion) so a hostile repo cannot make it execute
// anything. The git directory and the work tree are given explicitly and must lie inside the
// workspace: no discovery of an enclosing repository, no `core.worktree` or `gitdir:` escape.
import { accessSync, constants, statSync } from 'node:fs';
import { lstat, readdir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { runBounded } from '../core/bounded-process.js';
import { ReMcpError } from '../core/errors.js';
import { readSmallFile } from '../core/small-file.js';

export const GIT_LIMITS = {
  repositories: { default: 16, max: 64, unit: 'repositories' },
  files: { default: 200, max: 2_000, unit: 'changed files per repository' },
  timeoutMs: { max: 15_000, unit: 'ms per git call' },
} as const;

interface ChangedFile {
  path: string;
  /** Two-letter porcelain code: index then worktree ('?' untracked, '!' ignored, 'U' conflict). */
  status: string;
}

interface RepositoryStatus {
  path: string;
  branch: string | null;
  detached: boolean;
  head: string | null;
  upstream: string | null;
  ahead: number | null;
  behind: number | null;
  changedCount: number;
  changed: ChangedFile[];
  truncated: boolean;
  error: string | null;
}

/** PATH without relative entries ('', '.', 'bin'): those would be searched from inside a repository. */
function absolutePath(): string {
  const entries = (process.env.PATH ?? '/usr/bin:/bin').split(':').filter((e) => isAbsolute(e));
  return entries.length > 0 ? entries.join(':') : '/usr/bin:/bin';
}

/** The git executable, found on the absolute PATH entries only (never in the repository). */
export function gitExecutable(): string {
  for (const dir of absolutePath().split(':')) {
    const candidate = join(dir, 'git');
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return '/usr/bin/git'; // absent: the spawn fails with a typed git-failed error
}

function gitEnv(): Record<string, string> {
  return {
    PATH: absolutePath(),
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    HOME: '/nonexistent',
  };
}

function inside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

/** The repository's real git directory, when it lies inside the workspace; a reason otherwise. */
async function containedGitDir(root: string, dir: string): Promise<{ gitDir: string } | { error: string }> {
  const dotGit = join(dir, '.git');
  let candidate = dotGit;
  try {
    const info = await lstat(dotGit);
    if (info.isFile()) {
      // A gitfile ("gitdir: PATH"), as linked worktrees and submodules use.
      if (info.size > 4_096) return { error: 'the .git file is too large to be a gitfile' };
      const text = (await readSmallFile(dotGit, { maxBytes: 4_096, label: 'the .git file' })).toString(
        'utf8',
      );
      const match = /^gitdir: (.+)$/m.exec(text);
      if (!match) return { error: 'the .git file is not a gitfile' };
      candidate = resolve(dir, match[1]!.trim());
    }
  } catch {
    return { error: 'not a git repository' };
  }
  let gitDir: string;
  try {
    gitDir = await realpath(candidate);
    if (!(await stat(gitDir)).isDirectory()) return { error: 'the git directory is not a directory' };
  } catch {
    return { error: 'the git directory does not exist' };
  }
  if (!inside(root, gitDir)) return { error: 'the git directory lies outside the workspace' };
  // A linked worktree shares objects and refs through `commondir`: that must stay inside too.
  // Read through the bounded reader: a FIFO or a link to /dev/zero planted here is refused at once.
  let common: string | null = null;
  try {
    common = (await readSmallFile(join(gitDir, 'commondir'), { maxBytes: 4_096, label: 'commondir' }))
      .toString('utf8')
      .trim();
  } catch (error) {
    if (!(error instanceof ReMcpError) || error.code !== 'not-found')
      return {
        error: `the git commondir file is not usable: ${error instanceof Error ? error.message : ''}`,
      };
    common = null;
  }
  if (common !== null) {
    try {
      if (!inside(root, await realpath(resolve(gitDir, common))))
        return { error: 'the git common directory lies outside the workspace' };
    } catch {
      return { error: 'the git common directory does not exist' };
    }
  }
  return { gitDir };
}

const MAX_FILTER_DRIVERS = 64;

/**
 * `-c` overrides that empty every clean/smudge/process filter the repository's configuration (with
 * its includes) declares: `git status` would otherwise run a clean filter on any file whose stat
 * data changed. Null when the configuration cannot be read or declares too many drivers.
 */
async function filterOverrides(gitDir: string, root: string, signal?: AbortSignal): Promise<string[] | null> {
  const run = await runBounded({
    argv: [gitExecutable(), `--git-dir=${gitDir}`, 'config', '-z', '--get-regexp', '^filter\\.'],
    cwd: root,
    env: gitEnv(),
    timeoutMs: GIT_LIMITS.timeoutMs.max,
    maxOutputBytes: 1024 * 1024,
    ...(signal ? { signal } : {}),
  });
  if (run.spawnError) throw new ReMcpError('git-failed', `git could not be started: ${run.spawnError}`);
  if (run.timedOut || run.cancelled || run.stdout.truncated) return null;
  if (run.exitCode === 1 && run.stdout.tail === '') return []; // no filter configured
  if (run.exitCode !== 0) return null;
  const names = new Set<string>();
  for (const record of run.stdout.tail.split('\0')) {
    if (record === '') continue;
    const key = record.split('\n', 1)[0]!;
    if (!key.startsWith('filter.') || key.lastIndexOf('.') < 'filter.'.length) continue;
    const name = key.slice('filter.'.length, key.lastIndexOf('.'));
    if (name.includes('=')) return null; // cannot be overridden through `-c`
    names.add(name);
  }
  if (names.size > MAX_FILTER_DRIVERS) return null;
  const overrides: string[] = [];
  for (const name of names) {
    for (const setting of ['clean=', 'smudge=', 'process=', 'required=false'])
      overrides.push('-c', `filter.${name}.${setting}`);
  }
  return overrides;
}

async function isRepository(dir: string): Promise<boolean> {
  try {
    await stat(join(dir, '.git'));
    return true;
  } catch {
    return false;
  }
}

/** Lists repositories: the root itself and its direct children, bounded. */
export async function findRepositories(
  root: string,
  limit: number,
): Promise<{ paths: string[]; truncated: boolean }> {
  const found: string[] = [];
  if (await isRepository(root)) found.push('.');
  const entries = await readdir(root, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
    if (await isRepository(join(root, entry.name))) found.push(entry.name);
  }
  return { paths: found.slice(0, limit), truncated: found.length > limit };
}

function parsePorcelainV2(output: string, maxFiles: number): Omit<RepositoryStatus, 'path' | 'error'> {
  const status: Omit<RepositoryStatus, 'path' | 'error'> = {
    branch: null,
    detached: false,
    head: null,
    upstream: null,
    ahead: null,
    behind: null,
    changedCount: 0,
    changed: [],
    truncated: false,
  };
  const records = output.split('\0');
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record === '') continue;
    if (record.startsWith('# branch.oid ')) {
      const oid = record.slice(13);
      status.head = oid === '(initial)' ? null : oid;
    } else if (record.startsWith('# branch.head ')) {
      const head = record.slice(14);
      status.detached = head === '(detached)';
      status.branch = status.detached ? null : head;
    } else if (record.startsWith('# branch.upstream ')) status.upstream = record.slice(18);
    else if (record.startsWith('# branch.ab ')) {
      const match = /^\+(\d+) -(\d+)$/.exec(record.slice(12));
      if (match) {
        status.ahead = Number(match[1]);
        status.behind = Number(match[2]);
      }
    } else if (record[0] === '1' || record[0] === '2' || record[0] === 'u') {
      const fields = record.split(' ');
      const fixed = record[0] === '1' ? 8 : record[0] === '2' ? 9 : 10;
      const path = fields.slice(fixed).join(' ');
      addChange(status, { path, status: fields[1]!.replace(/\./g, ' ') }, maxFiles);
      if (record[0] === '2') i++; // a rename record is followed by its original path
    } else if (record[0] === '?' || record[0] === '!') {
      addChange(status, { path: record.slice(2), status: record[0] + record[0] }, maxFiles);
    }
  }
  return status;
}

function addChange(
  status: Omit<RepositoryStatus, 'path' | 'error'>,
  file: ChangedFile,
  maxFiles: number,
): void {
  status.changedCount++;
  if (status.changed.length < maxFiles) status.changed.push(file);
  else status.truncated = true;
}

export async function repositoryStatus(
  root: string,
  relative: string,
  maxFiles: number,
  signal?: AbortSignal,
): Promise<RepositoryStatus> {
  const empty = { branch: null, detached: false, head: null, upstream: null, ahead: null, behind: null };
  const refused = (error: string): RepositoryStatus => ({
    path: relative,
    ...empty,
    changedCount: 0,
    changed: [],
    truncated: false,
    error,
  });
  const workTree = join(root, relative);
  const located = await containedGitDir(root, workTree);
  if ('error' in located) return refused(located.error);
  const filters = await filterOverrides(located.gitDir, root, signal);
  if (signal?.aborted) throw new ReMcpError('cancelled', 'git status was cancelled');
  if (filters === null) return refused("the repository's filter configuration could not be neutralized");
  const run = await runBounded({
    argv: [
      gitExecutable(),
      `--git-dir=${located.gitDir}`,
      `--work-tree=${workTree}`,
      '-c',
      'core.fsmonitor=false',
      '-c',
      'core.untrackedCache=false',
      '-c',
      'core.hooksPath=/dev/null',
      ...filters,
      'status',
      '--porcelain=v2',
      '--branch',
      '-z',
      '--untracked-files=normal',
      '--ignore-submodules=dirty',
    ],
    cwd: workTree,
    env: gitEnv(),
    timeoutMs: GIT_LIMITS.timeoutMs.max,
    maxOutputBytes: 4 * 1024 * 1024,
    ...(signal ? { signal } : {}),
  });
  if (run.spawnError) throw new ReMcpError('git-failed', `git could not be started: ${run.spawnError}`);
  if (run.cancelled) throw new ReMcpError('cancelled', 'git status was cancelled');
  if (run.timedOut)
    return {
      path: relative,
      ...empty,
      changedCount: 0,
      changed: [],
      truncated: false,
      error: 'git timed out',
    };
  if (run.exitCode !== 0) {
    const reason = run.stderr.tail.trim().split('\n').pop() ?? `exit ${run.exitCode}`;
    return { path: relative, ...empty, changedCount: 0, changed: [], truncated: false, error: reason };
  }
  if (run.stdout.truncated) throw new ReMcpError('limit-exceeded', 'git status output exceeded 4 MiB');
  return { path: relative, ...parsePorcelainV2(run.stdout.tail, maxFiles), error: null };
}
