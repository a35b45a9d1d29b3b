// Reading an opened file whole: the bytes up to `size` (its size when it was checked), fewer when the
// file ends sooner (it shrank meanwhile: the caller decides what that means). readWholeHashed also
// takes the SHA-256 of a prefix as the pieces arrive: each piece is hashed while the next is read.
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { throwIfCancelled } from '../core/errors.js';

export async function readWhole(handle: FileHandle, size: number): Promise<Buffer> {
  const bytes = Buffer.alloc(size);
  let at = 0;
  while (at < size) {
    const { bytesRead } = await handle.read(bytes, at, size - at, at);
    if (bytesRead === 0) break;
    at += bytesRead;
  }
  return at === size ? bytes : bytes.subarray(0, at);
}

/** Bytes one read of readWholeHashed asks for (the hash of one takes about as long as the next read). */
const HASHED_READ_PIECE = 4 << 20;

/**
 * The bytes of the file up to `size` (fewer when it ends sooner) and the SHA-256 (hex) of its first
 * `hashed` bytes (of all it read, when fewer). The pieces are read in order, one read in flight while
 * the piece before it is hashed; the event loop runs between pieces, and `signal` is checked there.
 */
export async function readWholeHashed(
  handle: FileHandle,
  size: number,
  hashed: number,
  signal?: AbortSignal,
  piece = HASHED_READ_PIECE,
): Promise<{ bytes: Buffer; sha256: string }> {
  // Every byte returned is read first (no zero fill); a shorter file's unread rest is zeroed below.
  const bytes = Buffer.allocUnsafe(size);
  const hash = createHash('sha256');
  const readPiece = async (at: number): Promise<number> => {
    const end = Math.min(size, at + piece);
    let done = at;
    while (done < end) {
      const { bytesRead } = await handle.read(bytes, done, end - done, done);
      if (bytesRead === 0) break;
      done += bytesRead;
    }
    return done;
  };
  let hashedTo = 0;
  let at = 0;
  let next: Promise<number> | null = size > 0 ? readPiece(0) : null;
  try {
    while (next !== null) {
      const end = await next;
      throwIfCancelled(signal);
      const full = end === Math.min(size, at + piece);
      next = full && end < size ? readPiece(end) : null;
      const upTo = Math.min(hashed, end);
      if (upTo > hashedTo) hash.update(bytes.subarray(hashedTo, upTo));
      hashedTo = Math.max(hashedTo, upTo);
      at = end;
      if (!full) break;
    }
  } finally {
    // Stopped early (cancelled, or a read failed): the read in flight ends unobserved.
    next?.catch(() => {});
  }
  if (at === size) return { bytes, sha256: hash.digest('hex') };
  // Cut to what was read; the memory past it (shared by the cut view) holds nothing old.
  bytes.fill(0, at);
  return { bytes: bytes.subarray(0, at), sha256: hash.digest('hex') };
}
