// Overlay table writer: the exact inverse of parseRawOverlayTable (compressed size and flags packed
// back into the last word).
import { putU32 } from './le.js';
import { OVERLAY_ENTRY_SIZE, type RawOverlayEntry } from './overlay-table.js';

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
