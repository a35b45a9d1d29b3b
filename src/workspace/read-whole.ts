// Reading an opened file whole: the bytes up to `size` (its size when it was checked), fewer when the
// file ends sooner (it shrank meanwhile: the caller decides what that means).
import type { FileHandle } from 'node:fs/promises';

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
