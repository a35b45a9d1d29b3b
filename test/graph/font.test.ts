// The bitmap font: every printable ASCII character has its own visible glyph that fits the cell, the
// descenders hang below the baseline, and anything else (as data and as painted pixels) is a hollow box.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BOX_GLYPH,
  CELL_ASCENT,
  CELL_HEIGHT,
  CELL_WIDTH,
  FIRST_CODE,
  glyph,
  glyphOrBox,
  LAST_CODE,
} from '../../src/graph/font.js';
import { type GraphvizLayout, MARGIN, rasterize } from '../../src/graph/raster.js';

const PRINTABLE = Array.from({ length: 95 }, (_, i) => 0x20 + i);

test('the cell is 5 wide, 9 tall, 7 of them above the baseline', () => {
  assert.equal(CELL_WIDTH, 5);
  assert.equal(CELL_HEIGHT, 9);
  assert.equal(CELL_ASCENT, 7);
  assert.equal(FIRST_CODE, 0x20);
  assert.equal(LAST_CODE, 0x7e);
});

test('every printable glyph has CELL_HEIGHT rows of 5 bits, and only the space is blank', () => {
  for (const code of PRINTABLE) {
    const rows = glyph(code);
    assert.ok(rows, `glyph ${code.toString(16)}`);
    assert.equal(rows.length, CELL_HEIGHT);
    for (const r of rows) assert.ok(Number.isInteger(r) && r >= 0 && r < 1 << CELL_WIDTH, `row ${r}`);
    const ink = rows.reduce((n, r) => n + r, 0);
    if (code === 0x20) assert.equal(ink, 0, 'space is blank');
    else assert.ok(ink > 0, `${String.fromCharCode(code)} has ink`);
  }
});

test('the 95 glyphs are pairwise distinct, and none is the box', () => {
  const seen = new Map<string, number>();
  for (const code of PRINTABLE) {
    const key = glyph(code)!.join(',');
    assert.equal(seen.get(key), undefined, `${String.fromCharCode(code)} looks like ${seen.get(key)}`);
    seen.set(key, code);
  }
  assert.equal(seen.size, 95);
  assert.equal(seen.has(BOX_GLYPH.join(',')), false);
});

test('descenders: g j p q y (and , _) reach below the baseline, capitals and digits do not', () => {
  const below = (c: string) =>
    glyph(c.charCodeAt(0))!
      .slice(CELL_ASCENT)
      .some((r) => r !== 0);
  for (const c of 'gjpqy,_') assert.ok(below(c), c);
  for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcdefhiklmnorstuvwxz') assert.ok(!below(c), c);
  // Lower case without ascenders keeps the top two rows blank, capitals use the top row.
  for (const c of 'acemnorsuvwxz') assert.deepEqual(glyph(c.charCodeAt(0))!.slice(0, 2), [0, 0], c);
  for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') assert.notEqual(glyph(c.charCodeAt(0))![0], 0, c);
});

test('codes outside 0x20..0x7E have no glyph and draw as the hollow box', () => {
  for (const code of [
    -1,
    0,
    0x0a,
    0x1f,
    0x7f,
    0xe9,
    0x2603,
    0x1f600,
    1.5,
    Number.NaN,
    Number.POSITIVE_INFINITY,
  ]) {
    assert.equal(glyph(code), null, String(code));
    assert.equal(glyphOrBox(code), BOX_GLYPH);
  }
  assert.deepEqual([...BOX_GLYPH], [0x1f, 0x11, 0x11, 0x11, 0x11, 0x11, 0x1f, 0, 0]);
  assert.equal(glyphOrBox(0x41), glyph(0x41));
});

/** The dark pixels of a rendered text, as a set of "x,y" plus their bounding box. */
function ink(text: string): { dark: Set<string>; minX: number; minY: number; maxX: number; maxY: number } {
  const layout: GraphvizLayout = {
    bb: '0,0,60,20',
    _draw_: [
      { op: 'F', size: 10, face: 'Times-Roman' },
      { op: 'c', grad: 'none', color: '#000000' },
      { op: 'T', pt: [10, 5], align: 'l', width: 0, text },
    ],
  };
  const r = rasterize(layout, { scale: 1 });
  const dark = new Set<string>();
  let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
  for (let y = 0; y < r.height; y++) {
    for (let x = 0; x < r.width; x++) {
      if (r.rgba[(y * r.width + x) * 4]! < 128) {
        dark.add(`${x},${y}`);
        [minX, minY, maxX, maxY] = [
          Math.min(minX, x),
          Math.min(minY, y),
          Math.max(maxX, x),
          Math.max(maxY, y),
        ];
      }
    }
  }
  return { dark, minX, minY, maxX, maxY };
}

test('an out-of-range character is painted as exactly the hollow box, standing on the baseline', () => {
  for (const text of ['\u00e9', '\u0007', '\u{1f600}', '\ud800']) {
    const { dark, minX, minY, maxX, maxY } = ink(text);
    assert.equal(maxX - minX + 1, CELL_WIDTH, JSON.stringify(text));
    assert.equal(maxY - minY + 1, 7);
    // Baseline: y = 5 points up from the bottom of a 20-point box, 1 pixel per point.
    assert.equal(maxY, MARGIN + (20 - 5) - 1, 'the box sits on the baseline');
    for (let r = 0; r < 7; r++) {
      for (let c = 0; c < CELL_WIDTH; c++) {
        const want = (BOX_GLYPH[r]! & (0x10 >> c)) !== 0;
        assert.equal(dark.has(`${minX + c},${minY + r}`), want, `${JSON.stringify(text)} row ${r} col ${c}`);
      }
    }
    assert.equal(dark.size, 5 + 5 + 2 * 5, 'nothing else is painted');
  }
  // A surrogate pair is one character: one box, not two.
  assert.equal(ink('\u{1f600}').dark.size, ink('\u00e9').dark.size);
  // A glyph of its own is painted as itself, not as the box.
  const a = ink('A');
  assert.equal(
    a.dark.size,
    glyph(0x41)!.reduce((n, r) => n + r.toString(2).split('1').length - 1, 0),
  );
});
