// Streaming SHA-256 of a file: bounded memory whatever the size, cancellable between chunks.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { throwIfCancelled } from '../core/errors.js';

const CHUNK = 4 * 1024 * 1024;

export async function sha256File(
  path: string,
  options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void } = {},
): Promise<{ sha256: string; size: number }> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const hash = createHash('sha256');
    const buffer = Buffer.allocUnsafe(Math.min(CHUNK, Math.max(size, 1)));
    let done = 0;
    for (;;) {
      throwIfCancelled(options.signal);
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      done += bytesRead;
      options.onProgress?.(done, size);
    }
    return { sha256: hash.digest('hex'), size: done };
  } finally {
    await handle.close();
  }
}
