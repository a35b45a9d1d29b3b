// The one way the server reads a small file it did not write (git metadata, the checks config,
// RetroArch screenshots, ...): never follows a final symlink, opens non-blocking (a FIFO or device can
// neither block the open nor be read), requires a regular file, caps the size before and during the
// read, and gives up at a deadline. A FIFO, a link to /dev/zero or a huge file therefore costs one
// open and one fstat, never a blocked libuv worker or gigabytes of memory.
import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { ReMcpError } from './errors.js';

const SMALL_FILE_LIMITS = {
  deadlineMs: { default: 2_000, max: 30_000, unit: 'ms' },
} as const;

interface SmallFileOptions {
  /** Largest accepted size; a larger file is refused with limit-exceeded. */
  maxBytes: number;
  /** How the file is named in errors (never an absolute path the caller did not give). */
  label: string;
  deadlineMs?: number;
  signal?: AbortSignal;
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

function typed(error: unknown, label: string): ReMcpError {
  if (error instanceof ReMcpError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new ReMcpError('not-found', `${label} does not exist`);
  if (code === 'ELOOP')
    return new ReMcpError('invalid-argument', `${label} is a symbolic link; it is not followed`);
  if (code === 'EACCES' || code === 'EPERM')
    return new ReMcpError('invalid-argument', `${label} is not readable`);
  return new ReMcpError('invalid-argument', `${label} could not be read (${code ?? 'error'})`);
}

/**
 * Reads the whole of the open regular file `handle`, of at most `maxBytes`: the size is checked before
 * the read, and the read stops one byte past the cap, so a file that grew past it meanwhile is refused,
 * never truncated. `tooLarge` words the refusal of a file already over the cap (default: the label,
 * its size and the cap). Errors are ReMcpErrors or the file system's own.
 */
export async function readOpenFile(
  handle: FileHandle,
  options: { maxBytes: number; label: string; tooLarge?: (size: number) => string },
): Promise<Buffer> {
  const { maxBytes, label } = options;
  const info = await handle.stat();
  if (!info.isFile()) throw new ReMcpError('invalid-argument', `${label} is not a regular file`);
  if (info.size > maxBytes) {
    throw new ReMcpError(
      'limit-exceeded',
      options.tooLarge?.(info.size) ?? `${label} is ${info.size} bytes; at most ${maxBytes} are read`,
      { size: info.size, max: maxBytes },
    );
  }
  // One byte more than allowed: a file that grew past the cap since fstat is refused, not truncated.
  const buffer = Buffer.alloc(Math.min(info.size, maxBytes) + 1);
  let filled = 0;
  while (filled < buffer.length) {
    const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  if (filled > maxBytes) {
    throw new ReMcpError('limit-exceeded', `${label} grew past ${maxBytes} bytes while read`);
  }
  return buffer.subarray(0, filled);
}

async function readBounded(path: string, options: SmallFileOptions): Promise<Buffer> {
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (error) {
    throw typed(error, options.label);
  }
  try {
    return await readOpenFile(handle, options);
  } catch (error) {
    throw typed(error, options.label);
  } finally {
    await handle.close().catch(() => {});
  }
}

/** Reads a small regular file under every bound above; typed errors only. */
export async function readSmallFile(path: string, options: SmallFileOptions): Promise<Buffer> {
  const deadlineMs = Math.min(
    options.deadlineMs ?? SMALL_FILE_LIMITS.deadlineMs.default,
    SMALL_FILE_LIMITS.deadlineMs.max,
  );
  if (options.signal?.aborted) throw new ReMcpError('cancelled', 'the operation was cancelled by the client');
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const bounds = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ReMcpError('timeout', `reading ${options.label} took over ${deadlineMs} ms`)),
      deadlineMs,
    );
    onAbort = () => reject(new ReMcpError('cancelled', 'the operation was cancelled by the client'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
  });
  const read = readBounded(path, options);
  // A read abandoned at the deadline still settles later; nothing may observe it as unhandled.
  read.catch(() => {});
  try {
    return await Promise.race([read, bounds]);
  } finally {
    clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
  }
}
