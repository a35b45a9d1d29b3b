// An output directory held open by descriptor. Every later operation (create, write, rename, list,
// remove) names its entry relative to that descriptor, never by a path from the workspace root, so a
// directory swapped for a symlink after it was opened cannot redirect anything outside the workspace:
// the work follows the directory that was checked, wherever it was moved to.
//
// On Linux, `/proc/self/fd/<fd>/<name>` gives openat/renameat/unlinkat semantics from Node (the magic
// link resolves to the opened directory itself, not to a path). Elsewhere (no /proc) each operation
// re-proves the handle's identity (device + inode of the path equals that of the descriptor, and the
// path has no symlink) right before and after it, and refuses on a mismatch: a narrower window, not none,
// which docs/SECURITY.md states.
import { randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import {
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  realpath,
  rename,
  rmdir,
  unlink,
} from 'node:fs/promises';
import { join } from 'node:path';
import { ReMcpError } from '../core/errors.js';
import { checkRelativePath } from './path-policy.js';
import { streamWriting, writeStream } from './stream-write.js';

const DIR_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Whether descriptor-relative paths are available (tests flip it to exercise the fallback). */
export const fdPaths = { enabled: process.platform === 'linux' && existsSync('/proc/self/fd') };

/** Turns a filesystem failure into a typed error that names only the workspace-relative place. */
export function outputError(error: unknown, where: string): ReMcpError {
  if (error instanceof ReMcpError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? 'unknown';
  switch (code) {
    case 'ELOOP':
    case 'ENOTDIR':
    case 'EXDEV':
      return new ReMcpError(
        'workspace-escape',
        `an output directory was replaced by a link or file (${code}): ${where}`,
        {
          where,
          errno: code,
        },
      );
    case 'ENOENT':
    case 'ENOTEMPTY':
    case 'EEXIST':
      return new ReMcpError(
        'busy',
        `the output changed under this call (${code}; a concurrent writer?): ${where}`,
        {
          where,
          errno: code,
        },
      );
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return new ReMcpError('read-only', `the output area is not writable (${code}): ${where}`, {
        where,
        errno: code,
      });
    case 'ENOSPC':
    case 'EDQUOT':
    case 'EFBIG':
      return new ReMcpError('limit-exceeded', `no space left to write ${where} (${code})`, {
        where,
        errno: code,
      });
    default:
      return new ReMcpError('busy', `writing ${where} failed (${code})`, { where, errno: code });
  }
}

/**
 * The temp file `handle` opened a second time with O_DIRECT (for writeStream's direct writes), through its own descriptor (the magic
 * link names the open file itself, not a path that could have been swapped); null where that is not
 * available (no O_DIRECT, no /proc) or the file system refuses it.
 */
async function openDirect(handle: FileHandle): Promise<FileHandle | null> {
  const flag = (constants as { O_DIRECT?: number }).O_DIRECT;
  if (!flag || !fdPaths.enabled) return null;
  return open(`/proc/self/fd/${handle.fd}`, constants.O_WRONLY | flag).catch(() => null);
}

export class OutputDir {
  private constructor(
    private readonly handle: FileHandle,
    /** Workspace-relative '/'-separated path this directory had when it was opened. */
    readonly relative: string,
    private readonly root: string,
  ) {}

  /** Opens `segments` below `root` (creating missing ones), each a real directory, by descriptor. */
  static async open(root: string, segments: readonly string[]): Promise<OutputDir> {
    for (const s of segments) checkRelativePath(s);
    let current = await OutputDir.openRoot(root);
    try {
      for (const segment of segments) {
        const child = await current.child(segment);
        await current.close();
        current = child;
      }
      return current;
    } catch (error) {
      await current.close();
      throw error;
    }
  }

  private static async openRoot(root: string): Promise<OutputDir> {
    try {
      return new OutputDir(await open(root, constants.O_RDONLY | constants.O_DIRECTORY), '', root);
    } catch (error) {
      throw outputError(error, '.');
    }
  }

  private where(name?: string): string {
    if (name === undefined) return this.relative || '.';
    return this.relative ? `${this.relative}/${name}` : name;
  }

  /** The path naming `name` inside this directory, anchored to the descriptor where possible. */
  async at(name: string): Promise<string> {
    if (name.includes('/') || name === '' || name === '.' || name === '..')
      throw new ReMcpError('invalid-argument', 'an output name is one segment');
    if (fdPaths.enabled) return `/proc/self/fd/${this.handle.fd}/${name}`;
    await this.verifyInPlace();
    return join(this.root, ...(this.relative ? this.relative.split('/') : []), name);
  }

  /** Runs one operation on `name`, mapping failures to typed errors (and re-proving identity without /proc). */
  private async op<T>(name: string, fn: (path: string) => Promise<T>): Promise<T> {
    try {
      const result = await fn(await this.at(name));
      if (!fdPaths.enabled) await this.verifyInPlace();
      return result;
    } catch (error) {
      throw outputError(error, this.where(name));
    }
  }

  /** Opens (creating it if missing) the real subdirectory `name`; a symlink or file there is refused. */
  async child(name: string, create = true): Promise<OutputDir> {
    checkRelativePath(name);
    return this.openChild(name, create);
  }

  private openChild(name: string, create: boolean): Promise<OutputDir> {
    return this.op(name, async (path) => {
      if (create) {
        await mkdir(path).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        });
      }
      const handle = await open(path, DIR_FLAGS);
      return new OutputDir(handle, this.where(name), this.root);
    });
  }

  /** What `name` is here, without following it; null when absent. */
  async kind(name: string): Promise<'directory' | 'file' | 'symlink' | 'other' | null> {
    const info = await this.op(name, (path) => lstat(path)).catch((error: ReMcpError) => {
      if (error.details?.errno === 'ENOENT') return null;
      throw error;
    });
    if (info === null) return null;
    if (info.isSymbolicLink()) return 'symlink';
    if (info.isDirectory()) return 'directory';
    return info.isFile() ? 'file' : 'other';
  }

  async names(): Promise<string[]> {
    try {
      const path = fdPaths.enabled ? `/proc/self/fd/${this.handle.fd}` : await this.selfPath();
      return await readdir(path);
    } catch (error) {
      throw outputError(error, this.where());
    }
  }

  /**
   * The sizes of the regular files here (links and other kinds left out, never followed), for at most
   * `max` names; `more` says names were left out.
   */
  async fileSizes(max: number): Promise<{ sizes: Map<string, number>; more: boolean }> {
    const names = await this.names();
    const sizes = new Map<string, number>();
    for (const name of names.slice(0, max)) {
      const info = await this.op(name, (path) => lstat(path)).catch(() => null);
      if (info?.isFile()) sizes.set(name, info.size);
    }
    return { sizes, more: names.length > max };
  }

  private async selfPath(): Promise<string> {
    await this.verifyInPlace();
    return join(this.root, ...(this.relative ? this.relative.split('/') : []));
  }

  /** Reads a regular file `name` of at most `max` bytes; null when absent, not a file, or larger. */
  async readIfSmall(name: string, max: number): Promise<Buffer | null> {
    let handle: FileHandle;
    try {
      handle = await open(
        await this.at(name),
        constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      );
    } catch {
      return null;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size > max) return null;
      const buffer = Buffer.alloc(info.size);
      const { bytesRead } = await handle.read(buffer, 0, info.size, 0);
      return bytesRead === info.size ? buffer : null;
    } finally {
      await handle.close();
    }
  }

  /**
   * Writes `data` to `name` atomically: a temp file created exclusively (never through a link) in this
   * directory, synced, then renamed over `name`. Returns the workspace-relative path written.
   * Streamed content (an async iterable, e.g. a rebuilt ROM) is written chunk by chunk as it arrives,
   * never held whole; a failing or cancelled stream removes the temp file and leaves `name` untouched.
   * A yielded chunk may still be being written while the next is produced: its buffer may be reused
   * only after `onWritten` has reported that chunk written (a failed write never reports it).
   * `direct` writes the chunks that allow it with O_DIRECT (writeStream), for large files.
   * `readBack`, for streamed content, is given a reader of the temp file before the first chunk is
   * asked for (valid while the stream runs): a producer may read back bytes of chunks already reported
   * written (a patch's copies of its own earlier output).
   * `whileSyncing` runs once everything is written, while the file is being made durable (the fsync
   * runs in the thread pool meanwhile); a failure of it fails the write, once the fsync has settled.
   */
  async writeAtomic(
    name: string,
    data: Uint8Array | string | AsyncIterable<Uint8Array>,
    options: {
      onWritten?: (chunk: Uint8Array) => void;
      direct?: boolean;
      readBack?: (read: (into: Uint8Array, position: number) => Promise<number>) => void;
      whileSyncing?: () => Promise<void>;
    } = {},
  ): Promise<string> {
    checkRelativePath(name);
    if (name.includes('/')) throw new ReMcpError('invalid-argument', 'an output name is one segment');
    const temp = `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    let created = false;
    try {
      const handle = await this.op(temp, (path) =>
        open(
          path,
          constants.O_CREAT |
            constants.O_EXCL |
            (options.readBack ? constants.O_RDWR : constants.O_WRONLY) |
            constants.O_NOFOLLOW,
          0o644,
        ),
      );
      created = true;
      try {
        if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
        else {
          options.readBack?.(async (into, position) => {
            if (into.length === 0) return 0;
            return (await handle.read(into, 0, into.length, position)).bytesRead;
          });
          const direct = options.direct && streamWriting.direct ? await openDirect(handle) : null;
          try {
            await writeStream(handle, data, options.onWritten, direct);
          } finally {
            await direct?.close();
          }
        }
        // Makes every byte durable, those written directly included (their extents are metadata, and
        // the device may hold them in its cache until this flush).
        const [synced, beside] = await Promise.allSettled([handle.sync(), options.whileSyncing?.()]);
        if (synced.status === 'rejected') throw synced.reason;
        if (beside.status === 'rejected') throw beside.reason;
      } finally {
        await handle.close();
      }
      await this.renameTo(temp, this, name);
      created = false;
      await this.sync();
      return this.where(name);
    } catch (error) {
      if (created) await this.op(temp, (path) => unlink(path)).catch(() => {});
      throw outputError(error, this.where(name));
    }
  }

  /** Renames `name` here to `toName` in `to` (both by descriptor: renameat). */
  async renameTo(name: string, to: OutputDir, toName: string): Promise<void> {
    try {
      const from = await this.at(name);
      const target = await to.at(toName);
      await rename(from, target);
      if (!fdPaths.enabled) await Promise.all([this.verifyInPlace(), to.verifyInPlace()]);
    } catch (error) {
      throw outputError(error, to.where(toName));
    }
  }

  /**
   * Removes `name` and, if it is a real directory, everything below it, by descriptor at every level:
   * a subdirectory swapped for a link is unlinked as a link, never followed.
   */
  async remove(name: string): Promise<void> {
    let sub: OutputDir | null = null;
    try {
      sub = await this.openChild(name, false);
    } catch (error) {
      const errno = (error as ReMcpError).details?.errno;
      if (errno === 'ENOENT') return;
      if (errno !== 'ELOOP' && errno !== 'ENOTDIR') throw error;
    }
    if (sub === null) {
      // A file or a link: unlink the entry itself.
      await this.op(name, (path) => unlink(path)).catch((error: ReMcpError) => {
        if (error.details?.errno !== 'ENOENT') throw error;
      });
      return;
    }
    try {
      for (const entry of await sub.names()) await sub.remove(entry);
    } finally {
      await sub.close();
    }
    await this.op(name, (path) => rmdir(path)).catch((error: ReMcpError) => {
      if (error.details?.errno !== 'ENOENT') throw error;
    });
  }

  async sync(): Promise<void> {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
    await this.handle.sync().catch(() => {});
  }

  /**
   * Proves that the workspace path this directory was opened at still names it, through real
   * directories only. Refuses with `workspace-escape` when it was moved or replaced.
   */
  async verifyInPlace(): Promise<void> {
    const lexical = join(this.root, ...(this.relative ? this.relative.split('/') : []));
    const moved = () =>
      new ReMcpError('workspace-escape', `the output directory was moved or replaced: ${this.where()}`, {
        where: this.where(),
      });
    try {
      const [mine, named, real] = await Promise.all([this.handle.stat(), lstat(lexical), realpath(lexical)]);
      if (real !== lexical || mine.dev !== named.dev || mine.ino !== named.ino) throw moved();
    } catch (error) {
      if (error instanceof ReMcpError) throw error;
      throw moved();
    }
  }

  async close(): Promise<void> {
    await this.handle.close().catch(() => {});
  }
}
