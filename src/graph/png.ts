// Encodes an RGBA picture as a PNG file (not interlaced), so a rendered graph can travel as an image in a
// tool result. A picture of at most 256 distinct colours (a drawing: fills, pens, text) is written with a
// palette (colour type 3, one byte a pixel, transparency in tRNS when any colour has some), which
// deflates to a fraction of the RGBA form; any other as 8-bit RGBA (colour type 6), each row with the
// filter (None, Sub or Up) whose output has the smallest sum of absolute values. Deflated by zlib.
// The server encodes with encodePngCooperative: the pixel passes run as steps (a yield every row, the
// event loop gets its turn between slices) and zlib deflates on its thread pool, so a large picture
// never holds the event loop; encodePng is the same file at once.
import { promisify } from 'node:util';
import { deflate, deflateSync } from 'node:zlib';
import { driveSteps, runSteps, type Steps } from '../core/cooperative.js';
import { crc32 } from '../formats/crc32.js';

const deflateAsync = promisify(deflate);

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** Largest IDAT payload we write in one chunk. */
const IDAT_CHUNK = 1 << 20;

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  dv.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** Row filtering: a filter-type byte then the filtered row, for every row (a yield after each). */
function* filterRows(width: number, height: number, rgba: Uint8Array): Steps<Uint8Array> {
  const stride = width * 4;
  const out = new Uint8Array(height * (stride + 1));
  const sub = new Uint8Array(stride);
  const up = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const row = y * stride;
    let sumNone = 0;
    let sumSub = 0;
    let sumUp = 0;
    for (let x = 0; x < stride; x++) {
      const v = rgba[row + x]!;
      const s = (v - (x >= 4 ? rgba[row + x - 4]! : 0)) & 0xff;
      const u = (v - (y > 0 ? rgba[row - stride + x]! : 0)) & 0xff;
      sub[x] = s;
      up[x] = u;
      // Bytes read as signed: small distances either way count as small.
      sumNone += v < 128 ? v : 256 - v;
      sumSub += s < 128 ? s : 256 - s;
      sumUp += u < 128 ? u : 256 - u;
    }
    const at = y * (stride + 1);
    if (sumNone <= sumSub && sumNone <= sumUp) {
      out[at] = 0;
      out.set(rgba.subarray(row, row + stride), at + 1);
    } else if (sumSub <= sumUp) {
      out[at] = 1;
      out.set(sub, at + 1);
    } else {
      out[at] = 2;
      out.set(up, at + 1);
    }
    yield;
  }
  return out;
}

/**
 * The picture as palette indices, with its palette (RGBA per entry, in first-seen order), or null when
 * it has more than 256 colours (a yield after each row).
 */
function* indexed(
  width: number,
  height: number,
  rgba: Uint8Array,
): Steps<{ palette: Uint32Array; rows: Uint8Array } | null> {
  const index = new Map<number, number>();
  const palette = new Uint32Array(256);
  const rows = new Uint8Array(height * (width + 1));
  const words = new DataView(rgba.buffer, rgba.byteOffset, rgba.byteLength);
  let last = -1;
  let lastIndex = 0;
  for (let y = 0; y < height; y++) {
    // Filter None: indices are labels, not magnitudes, so differences of them compress no better.
    let at = y * (width + 1) + 1;
    for (let x = 0; x < width; x++, at++) {
      const c = words.getUint32((y * width + x) * 4);
      if (c !== last) {
        let i = index.get(c);
        if (i === undefined) {
          if (index.size === 256) return null;
          i = index.size;
          index.set(c, i);
          palette[i] = c;
        }
        last = c;
        lastIndex = i;
      }
      rows[at] = lastIndex;
    }
    yield;
  }
  return { palette: palette.subarray(0, index.size), rows };
}

function checkPicture(width: number, height: number, rgba: Uint8Array): void {
  for (const [name, v] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isSafeInteger(v) || v <= 0 || v > 0x7fffffff)
      throw new Error(`encodePng: ${name} must be a positive integer, got ${v}`);
  }
  if (!(rgba instanceof Uint8Array)) throw new Error('encodePng: rgba must be a Uint8Array');
  if (rgba.length !== width * height * 4)
    throw new Error(
      `encodePng: rgba has ${rgba.length} bytes, expected ${width}*${height}*4 = ${width * height * 4}`,
    );
}

/** The rows to deflate (palette indices, or filtered RGBA) and the palette when there is one. */
function* pixelSteps(
  width: number,
  height: number,
  rgba: Uint8Array,
): Steps<{ palette: Uint32Array | null; rows: Uint8Array }> {
  const pal = yield* indexed(width, height, rgba);
  if (pal) return pal;
  return { palette: null, rows: yield* filterRows(width, height, rgba) };
}

/** A PNG file of a width x height picture given as RGBA bytes, row by row from the top. */
export function encodePng(width: number, height: number, rgba: Uint8Array): Uint8Array {
  checkPicture(width, height, rgba);
  const pixels = runSteps(pixelSteps(width, height, rgba));
  return assemble(width, height, pixels.palette, deflateSync(pixels.rows));
}

/**
 * encodePng for the server: the pixel passes in slices (driveSteps: the event loop answers between
 * them, `signal` is honoured) and the deflate on zlib's thread pool. The same bytes as encodePng.
 */
export async function encodePngCooperative(
  width: number,
  height: number,
  rgba: Uint8Array,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  checkPicture(width, height, rgba);
  const pixels = await driveSteps(pixelSteps(width, height, rgba), signal ? { signal } : {});
  return assemble(width, height, pixels.palette, await deflateAsync(pixels.rows));
}

/** The file's chunks around the deflated rows. */
function assemble(
  width: number,
  height: number,
  palette: Uint32Array | null,
  compressed: Uint8Array,
): Uint8Array {
  const ihdr = new Uint8Array(13);
  const dv = new DataView(ihdr.buffer);
  dv.setUint32(0, width);
  dv.setUint32(4, height);
  ihdr[8] = 8; // bits per channel (or per index)
  ihdr[9] = palette ? 3 : 6; // palette, or RGBA
  ihdr[10] = 0; // deflate
  ihdr[11] = 0; // adaptive filtering
  ihdr[12] = 0; // not interlaced

  const parts: Uint8Array[] = [Uint8Array.from(SIGNATURE), chunk('IHDR', ihdr)];
  if (palette) {
    const plte = new Uint8Array(palette.length * 3);
    const alpha = new Uint8Array(palette.length);
    for (const [i, c] of palette.entries()) {
      plte[i * 3] = c >>> 24;
      plte[i * 3 + 1] = (c >>> 16) & 0xff;
      plte[i * 3 + 2] = (c >>> 8) & 0xff;
      alpha[i] = c & 0xff;
    }
    parts.push(chunk('PLTE', plte));
    // tRNS lists alpha up to the last entry that is not opaque (absent: all opaque).
    let n = alpha.length;
    while (n > 0 && alpha[n - 1] === 255) n--;
    if (n > 0) parts.push(chunk('tRNS', alpha.subarray(0, n)));
  }
  for (let at = 0; at < compressed.length || at === 0; at += IDAT_CHUNK)
    parts.push(chunk('IDAT', compressed.subarray(at, Math.min(at + IDAT_CHUNK, compressed.length))));
  parts.push(chunk('IEND', new Uint8Array(0)));
  return Buffer.concat(parts);
}
