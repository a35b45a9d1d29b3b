// File allocation table: 8 bytes per file ID (start, end exclusive). Authoritative for physical
// byte ranges; every entry is kept, whether or not anything names it. The writer is the exact
// inverse of the reader.
import { putU32, u32 } from '../../le.js';

export interface RawFatEntry {
  start: number;
  end: number;
}

export const FAT_ENTRY_SIZE = 8;
/** File IDs at or above 0xF000 are directory IDs, so a FAT never holds more entries than this. */
export const MAX_FAT_ENTRIES = 0xf000;

export function parseRawFat(bytes: Uint8Array): RawFatEntry[] {
  const count = Math.floor(bytes.length / FAT_ENTRY_SIZE);
  const entries: RawFatEntry[] = new Array(count);
  for (let i = 0; i < count; i++) {
    entries[i] = { start: u32(bytes, i * FAT_ENTRY_SIZE), end: u32(bytes, i * FAT_ENTRY_SIZE + 4) };
  }
  return entries;
}

export function writeRawFat(entries: readonly RawFatEntry[]): Uint8Array {
  const out = new Uint8Array(entries.length * FAT_ENTRY_SIZE);
  entries.forEach((entry, i) => {
    putU32(out, i * FAT_ENTRY_SIZE, entry.start);
    putU32(out, i * FAT_ENTRY_SIZE + 4, entry.end);
  });
  return out;
}
