// Cross-process lock files in an output directory, held by descriptor (OutputDir). A lock names its
// owner verifiably: its pid and that process's start time (/proc/<pid>/stat), so a pid reused by
// another process after a crash does not keep the lock alive. It is written atomically: the content goes
// into a private temp file first, which is then hard-linked to the lock's name (the link either creates
// the complete lock or fails with EEXIST), so no reader ever sees an empty or half-written lock from us.
// A lock that names no live owner (a dead pid, a reused pid, or junk: empty, unparsable, a bare number
// whose owner cannot be verified) is recovered once it is older than LOCK_LIMITS.junkGraceMs, with a note.
import { randomBytes } from 'node:crypto';
import { constants, readFileSync } from 'node:fs';
import { link, open, stat, unlink } from 'node:fs/promises';
import { ReMcpError } from '../core/errors.js';
import { type OutputDir, outputError } from './output-dir.js';

const LOCK_LIMITS = {
  /** Longest wait for a live owner's lock before `busy`. */
  waitMs: 60_000,
  pollMs: 50,
  /** Age after which an unverifiable lock (junk, legacy, empty) is taken over. */
  junkGraceMs: 2_000,
} as const;

/** The start time of `pid` in clock ticks since boot (field 22 of /proc/<pid>/stat), or null. */
export function processStart(pid: number): string | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: fields are counted after the last ')'.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This process: its pid and start time, read on the first lock (not when the module loads). */
let self: { pid: number; start: string | null } | undefined;
const own = () => {
  self ??= { pid: process.pid, start: processStart(process.pid) };
  return self;
};

/** What a lock file's text says about its owner. */
type LockState =
  | { state: 'live'; pid: number }
  | { state: 'ours' }
  | { state: 'dead'; pid: number; why: string }
  | { state: 'unverifiable'; why: string };

export function lockState(text: string | null): LockState {
  if (text === null) return { state: 'unverifiable', why: 'it is not a readable regular file' };
  let owner: { pid?: unknown; start?: unknown };
  try {
    owner = JSON.parse(text) as typeof owner;
  } catch {
    return {
      state: 'unverifiable',
      why: text.trim() === '' ? 'it is empty' : 'it names no verifiable owner',
    };
  }
  const pid = owner?.pid;
  if (!Number.isInteger(pid) || (pid as number) <= 0 || typeof owner.start !== 'string')
    return { state: 'unverifiable', why: 'it names no verifiable owner' };
  const p = pid as number;
  if (p === own().pid && owner.start === own().start) return { state: 'ours' };
  if (!pidExists(p)) return { state: 'dead', pid: p, why: `its owner (pid ${p}) is gone` };
  const start = processStart(p);
  if (start !== null && start !== owner.start)
    return { state: 'dead', pid: p, why: `pid ${p} now belongs to another process` };
  return { state: 'live', pid: p };
}

/**
 * Takes the lock `name` in `area`, waiting (bounded) for a live owner. Returns the notes of any lock it
 * recovered. A failed write (no space, file size limit) leaves nothing behind and is a typed error.
 */
export async function acquireLock(area: OutputDir, name: string, signal?: AbortSignal): Promise<string[]> {
  const notes: string[] = [];
  const deadline = Date.now() + LOCK_LIMITS.waitMs;
  const text = JSON.stringify({ pid: own().pid, start: own().start, tool: 're-mcp' });
  for (;;) {
    if (await tryCreate(area, name, text)) return notes;
    const current = await area.readIfSmall(name, 256).catch(() => null);
    const s = lockState(current === null ? null : current.toString('utf8'));
    let stale: string | null = null;
    if (s.state === 'dead') stale = s.why;
    else if (s.state === 'ours') stale = 'it was left by this process';
    else if (s.state === 'unverifiable') {
      const age = await stat(await area.at(name)).then(
        (i) => Date.now() - i.mtimeMs,
        () => Number.POSITIVE_INFINITY,
      );
      if (age >= LOCK_LIMITS.junkGraceMs) stale = s.why;
    }
    if (stale !== null) {
      await area.remove(name).catch(() => {});
      notes.push(`recovered the stale lock ${name}: ${stale}`);
      continue;
    }
    if (signal?.aborted) throw new ReMcpError('cancelled', 'the operation was cancelled by the client');
    if (Date.now() > deadline) {
      throw new ReMcpError(
        'busy',
        `another process (pid ${s.state === 'live' ? s.pid : 'unknown'}) holds ${name}; try again`,
        { lock: name },
      );
    }
    await new Promise((r) => setTimeout(r, LOCK_LIMITS.pollMs));
  }
}

/**
 * Removes the lock `name` if it is stale (a dead or reused owner, or unverifiable and older than the
 * grace time), never a live one or this process's own. Returns the note, or null when nothing was done.
 */
export async function recoverStaleLock(area: OutputDir, name: string): Promise<string | null> {
  const current = await area.readIfSmall(name, 256).catch(() => null);
  if (current === null && (await area.kind(name).catch(() => null)) === null) return null;
  const s = lockState(current === null ? null : current.toString('utf8'));
  let why: string | null = null;
  if (s.state === 'dead') why = s.why;
  else if (s.state === 'unverifiable') {
    const age = await stat(await area.at(name)).then(
      (i) => Date.now() - i.mtimeMs,
      () => 0,
    );
    if (age >= LOCK_LIMITS.junkGraceMs) why = s.why;
  }
  if (why === null) return null;
  await area.remove(name).catch(() => {});
  return `recovered the stale lock ${name}: ${why}`;
}

/** Creates the complete lock atomically; false if it exists. Errors other than EEXIST are typed. */
async function tryCreate(area: OutputDir, name: string, text: string): Promise<boolean> {
  const tmp = `${name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const tmpPath = await area.at(tmp);
  try {
    const handle = await open(
      tmpPath,
      constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW,
      0o644,
    );
    try {
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
    await link(tmpPath, await area.at(name));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw outputError(error, `${area.relative}/${name}`);
  } finally {
    await unlink(tmpPath).catch(() => {});
  }
}

/** Releases a lock taken by acquireLock (only if it is still ours). */
export async function releaseLock(area: OutputDir, name: string): Promise<void> {
  const current = await area.readIfSmall(name, 256).catch(() => null);
  if (current !== null && lockState(current.toString('utf8')).state === 'ours')
    await area.remove(name).catch(() => {});
}
