// Text for the rasterizer (see raster.ts): the characters of an xdot text operation drawn with the
// bitmap font of font.ts, each glyph scaled to the font size and to the room Graphviz laid out for
// the text, the whole aligned left, centred or right on its anchor.
import { CELL_ASCENT, CELL_HEIGHT, CELL_WIDTH, glyphOrBox } from './font.js';
import { type Canvas, COORD_LIMIT, type Colour, MAX_FONT_PIXEL, MAX_TEXT_LENGTH } from './raster-canvas.js';

/** Where one text goes: its anchor in pixels, the operation's alignment and laid-out width (points, as read). */
interface TextPlacement {
  px: number;
  py: number;
  align: unknown;
  width: unknown;
  /** Font size in points. */
  fontSize: number;
  /** Pixels per point. */
  scale: number;
}

/** Draws up to MAX_TEXT_LENGTH characters of `text` at `at` in colour c. */
export function paintText(cv: Canvas, text: string, at: TextPlacement, c: Colour): void {
  const codes: number[] = [];
  for (const ch of text) {
    if (codes.length >= MAX_TEXT_LENGTH) break;
    codes.push(ch.codePointAt(0)!);
  }
  const n = codes.length;
  if (n === 0) return;
  // Font pixel: 1 screen pixel per 10 points of font size at scale 1, at least 1; smaller when a glyph
  // would be wider than the room Graphviz gave each character (neighbours would run into each other).
  let f = Math.max(1, Math.floor((at.fontSize * at.scale) / 10 + 1e-9));
  const laidOut = typeof at.width === 'number' && Number.isFinite(at.width) && at.width > 0;
  const total = laidOut ? Math.min((at.width as number) * at.scale, 2 * COORD_LIMIT) : NaN;
  if (laidOut) f = Math.max(1, Math.min(f, Math.floor(total / n / CELL_WIDTH + 1e-9)));
  f = Math.min(f, MAX_FONT_PIXEL);
  const advance = laidOut ? total / n : (CELL_WIDTH + 1) * f;
  const width = advance * n;
  const left = at.align === 'l' ? at.px : at.align === 'r' ? at.px - width : at.px - width / 2;
  const baseline = Math.round(at.py);
  const top = baseline - CELL_ASCENT * f;
  if (top >= cv.height || top + CELL_HEIGHT * f <= 0) return;
  for (let i = 0; i < n && cv.budget > 0; i++) {
    const gx = Math.round(left + i * advance + (advance - CELL_WIDTH * f) / 2);
    if (gx >= cv.width) break;
    if (gx + CELL_WIDTH * f <= 0) continue;
    const rows = glyphOrBox(codes[i]!);
    for (let r = 0; r < CELL_HEIGHT; r++) {
      const bits = rows[r]!;
      if (bits === 0) continue;
      // Each run of set bits in the row becomes one rectangle.
      let col = 0;
      while (col < CELL_WIDTH) {
        if (!(bits & (0x10 >> col))) {
          col++;
          continue;
        }
        const start = col;
        while (col < CELL_WIDTH && bits & (0x10 >> col)) col++;
        cv.rect(gx + start * f, top + r * f, gx + col * f, top + (r + 1) * f, c);
      }
    }
  }
}
