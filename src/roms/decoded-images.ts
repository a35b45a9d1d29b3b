// Runtime images of code components: the stored bytes for uncompressed ones (with their ROM offset),
// or the BLZ-decoded bytes for a compressed overlay / compressed main ARM9 (derived: romOffset null).
// Decoded images are cached by ROM identity, within a byte budget, and only after the ROM was
// re-verified, so a cache entry can never hold bytes of a file that changed while it was read.
import { ReMcpError } from '../core/errors.js';
import type { Processor } from '../core/vocabulary.js';
import { blzDecode } from '../formats/blz/index.js';
import type { RomHandle } from './rom-handle.js';

export interface RuntimeImage {
  processor: Processor;
  component: 'main' | 'overlay';
  overlayId: number | null;
  ramAddress: number;
  bytes: Uint8Array;
  /** ROM offset of bytes[0] when the bytes are stored one-to-one; null for decoded (derived) bytes. */
  romOffset: number | null;
  derived: boolean;
}

/** Total decoded bytes kept; the oldest images are dropped beyond it. */
const DECODED_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Bytes of one code component image (read or decoded whole). Twice the DSi's 16 MiB main RAM: real
 * code always fits, while a header claiming a gigabyte "ARM7" cannot make every call read it all.
 */
export const CODE_IMAGE_LIMITS = {
  sourceComponentBytes: { max: 32 * 1024 * 1024, unit: 'bytes of one code component (stored or decoded)' },
} as const;

function checkImageSize(what: string, bytes: number): void {
  const max = CODE_IMAGE_LIMITS.sourceComponentBytes.max;
  if (bytes > max) {
    throw new ReMcpError(
      'limit-exceeded',
      `${what} is ${bytes} bytes, over the ${max}-byte code image limit`,
      {
        bytes,
        max,
      },
    );
  }
}

export class DecodedImageCache {
  private readonly images = new Map<string, Uint8Array>();
  private bytes = 0;

  /**
   * The runtime image of the main executable (overlayId null) or of one overlay. `tableIndex` names
   * the record when the table repeats the overlay ID (without it a repeated ID is refused).
   */
  async runtimeImage(
    rom: RomHandle,
    processor: Processor,
    overlayId: number | null,
    signal?: AbortSignal,
    tableIndex?: number,
  ): Promise<RuntimeImage> {
    const model = rom.model;
    if (overlayId === null) {
      const exe = model[processor];
      const base = { processor, component: 'main' as const, overlayId: null, ramAddress: exe.ramAddress };
      checkImageSize(`the ${processor} main executable`, exe.decodedSize ?? exe.size);
      if (!exe.compressed)
        return {
          ...base,
          bytes: rom.readBytes(exe.romOffset, exe.size),
          romOffset: exe.romOffset,
          derived: false,
        };
      if (exe.decodedSize === null) {
        throw new ReMcpError('blz-malformed', 'the compressed ARM9 has no usable BLZ footer', { processor });
      }
      const blobLength = model.moduleParams.compressedStaticEnd! - exe.ramAddress;
      const bytes = await this.decode(
        rom,
        `${processor}:main`,
        exe.romOffset,
        blobLength,
        exe.decodedSize,
        signal,
      );
      return { ...base, bytes, romOffset: null, derived: true };
    }
    const matches = model.overlays[processor].filter(
      (o) => o.id === overlayId && (tableIndex === undefined || o.tableIndex === tableIndex),
    );
    if (matches.length === 0)
      throw new ReMcpError('not-found', `${processor} has no overlay ${overlayId}`, { overlayId });
    if (matches.length > 1) {
      throw new ReMcpError(
        'invalid-argument',
        `${processor} overlay ID ${overlayId} appears ${matches.length} times`,
      );
    }
    const overlay = matches[0]!;
    const base = { processor, component: 'overlay' as const, overlayId, ramAddress: overlay.ramAddress };
    if (!overlay.compressed) {
      const length = overlay.fileBacked!.end - overlay.fileBacked!.start;
      checkImageSize(`${processor} overlay ${overlayId}`, length);
      return {
        ...base,
        bytes: rom.readBytes(overlay.file.start, length),
        romOffset: overlay.file.start,
        derived: false,
      };
    }
    const key = `${processor}:overlay:${overlay.tableIndex}`;
    const blobLength = overlay.file.end - overlay.file.start;
    checkImageSize(`${processor} overlay ${overlayId}`, Math.max(blobLength, overlay.ramSize));
    const bytes = await this.decode(rom, key, overlay.file.start, blobLength, overlay.ramSize, signal);
    return { ...base, bytes, romOffset: null, derived: true };
  }

  private async decode(
    rom: RomHandle,
    component: string,
    romOffset: number,
    blobLength: number,
    runtimeLength: number,
    signal?: AbortSignal,
  ): Promise<Uint8Array> {
    const key = `${rom.identity.sha256}:${component}`;
    const cached = this.images.get(key);
    if (cached) return cached;
    const blob = rom.readBytes(romOffset, blobLength);
    await rom.verifyUnchanged(signal);
    const decoded = blzDecode(blob);
    // A not-coded blob decodes with its padding: the table's length is the truth, never less.
    if (decoded.length < runtimeLength) {
      throw new ReMcpError(
        'blz-malformed',
        `${component} decodes to ${decoded.length} bytes, fewer than ${runtimeLength}`,
      );
    }
    const image = decoded.subarray(0, runtimeLength);
    this.images.set(key, image);
    this.bytes += image.length;
    // Evict oldest first; bounded by the number of entries.
    for (const [k, v] of this.images) {
      if (this.bytes <= DECODED_CACHE_BYTES || this.images.size <= 1) break;
      this.images.delete(k);
      this.bytes -= v.length;
    }
    return image;
  }
}
