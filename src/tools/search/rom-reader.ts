// File access for a search: one read-only descriptor per call, streamed reads for the scan (async, so
// they run in the thread pool while the previous chunk is matched) and small synchronous reads for
// context bytes. Kept out of src/search so the search core stays free of the filesystem.
import { readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { ChunkReader } from '../../search/scan.js';

export interface RomReader {
  readChunk: ChunkReader;
  readBytes(offset: number, length: number): Uint8Array;
  close(): Promise<void>;
}

export async function openRomReader(absolute: string): Promise<RomReader> {
  const handle = await open(absolute, 'r');
  return {
    async readChunk(into, position) {
      let done = 0;
      // Bounded: every pass reads at least one byte or stops at the end of the file.
      while (done < into.length) {
        const { bytesRead } = await handle.read(into, done, into.length - done, position + done);
        if (bytesRead === 0) break;
        done += bytesRead;
      }
      return done;
    },
    readBytes(offset, length) {
      const out = new Uint8Array(length);
      let done = 0;
      while (done < length) {
        const n = readSync(handle.fd, out, done, length - done, offset + done);
        if (n === 0) break;
        done += n;
      }
      return out.subarray(0, done);
    },
    close: () => handle.close(),
  };
}
