// Containment of the processes the server starts (verification checks, git, the emulator launchers).
// Each runs as the leader of its own process group, which a timeout, a cancellation, a stop or the
// server's exit kills as a whole. A process group does not hold a descendant that calls setsid(), so
// where the kernel allows it the child also runs in its own PID namespace (util-linux `unshare --pid
// --fork --kill-child`, with a user namespace when the server is unprivileged): when the group is
// killed, unshare dies, its child (the namespace's init) gets SIGKILL, and the kernel kills every
// process left in the namespace, setsid or not.
//
// Fallback (no unshare, user namespaces disabled, or RE_MCP_CONTAINMENT=process-group): the process
// group only. A descendant that leaves the group with setsid() can then outlive the call; docs/SECURITY.md
// states this.
import { spawnSync } from 'node:child_process';
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { resolve as resolvePath } from 'node:path';

type ContainmentMode = 'pid-namespace' | 'process-group';

interface Containment {
  mode: ContainmentMode;
  /** argv prefix that runs a command contained (empty for the process-group fallback). */
  prefix: string[];
}

const UNSHARE_CANDIDATES = ['/usr/bin/unshare', '/bin/unshare', '/usr/sbin/unshare', '/sbin/unshare'];
const TRUE_CANDIDATES = ['/usr/bin/true', '/bin/true'];
// Tried in order: a privileged server needs no user namespace; an unprivileged one keeps its uid
// (--map-current-user) where util-linux supports it, else appears as root inside (--map-root-user).
const FLAG_SETS = [
  ['--pid', '--fork', '--kill-child'],
  ['--user', '--map-current-user', '--pid', '--fork', '--kill-child'],
  ['--user', '--map-root-user', '--pid', '--fork', '--kill-child'],
];

function firstExecutable(paths: readonly string[]): string | null {
  for (const path of paths) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // next
    }
  }
  return null;
}

let detected: Containment | null = null;
let forced: ContainmentMode | null = null;

function detect(): Containment {
  const fallback: Containment = { mode: 'process-group', prefix: [] };
  if (process.platform !== 'linux' || process.env.RE_MCP_CONTAINMENT === 'process-group') return fallback;
  const unshare = firstExecutable(UNSHARE_CANDIDATES);
  const truth = firstExecutable(TRUE_CANDIDATES);
  if (unshare === null || truth === null) return fallback;
  for (const flags of FLAG_SETS) {
    const probe = spawnSync(unshare, [...flags, truth], { stdio: 'ignore', timeout: 5_000, env: {} });
    if (probe.status === 0) return { mode: 'pid-namespace', prefix: [unshare, ...flags, '--'] };
  }
  return fallback;
}

/** How children are contained on this machine (probed once, cached). */
export function containment(): Containment {
  if (forced === 'process-group') return { mode: 'process-group', prefix: [] };
  detected ??= detect();
  return detected;
}

/** Tests: force the fallback (or go back to detection with null). */
export function forceContainment(mode: ContainmentMode | null): void {
  forced = mode;
}

const SETPRIV_CANDIDATES = ['/usr/bin/setpriv', '/bin/setpriv'];
let deathPrefix: string[] | null = null;

/**
 * argv prefix that makes a child die with the server, whatever ends the server (SIGKILL included): the
 * Linux parent-death signal, set by util-linux `setpriv --pdeathsig KILL`, which then execs the
 * command (same pid, the setting survives exec). unshare --kill-child passes it on to the namespace's
 * init, whose death takes the whole namespace. Empty where setpriv is missing or refuses (then only a
 * server that exits normally stops its children; docs/SECURITY.md says so).
 */
export function parentDeathPrefix(): string[] {
  if (deathPrefix !== null) return deathPrefix;
  deathPrefix = [];
  if (process.platform !== 'linux' || process.env.RE_MCP_CONTAINMENT === 'process-group') return deathPrefix;
  const setpriv = firstExecutable(SETPRIV_CANDIDATES);
  const truth = firstExecutable(TRUE_CANDIDATES);
  if (setpriv === null || truth === null) return deathPrefix;
  const probe = spawnSync(setpriv, ['--pdeathsig', 'KILL', '--', truth], {
    stdio: 'ignore',
    timeout: 5_000,
    env: {},
  });
  if (probe.status === 0) deathPrefix = [setpriv, '--pdeathsig', 'KILL', '--'];
  return deathPrefix;
}

/** SIGKILL/SIGTERM to a whole process group; quiet when it is gone already. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** Host pids of every process below `pid` (children, their children, ...), from /proc; bounded. */
export function descendants(pid: number, max = 4_096): number[] {
  const out: number[] = [];
  const queue = [pid];
  while (queue.length > 0 && out.length < max) {
    const parent = queue.shift()!;
    let text = '';
    try {
      text = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8');
    } catch {
      continue;
    }
    for (const child of text.trim().split(/\s+/)) {
      if (child === '') continue;
      out.push(Number(child));
      queue.push(Number(child));
    }
  }
  return out;
}

/**
 * Asks a contained tree to stop: SIGTERM to the group, and (in a PID namespace, where unshare ignores
 * it and the namespace's init only sees signals it handles) to every process of the tree directly.
 */
export function terminateContained(pid: number | undefined, mode: ContainmentMode): void {
  if (pid === undefined) return;
  signalGroup(pid, 'SIGTERM');
  if (mode !== 'pid-namespace') return;
  for (const member of descendants(pid)) {
    try {
      process.kill(member, 'SIGTERM');
    } catch {
      // gone
    }
  }
}

/** Whether `path` is a regular file this process may execute (no exception: false when it cannot tell). */
export async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Resolves a command like execvp would (PATH search for a bare name), so a missing one fails as ENOENT. */
export function resolveExecutable(command: string, cwd: string, pathVar: string | undefined): string | null {
  const candidates = command.includes('/')
    ? [resolvePath(cwd, command)]
    : (pathVar ?? '').split(':').map((dir) => resolvePath(cwd, dir === '' ? '.' : dir, command));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // next
    }
  }
  return null;
}
