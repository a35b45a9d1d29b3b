// A bounded, read-only listing of the workspace: what the assistant may name in a path. Walks
// directories breadth-first in name order (the same listing every time), never follows a symlink
// (a link is listed with its target when that lies inside the workspace, and as pointing outside
// otherwise), skips hidden entries (a name starting with ".") and counts them, and stops at a number
// of visited entries and a depth, saying which bound cut it.
import type { Dirent } from 'node:fs';
import { lstat, opendir, readlink, realpath } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { ReMcpError, throwIfCancelled } from '../core/errors.js';
import { checkRelativePath } from './path-policy.js';
import type { Workspace } from './workspace.js';

export const LISTING_LIMITS = {
  maxDepth: { default: 8, min: 1, max: 32, unit: 'directory levels below `under`' },
  maxEntries: { default: 20_000, min: 1, max: 100_000, unit: 'entries visited' },
} as const;

/** What a listed entry is (a symlink is listed as itself, never followed). */
export const LISTED_KINDS = ['file', 'directory', 'symlink', 'other'] as const;
type ListedKind = (typeof LISTED_KINDS)[number];

/** Why a listing stopped short: maxEntries visited, or directories at maxDepth left unlisted. */
export const LISTING_TRUNCATIONS = ['entry-limit', 'depth-limit'] as const;
type ListingTruncation = (typeof LISTING_TRUNCATIONS)[number];

interface ListedEntry {
  /** Workspace-relative, '/'-separated. */
  path: string;
  kind: ListedKind;
  /** Bytes of a regular file; null otherwise. */
  size: number | null;
  /** A symlink's target, workspace-relative, when it resolves inside the workspace; else null. */
  target: string | null;
  /** For a symlink: whether it resolves outside the workspace (or nowhere): tools refuse it. */
  outside: boolean;
  /** Whether tools accept this path as written (the path policy: no control characters, ...). */
  usable: boolean;
}

interface Listing {
  under: string;
  entries: ListedEntry[];
  totals: { files: number; directories: number; symlinks: number; other: number; bytes: number };
  /** Hidden entries skipped (not entered when directories). */
  hidden: number;
  /** Directories at maxDepth whose contents were not listed. */
  notEntered: number;
  truncation: ListingTruncation[];
}

function usable(path: string): boolean {
  try {
    checkRelativePath(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Lists the workspace below `under` (a workspace-relative directory, or the root). `suffix`, when
 * given, keeps only files (and links to files inside) whose name ends with it, case-insensitive;
 * directories are still walked and every total still counts everything.
 */
export async function listWorkspace(
  workspace: Workspace,
  options: {
    under?: string;
    suffix?: string;
    maxDepth: number;
    maxEntries: number;
    signal?: AbortSignal;
    onProgress?: (visited: number) => void;
  },
): Promise<Listing> {
  let start = workspace.root;
  let under = '';
  if (options.under !== undefined) {
    const segments = checkRelativePath(options.under);
    if (segments.some((s) => s.startsWith('.')))
      throw new ReMcpError('invalid-argument', 'the listing does not enter hidden directories', {
        path: options.under,
      });
    const dir = await workspace.resolveExisting(options.under, 'directory');
    start = dir.absolute;
    under = dir.relative;
  }
  const suffix = options.suffix?.toLowerCase();
  const out: Listing = {
    under,
    entries: [],
    totals: { files: 0, directories: 0, symlinks: 0, other: 0, bytes: 0 },
    hidden: 0,
    notEntered: 0,
    truncation: [],
  };
  let visited = 0;
  let queue: Array<{ abs: string; depth: number }> = [{ abs: start, depth: 0 }];
  while (queue.length > 0) {
    const next: typeof queue = [];
    for (const dir of queue) {
      throwIfCancelled(options.signal);
      let names: Dirent[];
      try {
        names = [];
        const handle = await opendir(dir.abs);
        for await (const d of handle) names.push(d);
      } catch (error) {
        // A directory that vanished or cannot be read is left out; the listing goes on.
        if (dir.abs === start) throw error;
        continue;
      }
      names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const d of names) {
        if (d.name.startsWith('.')) {
          out.hidden++;
          continue;
        }
        if (visited >= options.maxEntries) {
          out.truncation.push('entry-limit');
          return finish(out);
        }
        visited++;
        if (visited % 1024 === 0) {
          options.onProgress?.(visited);
          throwIfCancelled(options.signal);
        }
        const abs = join(dir.abs, d.name);
        const path = relative(workspace.root, abs).split(sep).join('/');
        const entry = await describe(workspace, abs, path);
        if (entry === null) continue;
        if (entry.kind === 'directory') {
          out.totals.directories++;
          if (dir.depth + 1 >= options.maxDepth) out.notEntered++;
          else next.push({ abs, depth: dir.depth + 1 });
        } else if (entry.kind === 'file') {
          out.totals.files++;
          out.totals.bytes += entry.size ?? 0;
        } else if (entry.kind === 'symlink') out.totals.symlinks++;
        else out.totals.other++;
        // A link inside the workspace is as usable a path as the file it names.
        const named = entry.kind === 'file' || (entry.kind === 'symlink' && entry.target !== null);
        if (suffix !== undefined && (!named || !d.name.toLowerCase().endsWith(suffix))) continue;
        out.entries.push(entry);
      }
    }
    queue = next;
  }
  return finish(out);
}

function finish(out: Listing): Listing {
  if (out.notEntered > 0 && !out.truncation.includes('depth-limit')) out.truncation.push('depth-limit');
  return out;
}

async function describe(workspace: Workspace, abs: string, path: string): Promise<ListedEntry | null> {
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(abs);
  } catch {
    return null; // gone since the directory was read
  }
  const base = { path, size: null, target: null, outside: false, usable: usable(path) };
  if (info.isFile()) return { ...base, kind: 'file', size: info.size };
  if (info.isDirectory()) return { ...base, kind: 'directory' };
  if (!info.isSymbolicLink()) return { ...base, kind: 'other' };
  // A link is never followed here; it is resolved only to say where it lands.
  let real: string | null = null;
  try {
    real = await realpath(abs);
  } catch {
    // Dangling or a loop: where its text points says whether it would leave the workspace.
    const text = await readlink(abs).catch(() => null);
    if (text !== null && workspace.contains(resolve(abs, '..', text))) return { ...base, kind: 'symlink' };
    return { ...base, kind: 'symlink', outside: true };
  }
  if (!workspace.contains(real)) return { ...base, kind: 'symlink', outside: true };
  return { ...base, kind: 'symlink', target: relative(workspace.root, real).split(sep).join('/') };
}
