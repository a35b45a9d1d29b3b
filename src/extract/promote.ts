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
import { constants } from 'node:fs';
import { open, unlink } from 'node:fs/promises';
import { ReMcpError } from '../core/errors.js';
import type { OutputDir } from '../workspace/output-dir.js';

/** The names a bundle owns at its top level; anything else in the directory is carried over. */
export const BUNDLE_ENTRIES = new Set([
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

function pidAlive(pid: number): boolean {
  if (pid === process.pid) return false; // the caller holds this ROM's lock: ours are stale
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
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
    await ops.remove(parent, name);
    actions.push(`removed ${name}`);
  }
  // A lock file whose owner died (killed mid-write) is stale; ours (we hold it) and live ones stay.
  const lock = `.${sha16}.lock`;
  if (names.includes(lock)) {
    const owner = Number((await parent.readIfSmall(lock, 32))?.toString('utf8') ?? 'NaN');
    if (Number.isInteger(owner) && owner > 0 && owner !== process.pid && !pidAlive(owner)) {
      await parent.remove(lock);
      actions.push(`removed stale ${lock}`);
    }
  }
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
// processes by an exclusive lock file in the ROM area naming its owner's pid (a dead owner's is taken over).
const locks = new Map<string, Promise<unknown>>();

export const LOCK_LIMITS = { waitMs: 60_000, pollMs: 50 } as const;

async function acquireFileLock(area: OutputDir, key: string, signal?: AbortSignal): Promise<string> {
  const name = `.${key}.lock`;
  const deadline = Date.now() + LOCK_LIMITS.waitMs;
  for (;;) {
    const path = await area.at(name);
    try {
      const handle = await open(
        path,
        constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW,
        0o644,
      );
      await handle.writeFile(String(process.pid));
      await handle.close();
      return name;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = Number((await area.readIfSmall(name, 32))?.toString('utf8') ?? 'NaN');
    if (Number.isInteger(owner) && owner > 0 && !pidAlive(owner)) {
      await unlink(path).catch(() => {});
      continue;
    }
    if (signal?.aborted) throw new ReMcpError('cancelled', 'the operation was cancelled by the client');
    if (Date.now() > deadline) {
      throw new ReMcpError('busy', 'another process is writing this ROM directory; try again', { key });
    }
    await new Promise((r) => setTimeout(r, LOCK_LIMITS.pollMs));
  }
}

export async function withDirLock<T>(
  area: OutputDir,
  key: string,
  fn: () => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const run = previous
    .catch(() => {})
    .then(async () => {
      const lock = await acquireFileLock(area, key, signal);
      try {
        return await fn();
      } finally {
        await unlink(await area.at(lock)).catch(() => {});
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
