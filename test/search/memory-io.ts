// In-memory reads for the search tests: the scan's chunk reader and a whole SearchIo over one buffer.
import type { ChunkReader } from '../../src/search/scan.js';
import type { SearchIo } from '../../src/search/search.js';

/** Reads chunks straight from `data`; `log` records every (position, length) asked for. */
export function bufferReader(data: Uint8Array, log?: Array<[number, number]>): ChunkReader {
  return async (into, position) => {
    log?.push([position, into.length]);
    const piece = data.subarray(position, position + into.length);
    into.set(piece);
    return piece.length;
  };
}

export function memoryIo(data: Uint8Array): SearchIo {
  return {
    romSize: data.length,
    readChunk: bufferReader(data),
    readBytes: (offset, length) => data.slice(offset, offset + length),
  };
}
