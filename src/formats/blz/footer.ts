// The BLZ footer: the last 8 bytes of a blob say how much of it is compressed and how much larger the
// decoded image is. Parsed on its own so callers (ROM model, overlay table checks) can validate a blob
// without decoding it, and so the decoder and the tests share one definition of "well formed".

import { ReMcpError } from '../../core/errors.js';
import { u32 } from '../le.js';

/** Smallest and largest header length (footer + 0xFF padding) a coded blob may declare. */
export const BLZ_MIN_HEADER = 8;
export const BLZ_MAX_HEADER = 11;
/** The compressed length is a 24-bit field. */
export const BLZ_MAX_COMPRESSED = 0xffffff;
/** One stream byte decodes to at most 144/17 bytes (flag + 8 matches of 18); 9 is a safe upper bound. */
const BLZ_MAX_EXPANSION = 9;

interface BlzFooter {
  /** false for a "not coded" blob (extra size 0): raw bytes, padded to 4, then 4 zero bytes. */
  coded: boolean;
  /** Bytes at the end of the blob that are compressed, including the header (0 when not coded). */
  compressedLength: number;
  /** Footer (8) plus the padding before it: 8..11 (0 when not coded). */
  headerLength: number;
  /** Decoded length minus blob length (0 when not coded). */
  extraSize: number;
  /**
   * Length blzDecode returns: blob length + extra size when coded; blob length - 4 when not coded
   * (that still includes the raw data's padding to 4 bytes: trim to the length you know).
   */
  decodedLength: number;
  /** Leading bytes copied verbatim (blob length - compressed length; the whole data when not coded). */
  rawPrefixLength: number;
}

function malformed(message: string, details: Record<string, unknown>): ReMcpError {
  return new ReMcpError('blz-malformed', message, details);
}

/** Parses and validates the footer; throws ReMcpError('blz-malformed') when it cannot be a BLZ blob. */
export function blzParseFooter(blob: Uint8Array): BlzFooter {
  const length = blob.length;
  if (length < 4) throw malformed(`BLZ blob is ${length} bytes; even a not-coded blob has 4`, { length });
  const extraSize = u32(blob, length - 4);
  if (extraSize === 0) {
    return {
      coded: false,
      compressedLength: 0,
      headerLength: 0,
      extraSize: 0,
      decodedLength: length - 4,
      rawPrefixLength: length - 4,
    };
  }
  if (length < BLZ_MIN_HEADER) {
    throw malformed(`BLZ blob is ${length} bytes, shorter than its 8-byte footer`, { length });
  }
  const word = u32(blob, length - 8);
  const headerLength = word >>> 24;
  const compressedLength = word & BLZ_MAX_COMPRESSED;
  if (headerLength < BLZ_MIN_HEADER || headerLength > BLZ_MAX_HEADER) {
    throw malformed(`BLZ header length ${headerLength} is outside 8..11`, { headerLength });
  }
  if (compressedLength < headerLength) {
    throw malformed(`BLZ compressed length ${compressedLength} is less than header length ${headerLength}`, {
      compressedLength,
      headerLength,
    });
  }
  if (compressedLength > length) {
    throw malformed(`BLZ compressed length ${compressedLength} exceeds the blob length ${length}`, {
      compressedLength,
      length,
    });
  }
  const streamLength = compressedLength - headerLength;
  const decodedRegion = compressedLength + extraSize;
  // A 1-byte footer field can claim gigabytes; refuse what the stream cannot possibly produce
  // before anything allocates for it.
  if (decodedRegion > streamLength * BLZ_MAX_EXPANSION) {
    throw malformed(`BLZ extra size ${extraSize} is more than a ${streamLength}-byte stream can decode to`, {
      extraSize,
      streamLength,
    });
  }
  return {
    coded: true,
    compressedLength,
    headerLength,
    extraSize,
    decodedLength: length + extraSize,
    rawPrefixLength: length - compressedLength,
  };
}

/** True when the footer parses as a coded blob. A hint only: raw data can look coded by chance. */
export function blzIsCodedFooter(blob: Uint8Array): boolean {
  try {
    return blzParseFooter(blob).coded;
  } catch {
    return false;
  }
}
