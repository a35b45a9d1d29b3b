// A small PNG reader for tests: 8-bit RGB, RGBA or palette (with tRNS), not interlaced (RetroArch's
// screenshots, re-mcp's pictures), decoded to RGBA pixels so a test can check the colours painted.
import { inflateSync } from 'node:zlib';

export interface Picture {
  width: number;
  height: number;
  /** RGBA, row by row. */
  pixels: Uint8Array;
}

export function readPng(png: Uint8Array): Picture {
  const dv = new DataView(png.buffer, png.byteOffset, png.byteLength);
  if (dv.getUint32(0) !== 0x89504e47) throw new Error('not a PNG');
  let at = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  let colourType = 0;
  let palette: Uint8Array | null = null;
  let alpha: Uint8Array = new Uint8Array(0);
  const idat: Uint8Array[] = [];
  while (at + 8 <= png.length) {
    const length = dv.getUint32(at);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = dv.getUint32(at + 8);
      height = dv.getUint32(at + 12);
      const [depth, colour, , , interlace] = data.subarray(8, 13);
      if (depth !== 8 || (colour !== 2 && colour !== 3 && colour !== 6) || interlace !== 0)
        throw new Error(`unsupported PNG (depth ${depth}, colour type ${colour}, interlace ${interlace})`);
      colourType = colour!;
      channels = colour === 2 ? 3 : colour === 3 ? 1 : 4;
    } else if (type === 'PLTE') palette = data;
    else if (type === 'tRNS') alpha = data;
    else if (type === 'IDAT') idat.push(data);
    else if (type === 'IEND') break;
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const rows = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? rows[y * stride + x - channels]! : 0;
      const b = y > 0 ? rows[(y - 1) * stride + x]! : 0;
      const c = x >= channels && y > 0 ? rows[(y - 1) * stride + x - channels]! : 0;
      const p = a + b - c;
      const pa = Math.abs(p - a);
      const pb = Math.abs(p - b);
      const pc = Math.abs(p - c);
      const predictor = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter];
      if (predictor === undefined) throw new Error(`bad PNG filter ${filter}`);
      rows[y * stride + x] = (line[x]! + predictor) & 0xff;
    }
  }
  const pixels = new Uint8Array(width * height * 4);
  if (colourType === 3) {
    if (palette === null) throw new Error('palette PNG without PLTE');
    for (let i = 0; i < width * height; i++) {
      const k = rows[i]!;
      if (k * 3 + 2 >= palette.length) throw new Error(`palette index ${k} past the palette`);
      pixels.set(palette.subarray(k * 3, k * 3 + 3), i * 4);
      pixels[i * 4 + 3] = k < alpha.length ? alpha[k]! : 255;
    }
    return { width, height, pixels };
  }
  for (let i = 0; i < width * height; i++) {
    pixels[i * 4] = rows[i * channels]!;
    pixels[i * 4 + 1] = rows[i * channels + 1]!;
    pixels[i * 4 + 2] = rows[i * channels + 2]!;
    pixels[i * 4 + 3] = channels === 4 ? rows[i * channels + 3]! : 255;
  }
  return { width, height, pixels };
}

/** The RGB of pixel (x, y). */
export function rgbAt(p: Picture, x: number, y: number): [number, number, number] {
  const i = (y * p.width + x) * 4;
  return [p.pixels[i]!, p.pixels[i + 1]!, p.pixels[i + 2]!];
}
