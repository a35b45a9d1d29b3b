// FAT writer: the exact inverse of parseRawFat (8 bytes per entry, start then end).
import type { RawFatEntry } from './fat.js';
import { FAT_ENTRY_SIZE } from './fat.js';
import { putU32 } from './le.js';

export function writeRawFat(entries: readonly RawFatEntry[]): Uint8Array {
  const out = new Uint8Array(entries.length * FAT_ENTRY_SIZE);
  entries.forEach((entry, i) => {
    putU32(out, i * FAT_ENTRY_SIZE, entry.start);
    putU32(out, i * FAT_ENTRY_SIZE + 4, entry.end);
  });
  return out;
}
