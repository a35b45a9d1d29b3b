// The workspace: the only part of the filesystem tools may read, and (below two fixed areas) write.
// Reads resolve symlinks and must land inside the root; writes go through directories that are
// real (no symlink component) so a planted link cannot redirect output.

import { constants } from 'node:fs';
import { type FileHandle, lstat, open, readlink, realpath, stat } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { ReMcpError } from '../core/errors.js';
import { OutputDir } from './output-dir.js';
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

  /** A caller's workspace-relative path joined to the root, checked but not resolved (links not followed). */
  lexicalPath(input: unknown): string {
    return join(this.root, ...checkRelativePath(input));
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
      // A dangling link that points outside is an escape; one pointing inside is a missing file.
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
          // A dangling link whose target would be inside is just a missing file.
          const target = resolve(dirname(current), await readlink(current));
          if (this.contains(target)) return;
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
   * Opens (creating what is missing) a directory below one output area, held by descriptor: every
   * component must be a real directory (a symlink anywhere on the way refuses the write), and all later
   * writes go through the returned handle, so swapping a component afterwards cannot redirect them.
   * `segments` are chosen by the server, never by a caller, yet each is still checked. Close it after use.
   */
  async outputDir(area: OutputArea, segments: readonly string[]): Promise<OutputDir> {
    if (!OUTPUT_AREAS.includes(area)) throw new ReMcpError('workspace-escape', 'not an output area');
    return OutputDir.open(this.root, [...area.split('/'), ...segments]);
  }

  /** Workspace-relative '/'-separated form of an absolute path inside the workspace. */
  toRelative(absolute: string): string {
    return relative(this.root, absolute).split(sep).join('/');
  }
}
