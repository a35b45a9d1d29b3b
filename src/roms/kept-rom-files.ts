// ROM files kept open between operations, so a warm question does not resolve, check and open its
// ROM's path again (a dozen filesystem calls, about half of a warm answer's time). A kept file is
// reused only while the caller's path still names the very file that was opened (same device, inode,
// size, mtime and ctime, by one stat of the path and one of the handle): then every byte read
// through the handle is that file's, which the full check proved to lie inside the workspace when it
// was opened. Anything else (the path now names another file, the file was written, a stat fails)
// drops the kept handle and the caller takes the full path again.
// Bounds: at most MAX_KEPT_FILES handles, each closed once unused for IDLE_CLOSE_MS (the timer does
// not hold the process open); a dropped handle still in use is closed when its last user releases it.
import type { FileHandle } from 'node:fs/promises';
import type { ResolvedPath } from '../workspace/workspace.js';

/** Handles kept open at once (least recently used first out). */
export const MAX_KEPT_FILES = 8;
/** An unused kept handle is closed after this long. */
const IDLE_CLOSE_MS = 2_000;

/** What the file was when it was opened and checked (the identity cache's key). */
export interface FileKey {
  dev: bigint;
  ino: bigint;
  size: bigint;
  mtimeNs: bigint;
  ctimeNs: bigint;
}

export interface KeptFile {
  readonly resolved: ResolvedPath;
  readonly file: FileHandle;
  readonly key: FileKey;
}

interface Entry extends KeptFile {
  lexical: string;
  users: number;
  dropped: boolean;
  timer: NodeJS.Timeout | null;
}

export class KeptRomFiles {
  private readonly entries = new Map<string, Entry>();

  /**
   * The handle kept for `lexical` (the caller's path joined to the root, links not followed) when
   * `check` says it still names the same unchanged file; the caller must `release` it. Null: take
   * the full path (and `keep` what it opens).
   */
  async take(lexical: string, check: (kept: KeptFile) => Promise<boolean>): Promise<KeptFile | null> {
    const e = this.entries.get(lexical);
    if (!e) return null;
    // Held while it is checked: a concurrent drop cannot close it underneath.
    this.hold(e);
    let same = false;
    try {
      same = await check(e);
    } catch {
      same = false;
    }
    if (!same || e.dropped) {
      this.drop(e);
      await this.release(e);
      return null;
    }
    // Most recently used last.
    this.entries.delete(lexical);
    this.entries.set(lexical, e);
    return e;
  }

  /**
   * Keeps `file` (just opened and checked for `lexical`) for later operations: the returned record
   * is held by the caller until it releases it. Null when another handle is already kept for that
   * path (the caller then closes its own as before).
   */
  keep(lexical: string, kept: KeptFile): KeptFile | null {
    if (this.entries.has(lexical)) return null;
    const e: Entry = { ...kept, lexical, users: 0, dropped: false, timer: null };
    this.hold(e);
    this.entries.set(lexical, e);
    while (this.entries.size > MAX_KEPT_FILES) {
      const oldest = this.entries.values().next().value!;
      this.drop(oldest);
      if (oldest.users === 0) void oldest.file.close().catch(() => undefined);
    }
    return e;
  }

  /** The end of one use of a kept handle (taken or kept). */
  async release(kept: KeptFile): Promise<void> {
    const e = kept as Entry;
    e.users--;
    if (e.users > 0) return;
    if (e.dropped) {
      await e.file.close().catch(() => undefined);
      return;
    }
    e.timer = setTimeout(() => {
      e.timer = null;
      if (e.users > 0) return;
      this.drop(e);
      void e.file.close().catch(() => undefined);
    }, IDLE_CLOSE_MS);
    e.timer.unref();
  }

  /** Forgets the handle kept for `lexical` (closed once unused): its file is no longer trusted. */
  forget(lexical: string): void {
    const e = this.entries.get(lexical);
    if (!e) return;
    this.drop(e);
    if (e.users === 0) void e.file.close().catch(() => undefined);
  }

  /** Handles kept now (for tests). */
  get size(): number {
    return this.entries.size;
  }

  private hold(e: Entry): void {
    e.users++;
    if (e.timer) clearTimeout(e.timer);
    e.timer = null;
  }

  private drop(e: Entry): void {
    if (this.entries.get(e.lexical) === e) this.entries.delete(e.lexical);
    e.dropped = true;
  }
}
