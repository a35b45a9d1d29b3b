// The pixel canvas the rasterizer paints on (see raster.ts): colours as RGBA words, horizontal spans and
// rectangles blended onto an RGBA buffer, and the limits that bound the work of one drawing operation
// (a budget of pixel writes, clamped coordinates, the largest point list and text).

/** The largest picture rasterize paints (width * height). */
export const MAX_PIXELS = 16_777_216;
/** Blank pixels added on every side of the layout's bounding box. */
export const MARGIN = 4;
/** Points read from one operation; the rest are ignored. */
export const MAX_POINTS_PER_OP = 100_000;
/** Characters drawn from one text operation; the rest are ignored. */
export const MAX_TEXT_LENGTH = 1_000;
/** Pixel writes (and scanline edge visits) one operation may spend before it is cut short. */
export const OP_BUDGET = 1 << 25;
/** Thickest stroke, and largest font pixel, in screen pixels. */
export const MAX_LINE_WIDTH = 64;
export const MAX_FONT_PIXEL = 64;
/** Coordinates (in pixels) are clamped to this, so arithmetic on hostile values stays finite. */
export const COORD_LIMIT = 1e9;

export interface Colour {
  r: number;
  g: number;
  b: number;
  /** 1..255 (a transparent colour is represented by no colour at all). */
  a: number;
  /** The pixel as one word of the canvas's Uint32Array view. */
  word: number;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export function colour(r: number, g: number, b: number, a: number): Colour {
  const word = LITTLE_ENDIAN
    ? ((a << 24) | (b << 16) | (g << 8) | r) >>> 0
    : ((r << 24) | (g << 16) | (b << 8) | a) >>> 0;
  return { r, g, b, a, word };
}

export const BLACK = colour(0, 0, 0, 255);

export class Canvas {
  readonly bytes: Uint8Array;
  readonly words: Uint32Array;
  /** What the current operation may still spend. */
  budget = OP_BUDGET;

  constructor(
    readonly width: number,
    readonly height: number,
    background: Colour,
  ) {
    this.bytes = new Uint8Array(width * height * 4);
    this.words = new Uint32Array(this.bytes.buffer);
    this.words.fill(background.word);
  }

  /** Paints pixels [x0, x1) of row y, whatever part of them is on the canvas. */
  span(y: number, x0: number, x1: number, c: Colour): void {
    this.budget--;
    if (!(y >= 0 && y < this.height)) return;
    const from = Math.max(0, x0);
    const to = Math.min(this.width, x1);
    if (!(to > from)) return;
    this.budget -= to - from;
    const row = y * this.width;
    if (c.a === 255) {
      if (to - from > 8) this.words.fill(c.word, row + from, row + to);
      else for (let i = row + from; i < row + to; i++) this.words[i] = c.word;
      return;
    }
    const keep = 255 - c.a;
    for (let i = (row + from) * 4; i < (row + to) * 4; i += 4) {
      this.bytes[i] = (c.r * c.a + this.bytes[i]! * keep + 127) / 255;
      this.bytes[i + 1] = (c.g * c.a + this.bytes[i + 1]! * keep + 127) / 255;
      this.bytes[i + 2] = (c.b * c.a + this.bytes[i + 2]! * keep + 127) / 255;
    }
  }

  /** Paints the pixels [x0, x1) x [y0, y1). */
  rect(x0: number, y0: number, x1: number, y1: number, c: Colour): void {
    const top = Math.max(0, y0);
    const bottom = Math.min(this.height, y1);
    for (let y = top; y < bottom && this.budget > 0; y++) this.span(y, x0, x1, c);
  }
}

/** A pixel coordinate held to +-COORD_LIMIT, so arithmetic on hostile values stays finite. */
export function clamp(v: number): number {
  return Math.max(-COORD_LIMIT, Math.min(COORD_LIMIT, v));
}
