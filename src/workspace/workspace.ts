// The workspace: the only part of the filesystem tools may read, and (below two fixed areas) write.
// Reads resolve symlinks and must land inside the root; writes go through directories that are
// real (no symlink component) so a planted link cannot redirect output.

import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, realpath, rename, rm, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { ReMcpError } from '../core/errors.js';
import { checkRelativePath } from './path-policy.js';

export const OUTPUT_AREAS = ['analysis/generated', 'output'] as const;
export type OutputArea = (typeof OUTPUT_AREAS)[number];

export interface ResolvedPath {
  /** Real absolute path (symlinks resolved). */
  absolute: string;
  /** Path relative to the workspace root, '/'-separated, as it is on disk after resolution. */
  relative: string;
}

export type EntryKind = 'file' | 'directory';

export class Workspace {
  constructor(readonly root: string) {}

  /** True when `absolute` is the root or lies below it. */
  contains(absolute: string): boolean {
    return (
      absolute === this.root || absolute.startsWith(this.root.endsWith(sep) ? this.root : this.root + sep)
    );
  }

  /** Resolves a caller's workspace-relative path to an existing entry of the given kind. */
  async resolveExisting(input: unknown, kind: EntryKind = 'file'): Promise<ResolvedPath> {
    const segments = checkRelativePath(input);
    const lexical = join(this.root, ...segments);
    let real: string;
    try {
      real = await realpath(lexical);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP')
        throw new ReMcpError('workspace-escape', 'the path runs into a symlink loop', { path: input });
      if (code === 'ENAMETOOLONG') throw new ReMcpError('workspace-escape', 'the path is too long', {});
      // A dangling link that points outside is an escape, not a missing file.
      await this.assertNoEscapingLink(segments);
      throw new ReMcpError('not-found', `no such file in the workspace: ${String(input)}`, { path: input });
    }
    if (!this.contains(real)) {
      throw new ReMcpError('workspace-escape', 'the path leaves the workspace (through a symlink)', {
        path: input,
      });
    }
    const info = await stat(real);
    if (kind === 'file' && !info.isFile())
      throw new ReMcpError('invalid-argument', `not a regular file: ${String(input)}`);
    if (kind === 'directory' && !info.isDirectory()) {
      throw new ReMcpError('invalid-argument', `not a directory: ${String(input)}`);
    }
    return { absolute: real, relative: relative(this.root, real).split(sep).join('/') };
  }

  /** Resolves a caller's path to a regular file and opens it for reading (see `openResolved`). */
  async openFile(input: unknown): Promise<{ resolved: ResolvedPath; handle: FileHandle }> {
    const resolved = await this.resolveExisting(input, 'file');
    return { resolved, handle: await this.openResolved(resolved) };
  }

