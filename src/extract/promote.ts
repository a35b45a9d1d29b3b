// Transactional promotion of a bundle directory, and recovery after a crash.
//
// A bundle is assembled in a hidden sibling `.<sha16>.bundle-<pid>-<rand>.tmp` and only renamed to the
// final `<sha16>` name once every file in it is written and synced, so the final name never shows a
// partial bundle. POSIX rename cannot replace a non-empty directory, so replacing an existing bundle
// moves it aside to `.<sha16>.bundle-<pid>-<rand>.old` first; if the second rename fails the old one is
// renamed back. A crash between the two renames leaves no directory at the final name and a complete
// `.old`: recovery (run before every bundle or extraction touching that ROM directory) renames it back.
// Entries of the old directory that are not bundle files (e.g. components/ from single extractions)
// are carried over into the new one.
//
// Every operation is relative to the open ROM-area directory (see workspace/output-dir.ts), so a
// directory swapped for a symlink meanwhile is never followed.

import { randomBytes } from 'node:crypto';
import { ReMcpError } from '../core/errors.js';
import { pidAlive } from '../core/pid.js';
import { acquireLock, recoverStaleLock, releaseLock } from '../workspace/dir-lock.js';
import type { OutputDir } from '../workspace/output-dir.js';

/** The names a bundle owns at its top level; anything else in the directory is carried over. */
const BUNDLE_ENTRIES = new Set([
  'manifest.json',
  'address-map.json',
  'filesystem.json',
  'overlays.json',
  'arm9.bin',
  'arm7.bin',
  'overlays',
]);

/** Directory operations, injectable so a test can make one fail. */
export interface DirOps {
  rename(dir: OutputDir, from: string, to: string): Promise<void>;
  remove(dir: OutputDir, name: string): Promise<void>;
}

export const realOps: DirOps = {
  rename: (dir, from, to) => dir.renameTo(from, dir, to),
  remove: (dir, name) => dir.remove(name),
};

export type StepHook = (step: string) => void | Promise<void>;

const LEFTOVER = /^\.([0-9a-f]{16})\.bundle-(\d+)-[0-9a-f]+\.(tmp|old)$/;
/** A writer's temp file (see OutputDir.writeAtomic): `.<name>.<pid>.<12 hex>.tmp`. */
const TEMP_FILE = /^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$/;

export function tempName(sha16: string, kind: 'tmp' | 'old'): string {
  return `.${sha16}.bundle-${process.pid}-${randomBytes(6).toString('hex')}.${kind}`;
}

/** The final name must be absent or a real directory: a planted symlink must never be read or moved into. */
async function assertRealDirOrMissing(parent: OutputDir, name: string): Promise<boolean> {
  const kind = await parent.kind(name);
  if (kind === null) return false;
  if (kind !== 'directory') {
    throw new ReMcpError(
      'workspace-escape',
      'the bundle directory is not a real directory; refusing to touch it',
    );
  }
  return true;
}

/** Moves top-level entries that are not bundle files from `from` into `to` (existing ones win). */
async function carryOver(parent: OutputDir, from: string, to: string, ops: DirOps): Promise<void> {
  const source = await parent.child(from, false);
  const target = await parent.child(to, false);
  try {
    for (const name of await source.names()) {
      if (BUNDLE_ENTRIES.has(name)) continue;
      if ((await target.kind(name)) !== null) continue;
      await source.renameTo(name, target, name);
    }
  } finally {
    await source.close();
    await target.close();
  }
  void ops;
}

/**
 * Puts the complete directory `tmp` (in `parent`) at `final`. Returns whether a previous directory was
 * replaced. On failure the previous directory is back at `final` (when it could be) and `tmp` is removed.
 */
export async function promoteDirectory(
  parent: OutputDir,
  tmp: string,
  final: string,
  sha16: string,
  ops: DirOps = realOps,
  onStep?: StepHook,
): Promise<{ replaced: boolean }> {
  if (!(await assertRealDirOrMissing(parent, final))) {
    await ops.rename(parent, tmp, final);
    await parent.sync();
    await onStep?.('promoted');
    return { replaced: false };
  }
  const old = tempName(sha16, 'old');
  await ops.rename(parent, final, old);
  await onStep?.('moved-aside');
  try {
    await ops.rename(parent, tmp, final);
  } catch (error) {
    // Put the previous complete bundle back; if even that fails, recovery will on the next call.
    await ops.rename(parent, old, final).catch(() => {});
    await ops.remove(parent, tmp).catch(() => {});
    throw error;
  }
  await parent.sync();
  await onStep?.('promoted');
  await carryOver(parent, old, final, ops);
  await onStep?.('carried-over');
  await ops.remove(parent, old);
  await parent.sync();
  return { replaced: true };
}

