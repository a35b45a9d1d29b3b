// A tiny bitmap font for putting graph labels into a rasterized picture: 95 glyphs for printable ASCII,
// drawn on a grid 5 pixels wide and 9 tall. Rows 0..6 stand on the baseline (capitals and digits use all
// seven, lower case uses rows 2..6 as its x-height), rows 7..8 hang below it (descenders of g j p q y, the
// comma's tail, the underscore). Anything outside 0x20..0x7E is drawn as a hollow box.

/** Glyph width in font pixels. */
export const CELL_WIDTH = 5;
/** Glyph height in font pixels, descender rows included. */
export const CELL_HEIGHT = 9;
/** Rows above the baseline: row CELL_ASCENT - 1 is the lowest row that still sits on the baseline. */
export const CELL_ASCENT = 7;
/** First and last character code that has a glyph of its own. */
export const FIRST_CODE = 0x20;
export const LAST_CODE = 0x7e;

// One word per glyph, from 0x20 up: two hex digits per row from the top, bit 4 (0x10) being the leftmost
// column; rows not written are blank.
const DATA: readonly string[] = [
  '00 04040404040004 0a0a0a 0a0a1f0a1f0a0a 040f140e051e04 18190204081303 0c12140815120d 040408',
  '02040808080402 08040202020408 0004150e1504 0004041f0404 00000000000c0408 0000001f 00000000000c0c',
  '000102040810 0e11131519110e 040c040404040e 0e11010204081f 1f02040201110e 02060a121f0202',
  '1f101e0101110e 0608101e11110e 1f010204080808 0e11110e11110e 0e11110f01020c 000c0c000c0c',
  '000c0c000c0408 02040810080402 00001f001f 08040201020408 0e110102040004 0e11010d15150e',
  '0e11111f111111 1e11111e11111e 0e11101010110e 1c12111111121c 1f10101e10101f 1f10101e101010',
  '0e11101711110f 1111111f111111 0e04040404040e 0702020202120c 11121418141211 1010101010101f',
  '111b1515111111 11111915131111 0e11111111110e 1e11111e101010 0e11111115120d 1e11111e141211',
  '0f10100e01011e 1f040404040404 1111111111110e 11111111110a04 1111111515150a 11110a040a1111',
  '11110a04040404 1f01020408101f 0e08080808080e 001008040201 0e02020202020e 040a11 000000000000001f',
  '080402 00000e010f110f 1010161911111e 00000e1010110e 01010d1311110f 00000e111f100e 0609081c080808',
  '00000f11110f01110e 10101619111111 04000c0404040e 02000602020202120c 10101214181412',
  '0c04040404040e 00001a15151111 00001619111111 00000e1111110e 00001e1111111e1010',
  '00000f1111110f0101 00001619101010 00000f100e011e 08081c08080906 0000111111130d 00001111110a04',
  '0000111115150a 0000110a040a11 0000111111110f010e 00001f0204081f 03040408040403 04040404040404',
  '18040402040418 0000081502',
]
  .join(' ')
  .split(' ');

function decode(hex: string): readonly number[] {
  const rows: number[] = [];
  for (let r = 0; r < CELL_HEIGHT; r++)
    rows.push(r * 2 < hex.length ? Number.parseInt(hex.slice(r * 2, r * 2 + 2), 16) : 0);
  return Object.freeze(rows);
}

const GLYPHS: readonly (readonly number[])[] = DATA.map(decode);

/** What a character without a glyph of its own looks like: the outline of the cell above the baseline. */
export const BOX_GLYPH: readonly number[] = Object.freeze([0x1f, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1f, 0, 0]);

/** The rows (CELL_HEIGHT bit masks, bit 4 = leftmost column) of a printable ASCII character, else null. */
export function glyph(code: number): readonly number[] | null {
  return Number.isInteger(code) && code >= FIRST_CODE && code <= LAST_CODE
    ? GLYPHS[code - FIRST_CODE]!
    : null;
}

/** The rows to draw for any code point: its glyph, or the hollow box. */
export function glyphOrBox(code: number): readonly number[] {
  return glyph(code) ?? BOX_GLYPH;
}
