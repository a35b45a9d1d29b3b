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
 * How streamed content is written. Fixed in production; tests shrink the flush interval to force many
 * flushes on a small file (the bench may try other values).
 */
export const streamWriting = {
  /** Positioned writes running at once while the producer makes the next chunk. */
  writesInFlight: 2,
  /**
   * A background fdatasync of what has been written so far is started every this many bytes (at most
   * one at a time, never awaited before the next writes): the disk writes back while the producer
   * keeps reading and hashing, and the fsync that makes the file durable before its rename waits only
   * for the tail. Without it that fsync writes the whole file back after the last write.
   */
  earlyFlushBytes: 64 * 1024 * 1024,
  /** Whether a caller's `direct` request is honoured (tests turn it off to compare the two paths). */
  direct: true,
};

/** What writeStream needs of a file handle (tests substitute one that fails on cue). */
export type StreamTarget = Pick<FileHandle, 'write' | 'datasync'>;

/**
 * Direct (O_DIRECT) writes: the bytes go from the chunk's memory to the disk, with no copy into the page
 * cache and nothing left for writeback. On the 2-core development machine that copy and its writeback
 * cost as much CPU as the rest of a 256 MiB rebuild besides SHA-256, and competed with the hash for
 * the cores; written directly, the build takes about as long as hashing its output (issue 15 bench).
 * Durability is unchanged: the fsync before the rename still commits the file's metadata and flushes
 * the device's write cache. A direct write needs memory, file position and length aligned to the
 * device's block; JS cannot ask malloc for alignment, but WebAssembly memory is page-aligned, so only
 * chunks in buffers from alignedBuffer() are written directly; anything else (and any chunk the file
 * system refuses, EINVAL) goes through the page cache.
 */
export const DIRECT_ALIGNMENT = 4096;
const alignedBuffers = new WeakSet<ArrayBufferLike>();

/** A page-aligned buffer of at least `bytes` bytes that writeStream may write directly. */
export function alignedBuffer(bytes: number): ArrayBuffer {
  const pages = Math.max(1, Math.ceil(bytes / 65_536));
  const wasm = (globalThis as unknown as { WebAssembly?: WasmMemoryFactory }).WebAssembly;
  // Without WebAssembly (node --jitless) an ordinary buffer: its chunks go through the page cache.
  if (!wasm) return new ArrayBuffer(bytes);
  const buffer = new wasm.Memory({ initial: pages, maximum: pages }).buffer;
  alignedBuffers.add(buffer);
  return buffer;
}
interface WasmMemoryFactory {
  Memory: new (descriptor: { initial: number; maximum: number }) => { buffer: ArrayBuffer };
}

/** How many leading bytes of `chunk` at `position` may be written directly (a multiple of the alignment). */
function directPrefix(chunk: Uint8Array, position: number): number {
  if (!alignedBuffers.has(chunk.buffer)) return 0;
  if (chunk.byteOffset % DIRECT_ALIGNMENT !== 0 || position % DIRECT_ALIGNMENT !== 0) return 0;
  // The rest (under one block, at a block boundary: no page shared with the direct part) is buffered.
  return chunk.length - (chunk.length % DIRECT_ALIGNMENT);
}

async function writeAt(handle: StreamTarget, chunk: Uint8Array, position: number): Promise<void> {
  let done = 0;
  // Bounded: a short write is continued from where it stopped; each pass writes at least one byte.
  while (done < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, done, chunk.length - done, position + done);
    if (bytesWritten <= 0) throw new Error('the write made no progress');
    done += bytesWritten;
  }
}

/**
 * Writes the chunks in order at increasing positions. Up to `writesInFlight` writes run while the
 * producer makes the next chunk (reading and hashing overlap the writing), beside at most one early
 * flush; the first failure (a write's or a flush's) stops the stream and is thrown once every write and
 * flush already started has settled, so no work on the file outlives the call.
 *
 * `direct`, when given, is the same file opened with O_DIRECT: aligned chunks are written through it
 * (see DIRECT_ALIGNMENT). If it refuses a write as invalid, that write and every later one go through
 * `handle`. Early flushes count only the bytes written through the page cache: direct bytes are
 * already on the device.
 */
export async function writeStream(
  handle: StreamTarget,
  chunks: AsyncIterable<Uint8Array>,
  onWritten?: (chunk: Uint8Array) => void,
  direct?: StreamTarget | null,
): Promise<void> {
  const pending = new Set<Promise<void>>();
  let failure: { error: unknown } | null = null;
  const track = (work: Promise<void>) => {
    const settled: Promise<void> = work.then(
      () => {
        pending.delete(settled);
      },
      (error: unknown) => {
        pending.delete(settled);
        failure ??= { error };
      },
    );
    pending.add(settled);
  };
  let position = 0;
  /** Bytes handed to the page cache (not written directly) so far, and when the last flush began. */
  let buffered = 0;
  let flushed = 0;
  let flushing = false;
  let directTarget = direct ?? null;
  const writeDirect = async (chunk: Uint8Array, position: number): Promise<void> => {
    if (directTarget !== null) {
      try {
        await writeAt(directTarget, chunk, position);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
        directTarget = null;
      }
    }
    buffered += chunk.length;
    await writeAt(handle, chunk, position);
  };
  const writeChunk = (chunk: Uint8Array, position: number): Promise<void> => {
    const prefix = directTarget === null ? 0 : directPrefix(chunk, position);
    if (prefix === 0) {
      buffered += chunk.length;
      return writeAt(handle, chunk, position);
    }
    const parts = [writeDirect(chunk.subarray(0, prefix), position)];
    if (prefix < chunk.length) {
      buffered += chunk.length - prefix;
      parts.push(writeAt(handle, chunk.subarray(prefix), position + prefix));
    }
    return Promise.all(parts).then(() => {});
  };
  const { writesInFlight, earlyFlushBytes } = streamWriting;
  try {
    for await (const chunk of chunks) {
      track(writeChunk(chunk, position).then(() => onWritten?.(chunk)));
      position += chunk.length;
      // One flush at a time, never counted against the writes in flight.
      if (buffered - flushed >= earlyFlushBytes && !flushing) {
        flushed = buffered;
        flushing = true;
        track(
          handle.datasync().finally(() => {
            flushing = false;
          }),
        );
      }
      while (pending.size - (flushing ? 1 : 0) >= writesInFlight && failure === null) {
        await Promise.race(pending);
      }
      if (failure) break;
    }
  } finally {
    await Promise.all(pending);
  }
  if (failure) throw (failure as { error: unknown }).error;
}

/**
 * The temp file `handle` opened a second time with O_DIRECT, through its own descriptor (the magic
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
   */
  async writeAtomic(
    name: string,
    data: Uint8Array | string | AsyncIterable<Uint8Array>,
    options: { onWritten?: (chunk: Uint8Array) => void; direct?: boolean } = {},
  ): Promise<string> {
    checkRelativePath(name);
    if (name.includes('/')) throw new ReMcpError('invalid-argument', 'an output name is one segment');
    const temp = `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    let created = false;
    try {
      const handle = await this.op(temp, (path) =>
        open(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o644),
      );
      created = true;
      try {
        if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
        else {
          const direct = options.direct && streamWriting.direct ? await openDirect(handle) : null;
          try {
            await writeStream(handle, data, options.onWritten, direct);
          } finally {
            await direct?.close();
          }
        }
        // Makes every byte durable, those written directly included (their extents are metadata, and
        // the device may hold them in its cache until this flush).
        await handle.sync();
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
