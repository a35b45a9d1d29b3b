// Overlay table: 32 bytes per overlay. The last word packs the compressed size (low 24 bits) with
// flags (bit 0 compressed, bit 1 verify-hash) in the high byte. The writer is the exact inverse of
// the reader (compressed size and flags packed back into the last word).
import { putU32, u32 } from '../../le.js';

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

export function writeRawOverlayTable(entries: readonly RawOverlayEntry[]): Uint8Array {
  const out = new Uint8Array(entries.length * OVERLAY_ENTRY_SIZE);
  entries.forEach((e, i) => {
    const at = i * OVERLAY_ENTRY_SIZE;
    putU32(out, at, e.id);
    putU32(out, at + 4, e.ramAddress);
    putU32(out, at + 8, e.ramSize);
    putU32(out, at + 12, e.bssSize);
    putU32(out, at + 16, e.staticInitStart);
    putU32(out, at + 20, e.staticInitEnd);
    putU32(out, at + 24, e.fileId);
    putU32(out, at + 28, ((e.flags & 0xff) << 24) | (e.compressedSize & 0xffffff));
  });
  return out;
}
