// BLZ encoder: optimal parse (parse.ts) over exact longest matches (match.ts), then the blob layout:
//   [raw prefix][stream, read backward][0xFF padding to 4][u32 compressed length | header << 24][u32 extra]
// Falls back to a "not coded" blob (data, zero padding to 4, u32 0) whenever coding would not make
// the blob smaller, so every input, including empty and incompressible ones, gets a valid blob.

import { ReMcpError } from '../../core/errors.js';
import { putU32 } from '../le.js';
import { blzDecode } from './decode.js';
import { BLZ_MIN_HEADER } from './footer.js';
import { findMatchesSteps } from './match.js';
import { optimalParseSteps } from './parse.js';

interface BlzEncodeOptions {
  /** Leading bytes to keep raw whatever the gain (a compressed ARM9 keeps 0x4000). Default 0. */
  prefixLength?: number;
}

/**
 * Most bytes considered for compression: memory is ~15 bytes per input byte, and the compressed
 * length field has 24 bits anyway. Anything before the last 16 MiB stays in the raw prefix.
 */
const BLZ_MAX_CODED_REGION = 16 * 1024 * 1024;

const align4 = (n: number): number => (n + 3) & ~3;

/**
 * Encodes `data` into the smallest BLZ blob this model allows: exact longest matches, an exact
 * byte-optimal parse, and the best point to stop compressing. The blob decodes in place (the way a
 * console decodes an ARM9 or overlay) and is checked to do so before it is returned.
 *
 * The result may be "not coded" (check blzParseFooter(blob).coded): such a blob must be stored as
 * uncompressed (module params' compressed end 0, overlay compressed flag clear), because the console
 * routine would read the raw data's last word as a footer.
 */
export function blzEncode(data: Uint8Array, options: BlzEncodeOptions = {}): Uint8Array {
  const steps = blzEncodeSteps(data, options);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * blzEncode in bounded steps (a few milliseconds of work between yields), for callers that must keep
 * their event loop answering while a large image is encoded.
 */
export function* blzEncodeSteps(
  data: Uint8Array,
  options: BlzEncodeOptions = {},
): Generator<void, Uint8Array, void> {
  const n = data.length;
  const prefixLength = options.prefixLength ?? 0;
  if (!Number.isInteger(prefixLength) || prefixLength < 0 || prefixLength > n) {
    throw new ReMcpError('invalid-argument', `prefixLength must be an integer in 0..${n}`, { prefixLength });
  }
  const first = Math.max(prefixLength, n - BLZ_MAX_CODED_REGION);

  // The decoder produces the image from its end backward; encode in that order.
  // A copy: on a Node Buffer, .slice() is a view, and reversing it would scramble the caller's bytes.
  const x = Uint8Array.from(data.subarray(first)).reverse();
  const matches = yield* findMatchesSteps(x);
  const parse = yield* optimalParseSteps(x.length, matches);

  const rawLength = n - parse.end;
  const codedSize = align4(rawLength + parse.streamLength) + BLZ_MIN_HEADER;
  const notCodedSize = align4(n) + 4;
  // codedSize < n keeps the extra size >= 1: 0 would mean "not coded".
  const blob =
    parse.end > 0 && codedSize < notCodedSize && codedSize < n
      ? layOut(data, x, matches.distances, parse.tokens, rawLength, parse.streamLength, codedSize)
      : notCoded(data, notCodedSize);

  // Cheap insurance before a blob goes into a ROM: it must decode, in place, to the input.
  // A failure here is our bug, not the caller's input: report it as internal-error.
  let check: Uint8Array;
  try {
    yield;
    check = blzDecode(blob, { inPlace: true });
  } catch (error) {
    throw new ReMcpError('internal-error', 'BLZ encoder produced a blob its decoder rejects', {
      cause: error instanceof Error ? error.message : String(error),
    });
  }
  for (let i = 0; i < n; i++) {
    if (check[i] !== data[i])
      throw new ReMcpError('internal-error', 'BLZ encoder self-check failed', { at: i });
  }
  return blob;
}

function notCoded(data: Uint8Array, size: number): Uint8Array {
  const blob = new Uint8Array(size); // zero padding and the zero extra size come free
  blob.set(data);
  return blob;
}

function layOut(
  data: Uint8Array,
  x: Uint8Array,
  distances: Uint16Array,
  tokens: Uint8Array,
  rawLength: number,
  streamLength: number,
  size: number,
): Uint8Array {
  const blob = new Uint8Array(size).fill(0xff, rawLength + streamLength, size - BLZ_MIN_HEADER);
  blob.set(data.subarray(0, rawLength));
  // Stream byte i (in decode order) sits at streamEnd - 1 - i.
  const streamEnd = rawLength + streamLength;
  let out = streamEnd;
  let flagAt = 0;
  let position = 0;
  for (let t = 0; t < tokens.length; t++) {
    if ((t & 7) === 0) {
      flagAt = --out;
      blob[flagAt] = 0;
    }
    const length = tokens[t]!;
    if (length === 1) {
      blob[--out] = x[position]!;
    } else {
      const field = distances[position]! - 3;
      blob[flagAt] |= 0x80 >>> (t & 7);
      blob[--out] = ((length - 3) << 4) | (field >>> 8);
      blob[--out] = field & 0xff;
    }
    position += length;
  }
  if (out !== rawLength) {
    throw new ReMcpError('internal-error', 'BLZ stream length disagrees with the parse', { out, rawLength });
  }
  const header = size - streamEnd;
  putU32(blob, size - 8, (streamLength + header) | (header << 24));
  putU32(blob, size - 4, data.length - size);
  return blob;
}
