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
import { randomBytes } from 'node:crypto';
import { lstat, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ReMcpError } from '../core/errors.js';
import { syncDirectory } from '../workspace/workspace.js';

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

/** Filesystem operations, injectable so a test can make one fail. */
export interface DirOps {
  rename(from: string, to: string): Promise<void>;
  rm(path: string): Promise<void>;
}

export const realOps: DirOps = {
  rename: (from, to) => rename(from, to),
  rm: (path) => rm(path, { recursive: true, force: true }),
};

export type StepHook = (step: string) => void | Promise<void>;

const LEFTOVER = /^\.([0-9a-f]{16})\.bundle-(\d+)-[0-9a-f]+\.(tmp|old)$/;

export function tempName(sha16: string, kind: 'tmp' | 'old'): string {
  return `.${sha16}.bundle-${process.pid}-${randomBytes(6).toString('hex')}.${kind}`;
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

async function isRealDir(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => null);
  return info?.isDirectory() === true && !info.isSymbolicLink();
}

/** The final name must be absent or a real directory: a planted symlink must never be read or moved into. */
async function assertRealDirOrMissing(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => null);
  if (info === null) return false;
  if (info.isSymbolicLink() || !info.isDirectory()) {
    throw new ReMcpError(
      'workspace-escape',
      'the bundle directory is not a real directory; refusing to touch it',
    );
  }
  return true;
}

function pidAlive(pid: number): boolean {
  if (pid === process.pid) return false; // the caller holds this process's lock: ours are stale
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Moves top-level entries that are not bundle files from `from` into `to` (existing ones win). */
async function carryOver(from: string, to: string, ops: DirOps): Promise<void> {
  for (const name of await readdir(from)) {
    if (BUNDLE_ENTRIES.has(name)) continue;
    if (await exists(join(to, name))) continue;
    await ops.rename(join(from, name), join(to, name));
  }
}

/**
 * Puts a complete `tmp` directory at `final`. Returns whether a previous directory was replaced.
 * On failure the previous directory is back at `final` (when it could be) and `tmp` is removed.
 */
export async function promoteDirectory(
  parent: string,
  tmp: string,
  final: string,
  sha16: string,
  ops: DirOps = realOps,
  onStep?: StepHook,
): Promise<{ replaced: boolean }> {
  if (!(await assertRealDirOrMissing(final))) {
    await ops.rename(tmp, final);
    await syncDirectory(parent);
    await onStep?.('promoted');
    return { replaced: false };
  }
  const old = join(parent, tempName(sha16, 'old'));
  await ops.rename(final, old);
  await onStep?.('moved-aside');
  try {
    await ops.rename(tmp, final);
  } catch (error) {
    // Put the previous complete bundle back; if even that fails, recovery will on the next call.
    await ops.rename(old, final).catch(() => {});
    await ops.rm(tmp).catch(() => {});
    throw error;
  }
  await syncDirectory(parent);
  await onStep?.('promoted');
  await carryOver(old, final, ops);
  await onStep?.('carried-over');
  await ops.rm(old);
  await syncDirectory(parent);
  return { replaced: true };
}

/**
 * Repairs what a killed process left for one ROM directory: restores a moved-aside bundle when the
 * final name is missing, carries extra entries of a replaced one over, removes stale temp dirs.
 * Leftovers of live processes are not touched.
 */
export async function recoverLeftovers(
  parent: string,
  sha16: string,
  ops: DirOps = realOps,
): Promise<string[]> {
  const actions: string[] = [];
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return actions;
  }
  const final = join(parent, sha16);
  await assertRealDirOrMissing(final);
  const mine = names
    .map((name) => ({ name, m: LEFTOVER.exec(name) }))
    .filter((x) => x.m !== null && x.m[1] === sha16 && !pidAlive(Number(x.m[2])))
    .map((x) => ({ name: x.name, kind: x.m![3] as 'tmp' | 'old' }));
  for (const { name } of mine.filter((x) => x.kind === 'old')) {
    const path = join(parent, name);
    if (!(await isRealDir(path))) continue;
    if (!(await assertRealDirOrMissing(final))) {
      await ops.rename(path, final);
      actions.push(`restored ${name}`);
      continue;
    }
    await carryOver(path, final, ops);
    await ops.rm(path);
    actions.push(`merged ${name}`);
  }
  for (const { name } of mine.filter((x) => x.kind === 'tmp')) {
    await ops.rm(join(parent, name));
    actions.push(`removed ${name}`);
  }
  if (actions.length > 0) await syncDirectory(parent);
  return actions;
}

// One bundle or extraction per ROM directory at a time within this process.
const locks = new Map<string, Promise<unknown>>();

export async function withDirLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const run = previous.catch(() => {}).then(fn);
  const tail = run.catch(() => {});
  locks.set(key, tail);
  try {
    return await run;
  } finally {
    if (locks.get(key) === tail) locks.delete(key);
  }
}