/** Removes writers' temp files left by dead processes below `dir` (at most `depth` levels down). */
async function sweepTempFiles(dir: OutputDir, depth: number, actions: string[]): Promise<void> {
  for (const name of await dir.names()) {
    const m = TEMP_FILE.exec(name);
    const kind = await dir.kind(name);
    if (m !== null && kind === 'file' && !pidAlive(Number(m[1]))) {
      await dir.remove(name);
      actions.push(`removed ${dir.relative}/${name}`);
    } else if (kind === 'directory' && depth > 0) {
      const sub = await dir.child(name, false).catch(() => null);
      if (sub === null) continue;
      try {
        await sweepTempFiles(sub, depth - 1, actions);
      } finally {
        await sub.close();
      }
    }
  }
}

/**
 * Repairs what a killed process left for one ROM directory: restores a moved-aside bundle when the
 * final name is missing, carries extra entries of a replaced one over, removes stale temp dirs and
 * stale temp files inside the bundle. Leftovers of live processes are not touched.
 */
export async function recoverLeftovers(
  parent: OutputDir,
  sha16: string,
  ops: DirOps = realOps,
): Promise<string[]> {
  const actions: string[] = [];
  const names = await parent.names();
  const final = sha16;
  await assertRealDirOrMissing(parent, final);
  const mine = names
    .map((name) => ({ name, m: LEFTOVER.exec(name) }))
    .filter((x) => x.m !== null && x.m[1] === sha16 && !pidAlive(Number(x.m[2])))
    .map((x) => ({ name: x.name, kind: x.m![3] as 'tmp' | 'old' }));
  for (const { name } of mine.filter((x) => x.kind === 'old')) {
    if ((await parent.kind(name)) !== 'directory') continue;
    if (!(await assertRealDirOrMissing(parent, final))) {
      await ops.rename(parent, name, final);
      actions.push(`restored ${name}`);
      continue;
    }
    await carryOver(parent, name, final, ops);
    await ops.remove(parent, name);
    actions.push(`merged ${name}`);
  }
  for (const { name } of mine.filter((x) => x.kind === 'tmp')) {
    // A temp leftover that cannot be removed (too deep, not ours to delete) blocks nothing: the next
    // temp name is the next writer's own. Reported briefly, once per process.
    try {
      await ops.remove(parent, name);
      actions.push(`removed ${name}`);
    } catch (error) {
      const where = `${parent.relative}/${name}`;
      if (!unremovable.has(where)) {
        unremovable.add(where);
        const code = (error as ReMcpError).details?.errno ?? (error as NodeJS.ErrnoException).code;
        actions.push(`could not remove ${name} (${String(code ?? 'error')}); left in place`);
      }
    }
  }
  // A lock whose owner died (killed mid-build) is stale; ours (we hold it) and live ones stay. So are
  // the temp files of lock writes killed before their link.
  await sweepLockTemps(parent);
  const lock = await recoverStaleLock(parent, `.${sha16}.lock`);
  if (lock !== null) actions.push(lock);
  if (await assertRealDirOrMissing(parent, final)) {
    const bundle = await parent.child(final, false);
    try {
      await sweepTempFiles(bundle, 4, actions);
    } finally {
      await bundle.close();
    }
  }
  if (actions.length > 0) await parent.sync();
  return actions;
}

// One bundle or extraction per ROM directory at a time: within this process by a promise chain, across
// processes by a lock file in the ROM area naming its owner verifiably (workspace/dir-lock.ts).
const locks = new Map<string, Promise<unknown>>();
/** Leftovers already reported as impossible to remove (each is said once per process). */
const unremovable = new Set<string>();

/**
 * Runs `fn` holding the lock `.<key>.lock` of `area`; `fn` receives the notes of any stale lock that
 * was recovered to take it.
 */
export async function withDirLock<T>(
  area: OutputDir,
  key: string,
  fn: (recovered: string[]) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const name = `.${key}.lock`;
  const run = previous
    .catch(() => {})
    .then(async () => {
      await sweepLockTemps(area);
      const recovered = await acquireLock(area, name, signal);
      try {
        return await fn(recovered);
      } finally {
        await releaseLock(area, name);
      }
    });
  const tail = run.catch(() => {});
  locks.set(key, tail);
  try {
    return await run;
  } finally {
    if (locks.get(key) === tail) locks.delete(key);
  }
}

/**
 * Runs `fn` holding the lock of the ROM directory `sha16` of `area`, once what a killed writer left
 * there is repaired (recoverLeftovers).
 */
export function withRomDirLock<T>(
  area: OutputDir,
  sha16: string,
  fn: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  return withDirLock(
    area,
    sha16,
    async () => {
      await recoverLeftovers(area, sha16);
      return fn();
    },
    signal,
  );
}

const LOCK_TEMP = /^\..+\.lock\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** Removes the temp files of lock writes that dead processes left (a kill between write and link). */
async function sweepLockTemps(area: OutputDir): Promise<void> {
  for (const name of await area.names().catch(() => [] as string[])) {
    const m = LOCK_TEMP.exec(name);
    if (m && Number(m[1]) !== process.pid && !pidAlive(Number(m[1]))) await area.remove(name).catch(() => {});
  }
}
