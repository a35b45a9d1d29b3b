// Strict BLZ decoder. The stream is read from its end toward its start and the output is written from
// the end of the decoded image downward, exactly as the ARM9's own routine does, but every read and
// write is checked: a malformed blob throws ReMcpError('blz-malformed') instead of reading or writing
// out of range. Each token consumes at least one stream byte, so every loop ends.
//
// Termination follows the hardware routine: decoding stops when the stream is used up, and the output
// must then be exactly full. A stream that runs out first, or that would write below the compressed
// region (into the raw prefix), is rejected rather than guessed at.
//
// The 0xFF padding between stream and footer is not checked: the hardware routine skips it unread, so
// a blob with other padding still loads on a console and must still decode here.

import { ReMcpError } from '../../core/errors.js';
import { blzParseFooter } from './footer.js';

interface BlzDecodeOptions {
  /**
   * Also reject a blob that a console could not decode in place (the write pointer would overtake
   * stream bytes not yet read). Default false: a separate output buffer decodes such a blob fine.
   */
  inPlace?: boolean;
}

function malformed(message: string, details: Record<string, unknown>): ReMcpError {
  return new ReMcpError('blz-malformed', message, details);
}

/**
 * Decodes a BLZ blob. Not-coded blobs (extra size 0) return the blob minus its 4-byte zero footer,
 * padding included. Coded blobs return raw prefix + decoded region (blob length + extra size).
 */
export function blzDecode(blob: Uint8Array, options: BlzDecodeOptions = {}): Uint8Array {
  const footer = blzParseFooter(blob);
  // Always a fresh array (Buffer.slice would return a view sharing the caller's memory).
  if (!footer.coded) return Uint8Array.from(blob.subarray(0, footer.decodedLength));

  const start = footer.rawPrefixLength;
  const size = footer.decodedLength;
  const out = new Uint8Array(size);
  out.set(blob.subarray(0, start));
  const inPlace = options.inPlace === true;

  let read = blob.length - footer.headerLength;
  let write = size;
  while (read > start) {
    let flags = blob[--read]!;
    if (read === start) throw malformed('BLZ stream ends right after a flag byte', { offset: read });
    for (let bit = 0; bit < 8 && read > start; bit++, flags <<= 1) {
      if ((flags & 0x80) === 0) {
        if (write <= start)
          throw malformed('BLZ literal writes below the compressed region', { offset: read });
        out[--write] = blob[--read]!;
      } else {
        if (read - start < 2)
          throw malformed('BLZ match token is cut off by the stream start', { offset: read });
        const high = blob[--read]!;
        const low = blob[--read]!;
        const length = (high >>> 4) + 3;
        const distance = (((high & 0xf) << 8) | low) + 3;
        if (write - length < start) {
          throw malformed('BLZ match writes below the compressed region', { offset: read, length });
        }
        if (write - 1 + distance >= size) {
          throw malformed('BLZ match copies from beyond the end of the output', { offset: read, distance });
        }
        // Byte by byte and downward: overlapping copies (length > distance) repeat, as on hardware.
        for (let i = 0; i < length; i++, write--) out[write - 1] = out[write - 1 + distance]!;
      }
      if (inPlace && write < read) {
        throw malformed('BLZ blob cannot be decoded in place: output overtakes unread input', {
          offset: read,
          write,
        });
      }
    }
  }
  if (write !== start) {
    throw malformed(`BLZ stream ends with ${write - start} bytes of output not produced`, {
      missing: write - start,
    });
  }
  return out;
}
