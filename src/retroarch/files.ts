// Local-machine helpers for the RetroArch client: the files RetroArch writes (state files, screenshot
// PNGs) watched through cheap (mtime, size) snapshots, and a cancellable sleep. Only used when
// RetroArch runs on this machine.
import { lstat, readdir } from 'node:fs/promises';
import { basename, isAbsolute, join, normalize } from 'node:path';
import { ReMcpError } from '../core/errors.js';
import { readSmallFile } from '../core/small-file.js';
import { escapeUnsafe } from '../core/text-safety.js';

export const MAX_SCREENSHOT_BYTES = 8 * 1024 * 1024;

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(new ReMcpError('cancelled', 'the operation was cancelled by the client'));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new ReMcpError('cancelled', 'the operation was cancelled by the client'));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A directory RetroArch names that the state checks may read: absolute, printable, not /proc, /sys or /dev. */
export function plainDirectory(path: string): boolean {
  return (
    isAbsolute(path) &&
    path.length <= 4096 &&
    escapeUnsafe(path).escaped === 0 &&
    !/^\/(proc|sys|dev)(\/|$)/.test(normalize(path))
  );
}

/** The game's name as a state file's stem: one printable path segment, or null (no state checks). */
export function plainGame(game: string | null | undefined): string | null {
  if (!game || game.length > 255 || game === '.' || game === '..') return null;
  return /[/\\]/.test(game) || escapeUnsafe(game).escaped > 0 ? null : game;
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** `<game>.state` for slot 0, `.state<n>` otherwise (RetroArch's naming). */
export function stateFileName(game: string, slot: number): string {
  return slot === 0 ? `${game}.state` : `${game}.state${slot}`;
}

/** `<game>.state` -> 0, `<game>.state7` -> 7, anything else -> null. */
export function slotOfStateFile(game: string, name: string): number | null {
  if (!name.startsWith(`${game}.state`)) return null;
  const rest = name.slice(game.length + '.state'.length);
  if (rest === '') return 0;
  return /^\d+$/.test(rest) ? Number(rest) : null;
}

export async function stateSnapshot(dir: string, game: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    if (slotOfStateFile(game, name) === null) continue;
    try {
      // lstat: a link or FIFO named like a screenshot is not one (and is never read).
      const s = await lstat(join(dir, name));
      if (s.isFile()) out.set(name, `${s.mtimeMs}:${s.size}`);
    } catch {
      // vanished between readdir and stat
    }
  }
  return out;
}

export async function pngSnapshot(dir: string): Promise<Map<string, string> | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return null;
  }
  const out = new Map<string, string>();
  for (const name of names) {
    if (!name.toLowerCase().endsWith('.png')) continue;
    try {
      // lstat: a link or FIFO named like a screenshot is not one (and is never read).
      const s = await lstat(join(dir, name));
      if (s.isFile()) out.set(name, `${s.mtimeMs}:${s.size}`);
    } catch {
      // vanished
    }
  }
  return out;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const IEND = Buffer.from('IEND', 'latin1');

/**
 * The PNG once fully written (signature and IEND chunk present), else null. Read through the bounded
 * small-file reader within `deadlineMs`: a FIFO, a link (to /dev/zero or anything) or a non-regular file
 * is never a screenshot; a file over MAX_SCREENSHOT_BYTES is refused.
 */
export async function readCompletePng(
  path: string,
  deadlineMs: number,
  signal?: AbortSignal,
): Promise<Buffer | null> {
  let data: Buffer;
  try {
    data = await readSmallFile(path, {
      maxBytes: MAX_SCREENSHOT_BYTES,
      label: `screenshot ${basename(path)}`,
      deadlineMs: Math.max(1, deadlineMs),
      ...(signal ? { signal } : {}),
    });
  } catch (error) {
    if (error instanceof ReMcpError && (error.code === 'limit-exceeded' || error.code === 'cancelled'))
      throw error;
    return null;
  }
  if (data.length < 20 || !PNG_SIGNATURE.every((b, i) => data[i] === b)) return null;
  if (data.subarray(data.length - 12).indexOf(IEND) !== 4) return null;
  return data;
}
