// CRC-32 for the rebuild's passes over whole ROMs: zlib's native one where this Node has it (Node 20.15
// and later), else the table-driven one of formats/crc32.ts (the same checksum, slower).
import * as zlib from 'node:zlib';
import { crc32 } from '../formats/crc32.js';

export const fastCrc32: (bytes: Uint8Array, crc?: number) => number =
  (zlib as { crc32?: (b: Uint8Array, c?: number) => number }).crc32 ?? crc32;
