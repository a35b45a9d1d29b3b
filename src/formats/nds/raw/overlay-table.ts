// Overlay table: 32 bytes per overlay. The last word packs the compressed size (low 24 bits) with
// flags (bit 0 compressed, bit 1 verify-hash) in the high byte.
import { u32 } from './byte-source.js';

export const OVERLAY_ENTRY_SIZE = 32;

export interface RawOverlayEntry {
  id: number;
  ramAddress: number;
  ramSize: number;
  bssSize: number;
  staticInitStart: number;
  staticInitEnd: number;
  fileId: number;
  compressedSize: number;
  flags: number;
}

export function parseRawOverlayTable(bytes: Uint8Array): RawOverlayEntry[] {
  const count = Math.floor(bytes.length / OVERLAY_ENTRY_SIZE);
  const entries: RawOverlayEntry[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const at = i * OVERLAY_ENTRY_SIZE;
    const packed = u32(bytes, at + 28);
    entries[i] = {
      id: u32(bytes, at),
      ramAddress: u32(bytes, at + 4),
      ramSize: u32(bytes, at + 8),
      bssSize: u32(bytes, at + 12),
      staticInitStart: u32(bytes, at + 16),
      staticInitEnd: u32(bytes, at + 20),
      fileId: u32(bytes, at + 24),
      compressedSize: packed & 0xffffff,
      flags: packed >>> 24,
    };
  }
  return entries;
}