  /**
   * Opens a resolved file for reading and proves that what was opened is still that file: the last
   * component is not followed, a FIFO or device cannot block the open, and the handle's device and
   * inode must be those the real path names now, with the real path unchanged. A path component
   * swapped for a symlink after resolution is refused, never read through.
   */
  async openResolved(resolved: ResolvedPath): Promise<FileHandle> {
    const changed = () =>
      new ReMcpError('workspace-escape', 'the path changed while it was being opened', {
        path: resolved.relative,
      });
    let handle: FileHandle;
    try {
      handle = await open(
        resolved.absolute,
        constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      );
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ELOOP' || code === 'ENOENT' || code === 'ENOTDIR') throw changed();
      throw error;
    }
    try {
      const [opened, named, real] = await Promise.all([
        handle.stat(),
        stat(resolved.absolute),
        realpath(resolved.absolute),
      ]).catch(() => {
        throw changed();
      });
      if (real !== resolved.absolute || opened.dev !== named.dev || opened.ino !== named.ino) throw changed();
      if (!opened.isFile())
        throw new ReMcpError('invalid-argument', `not a regular file: ${resolved.relative}`);
      return handle;
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  private async assertNoEscapingLink(segments: string[]): Promise<void> {
    let current = this.root;
    for (const segment of segments) {
      current = join(current, segment);
      try {
        const info = await lstat(current);
        if (info.isSymbolicLink()) {
          throw new ReMcpError(
            'workspace-escape',
            'the path goes through a symlink that cannot be resolved inside the workspace',
          );
        }
      } catch (error) {
        if (error instanceof ReMcpError) throw error;
        return;
      }
    }
  }

  /**
   * Creates (if needed) and returns a directory below one output area. `segments` are chosen by the
   * server, never by a caller, yet each is still checked, and every existing component must be a real
   * directory: a symlink anywhere on the way refuses the write.
   */
  async outputDir(area: OutputArea, segments: readonly string[]): Promise<string> {
    const all = [...area.split('/'), ...segments];
    for (const s of segments) checkRelativePath(s);
    let current = this.root;
    for (const segment of all) {
      current = join(current, segment);
      let info: Awaited<ReturnType<typeof lstat>> | null = null;
      try {
        info = await lstat(current);
      } catch {
        info = null;
      }
      if (info === null) {
        await mkdir(current).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'EEXIST') throw error;
        });
        info = await lstat(current);
      }
      if (info.isSymbolicLink() || !info.isDirectory()) {
        throw new ReMcpError(
          'workspace-escape',
          `output path component is not a real directory: ${relative(this.root, current)}`,
        );
      }
    }
    return current;
  }

  /**
   * Writes `data` to `dir/name` atomically: a temp file in the same directory, fsync, rename. `dir`
   * must lie below an output area, and must still be the real directory outputDir() returned when
   * the temp file has been created and again before the rename: a component swapped for a symlink in
   * the meantime refuses the write (and removes the temp file) instead of redirecting it.
   */
  async writeAtomic(
    dir: string,
    name: string,
    data: Uint8Array | string | AsyncIterable<Uint8Array>,
  ): Promise<string> {
    checkRelativePath(name);
    if (name.includes('/')) throw new ReMcpError('invalid-argument', 'an output name is one segment');
    const areas = OUTPUT_AREAS.map((area) => join(this.root, ...area.split('/')));
    if (!areas.some((area) => dir === area || dir.startsWith(area + sep)))
      throw new ReMcpError('workspace-escape', 'output directory outside analysis/generated/ and output/');
    const finalPath = join(dir, name);
    const tempPath = join(dir, `.${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await open(
      tempPath,
      constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW,
      0o644,
    );
    try {
      await this.assertUnchangedDirectory(dir);
      if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
      else {
        // Streamed content (a rebuilt ROM): written chunk by chunk, never held whole.
        for await (const chunk of data) {
          let done = 0;
          while (done < chunk.length) {
            const { bytesWritten } = await handle.write(chunk, done, chunk.length - done);
            done += bytesWritten;
          }
        }
      }
      await handle.sync();
    } catch (error) {
      await handle.close().catch(() => {});
      await rm(tempPath, { force: true });
      throw error;
    }
    await handle.close();
    try {
      await this.assertUnchangedDirectory(dir);
      await rename(tempPath, finalPath);
    } catch (error) {
      await rm(tempPath, { force: true });
      throw error;
    }
    await syncDirectory(dir);
    return finalPath;
  }

  /** `dir` (an outputDir() result, made of real directories) must still resolve to itself. */
  private async assertUnchangedDirectory(dir: string): Promise<void> {
    const real = await realpath(dir).catch(() => null);
    if (real !== dir) {
      throw new ReMcpError('workspace-escape', 'the output directory changed while it was being written', {
        dir: this.toRelative(dir),
      });
    }
  }

  /** Workspace-relative '/'-separated form of an absolute path inside the workspace. */
  toRelative(absolute: string): string {
    return relative(this.root, absolute).split(sep).join('/');
  }
}

export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY);
  try {
    await handle.sync();
  } catch {
    // Some filesystems refuse fsync on directories; the rename is still atomic.
  } finally {
    await handle.close();
  }
}
