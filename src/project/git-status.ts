// Git status of the workspace's repositories: the workspace itself when it is a repository, and its
// direct subdirectories that are. Git runs with an argument array, a minimal environment, a timeout,
// and with the repository's own command hooks (fsmonitor) switched off so a hostile repo config
// cannot make a status call execute anything.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { runBounded } from '../core/bounded-process.js';
import { ReMcpError } from '../core/errors.js';

export const GIT_LIMITS = {
  repositories: { default: 16, max: 64, unit: 'repositories' },
  files: { default: 200, max: 2_000, unit: 'changed files per repository' },
  timeoutMs: { max: 15_000, unit: 'ms per git call' },
} as const;

export interface ChangedFile {
  path: string;
  /** Two-letter porcelain code: index then worktree ('?' untracked, '!' ignored, 'U' conflict). */
  status: string;
}

export interface RepositoryStatus {
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

function gitEnv(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    HOME: '/nonexistent',
  };
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

export function parsePorcelainV2(output: string, maxFiles: number): Omit<RepositoryStatus, 'path' | 'error'> {
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
  const run = await runBounded({
    argv: [
      'git',
      '-c',
      'core.fsmonitor=false',
      '-c',
      'core.untrackedCache=false',
      '-C',
      join(root, relative),
      'status',
      '--porcelain=v2',
      '--branch',
      '-z',
      '--untracked-files=normal',
    ],
    cwd: root,
    env: gitEnv(),
    timeoutMs: GIT_LIMITS.timeoutMs.max,
    maxOutputBytes: 4 * 1024 * 1024,
    ...(signal ? { signal } : {}),
  });
  if (run.spawnError) throw new ReMcpError('git-failed', `git could not be started: ${run.spawnError}`);
  if (run.cancelled) throw new ReMcpError('cancelled', 'git status was cancelled');
  const empty = { branch: null, detached: false, head: null, upstream: null, ahead: null, behind: null };
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
