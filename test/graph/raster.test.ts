// The rasterizer on real Graphviz layouts (from @viz-js/viz) and on hand-made op lists: the picture's size,
// fills, pen colours, line widths and dashes, text placement, transparency, the size limits and fitScale,
// and a fuzz run of hostile op lists that must never throw. Pixel positions are computed here from the
// layout's own coordinates (points, y up) times the scale, flipped, plus the margin.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { instance, type Viz } from '@viz-js/viz';
import { encodePng } from '../../src/graph/png.js';
import {
  fitScale,
  type GraphvizEdge,
  type GraphvizLayout,
  type GraphvizObject,
  MARGIN,
  MAX_PIXELS,
  MAX_POINTS_PER_OP,
  MAX_TEXT_LENGTH,
  type Raster,
  rasterize,
  type XdotOp,
} from '../../src/graph/raster.js';
import { readPng } from '../kit/png.js';
import { rng } from '../kit/rng.js';

type Node = GraphvizObject & { name: string; pos?: string };
type Edge = GraphvizEdge & { tail: number; head: number };
type RGB = [number, number, number];

let viz: Viz;
before(async () => {
  viz = await instance();
});

function layoutOf(dot: string): GraphvizLayout {
  return viz.renderJSON(dot) as GraphvizLayout;
}

function bbOf(layout: GraphvizLayout): [number, number, number, number] {
  return layout.bb.split(',').map(Number) as [number, number, number, number];
}

/** Where a layout point lands in the picture (continuous pixel coordinates). */
function toPx(layout: GraphvizLayout, scale: number, x: number, y: number): [number, number] {
  const [llx, , , ury] = bbOf(layout);
  return [MARGIN + (x - llx) * scale, MARGIN + (ury - y) * scale];
}

function rgb(r: Raster, x: number, y: number): RGB {
  const i = (Math.floor(y) * r.width + Math.floor(x)) * 4;
  return [r.rgba[i]!, r.rgba[i + 1]!, r.rgba[i + 2]!];
}

function node(layout: GraphvizLayout, name: string): Node {
  const found = (layout.objects as Node[]).find((o) => o.name === name);
  assert.ok(found, `node ${name}`);
  return found;
}

function opsOf(list: XdotOp[] | undefined, op: string): XdotOp[] {
  return (list ?? []).filter((o) => o.op === op);
}

/** Pixels within `radius` of (x, y) whose colour satisfies `want`. */
function near(r: Raster, x: number, y: number, radius: number, want: (c: RGB) => boolean): number {
  let n = 0;
  for (let dy = -radius; dy <= radius; dy++) {
    for (let dx = -radius; dx <= radius; dx++) {
      const [px, py] = [Math.floor(x) + dx, Math.floor(y) + dy];
      if (px >= 0 && py >= 0 && px < r.width && py < r.height && want(rgb(r, px, py))) n++;
    }
  }
  return n;
}

const isDark = (c: RGB) => c[0] + c[1] + c[2] < 200;
const same = (a: RGB) => (c: RGB) => c[0] === a[0] && c[1] === a[1] && c[2] === a[2];

/** A hand-made layout of the given size (points) drawing just `ops`. */
function plain(ops: unknown[], w = 40, h = 40): GraphvizLayout {
  return { bb: `0,0,${w},${h}`, _draw_: ops as XdotOp[] };
}

const PEN_BLACK = { op: 'c', grad: 'none', color: '#000000' };

/** Count of pixels on row y (or column x) that are not white. */
function inkOnRow(r: Raster, y: number): number {
  let n = 0;
  for (let x = 0; x < r.width; x++) if (!same([255, 255, 255])(rgb(r, x, y))) n++;
  return n;
}

test('the picture is the bb times the scale, rounded up, plus the margin on each side', () => {
  const layout = layoutOf('digraph { a -> b; a -> c; b -> d; c -> d; }');
  const [llx, lly, urx, ury] = bbOf(layout);
  assert.equal(MARGIN, 4);
  for (const scale of [0.5, 1, 1.5, 2, 3, 0.37]) {
    const r = rasterize(layout, { scale });
    assert.equal(r.width, Math.ceil((urx - llx) * scale) + 2 * MARGIN, `width at ${scale}`);
    assert.equal(r.height, Math.ceil((ury - lly) * scale) + 2 * MARGIN, `height at ${scale}`);
    assert.equal(r.rgba.length, r.width * r.height * 4);
    for (let i = 3; i < r.rgba.length; i += 4) assert.equal(r.rgba[i], 255, 'every pixel is opaque');
  }
  // A bb that does not start at 0.
  const shifted = rasterize({ bb: '-10,5,30.5,25' }, { scale: 2 });
  assert.deepEqual([shifted.width, shifted.height], [81 + 8, 40 + 8]);
});

test('a filled box has its fill colour inside, its pen on the border, and the background in the corners', () => {
  const layout = layoutOf(
    'digraph { n [shape=box style=filled fillcolor="#33cc55" color="#000000" label="" width=1.5 height=1]; ' +
      'x -> n; y -> n; n -> m; n -> z }',
  );
  const background: RGB = [10, 20, 30];
  for (const scale of [1, 2, 3]) {
    const r = rasterize(layout, { scale, background });
    const n = node(layout, 'n');
    const [cx, cy] = n.pos!.split(',').map(Number) as [number, number];
    const [px, py] = toPx(layout, scale, cx, cy);
    assert.deepEqual(rgb(r, px, py), [0x33, 0xcc, 0x55], `centre at scale ${scale}`);
    // Corners of the box, from its polygon: just inside is fill, on the border is pen, outside is white.
    const poly = opsOf(n._draw_, 'P')[0] as { points: [number, number][] };
    const xs = poly.points.map((p) => p[0]);
    const ys = poly.points.map((p) => p[1]);
    const [left, right] = [Math.min(...xs), Math.max(...xs)];
    const [bottom, top] = [Math.min(...ys), Math.max(...ys)];
    const [l, t] = toPx(layout, scale, left, top);
    const [rr, b] = toPx(layout, scale, right, bottom);
    const inset = scale + 2;
    for (const [x, y] of [
      [l + inset, t + inset],
      [rr - inset, t + inset],
      [l + inset, b - inset],
      [rr - inset, b - inset],
    ] as const)
      assert.deepEqual(rgb(r, x, y), [0x33, 0xcc, 0x55], `inside a corner at scale ${scale}`);
    assert.equal(near(r, l, py, 1, same([0, 0, 0])) > 0, true, 'left border is black');
    assert.equal(near(r, rr, py, 1, same([0, 0, 0])) > 0, true, 'right border is black');
    assert.ok(l - inset > MARGIN, 'the box is not at the edge of the graph');
    assert.deepEqual(rgb(r, l - inset, py), [255, 255, 255], 'outside the box is the white graph background');
    // The margin shows the background colour given.
    for (const [x, y] of [
      [0, 0],
      [r.width - 1, 0],
      [0, r.height - 1],
      [r.width - 1, r.height - 1],
    ] as const)
      assert.deepEqual(rgb(r, x, y), background, `corner ${x},${y}`);
  }
});

test('an edge has pen-coloured pixels along the middle of its spline, and a red edge is red', () => {
  const layout = layoutOf('digraph { a -> b; b -> c [color="#cc0000"]; a -> c }');
  for (const scale of [1, 2]) {
    const r = rasterize(layout, { scale });
    const names = (layout.objects as Node[]).map((o) => o.name);
    for (const e of layout.edges as Edge[]) {
      const pen = opsOf(e._draw_, 'c')[0] as { color: string };
      const spline = opsOf(e._draw_, 'b')[0] as { points: [number, number][] };
      const want: RGB = pen.color === '#cc0000' ? [0xcc, 0, 0] : [0, 0, 0];
      // The point at t = 0.5 of the middle Bezier piece.
      const pieces = (spline.points.length - 1) / 3;
      const k = Math.floor(pieces / 2) * 3;
      const [p0, c1, c2, p3] = spline.points.slice(k, k + 4) as [number, number][];
      const mid = [0, 1].map((d) => (p0[d]! + 3 * c1[d]! + 3 * c2[d]! + p3[d]!) / 8) as [number, number];
      const [x, y] = toPx(layout, scale, mid[0], mid[1]);
      const label = `${names[e.tail]} -> ${names[e.head]} at scale ${scale}`;
      assert.ok(near(r, x, y, 1, same(want)) > 0, `${label}: ${want} near the middle of the spline`);
      // The arrowhead polygon is filled with the pen colour at its centroid.
      const head = opsOf(e._hdraw_, 'P')[0] as { points: [number, number][] };
      const cen = [0, 1].map((d) => head.points.reduce((s, p) => s + p[d]!, 0) / head.points.length);
      const [hx, hy] = toPx(layout, scale, cen[0]!, cen[1]!);
      assert.deepEqual(rgb(r, hx, hy), want, `${label}: arrowhead`);
    }
    let red = 0;
    for (let i = 0; i < r.rgba.length; i += 4) if (r.rgba[i] === 0xcc && r.rgba[i + 1] === 0) red++;
    assert.ok(red > 20 * scale, `${red} red pixels`);
  }
});

test("a node's label paints dark pixels inside the label's area and none elsewhere in the node", () => {
  const layout = layoutOf('digraph { n [shape=box label="HELLO world" width=3 height=1.2]; }');
  const n = node(layout, 'n');
  const text = opsOf(n._ldraw_, 'T')[0] as { pt: [number, number]; width: number };
  const font = opsOf(n._ldraw_, 'F')[0] as { size: number };
  const poly = opsOf(n._draw_, 'p')[0] as { points: [number, number][] };
  for (const scale of [1, 1.5, 2, 4]) {
    const r = rasterize(layout, { scale });
    // The label's area: Graphviz's width around pt, from a font size above the baseline to a third below.
    const [x0, base] = toPx(layout, scale, text.pt[0] - text.width / 2, text.pt[1]);
    const [x1] = toPx(layout, scale, text.pt[0] + text.width / 2, text.pt[1]);
    const inLabel = (x: number, y: number) =>
      x >= x0 - 2 &&
      x <= x1 + 2 &&
      y >= base - font.size * scale - 2 &&
      y <= base + (font.size * scale) / 3 + 2;
    const xs = poly.points.map((p) => p[0]);
    const ys = poly.points.map((p) => p[1]);
    const [bl, bt] = toPx(layout, scale, Math.min(...xs), Math.max(...ys));
    const [br, bb] = toPx(layout, scale, Math.max(...xs), Math.min(...ys));
    let inside = 0;
    for (let y = Math.ceil(bt) + scale + 1; y < bb - scale - 1; y++) {
      for (let x = Math.ceil(bl) + scale + 1; x < br - scale - 1; x++) {
        if (!isDark(rgb(r, x, y))) continue;
        assert.ok(inLabel(x, y), `dark pixel ${x},${y} outside the label at scale ${scale}`);
        inside++;
      }
    }
    assert.ok(
      inside > 40 * Math.max(1, Math.floor(scale)),
      `${inside} dark pixels in the label at scale ${scale}`,
    );
    // The ink spreads over the label's width: both the first and the last fifth of it have some.
    const fifth = (x1 - x0) / 5;
    const inkBetween = (a: number, b: number) => {
      let k = 0;
      for (let y = Math.floor(base - font.size * scale); y <= base; y++)
        for (let x = Math.floor(a); x <= b; x++) if (isDark(rgb(r, x, y))) k++;
      return k;
    };
    assert.ok(inkBetween(x0, x0 + fifth) > 0 && inkBetween(x1 - fifth, x1) > 0, 'text spans the label width');
  }
});

test('text alignment: l starts at pt, r ends at pt, c is centred; the glyph size follows the font size', () => {
  const bounds = (ops: unknown[], scale = 1) => {
    const r = rasterize(plain(ops, 100, 40), { scale });
    let [minX, maxX, minY, maxY] = [Infinity, -Infinity, Infinity, -Infinity];
    for (let y = 0; y < r.height; y++) {
      for (let x = 0; x < r.width; x++) {
        if (!isDark(rgb(r, x, y))) continue;
        [minX, maxX, minY, maxY] = [
          Math.min(minX, x),
          Math.max(maxX, x),
          Math.min(minY, y),
          Math.max(maxY, y),
        ];
      }
    }
    return { minX, maxX, minY, maxY };
  };
  const t = (align: string, size = 10, width = 30) => [
    { op: 'F', size, face: 'x' },
    PEN_BLACK,
    { op: 'T', pt: [50, 10], align, width, text: 'HHHHH' },
  ];
  const left = bounds(t('l'));
  const centre = bounds(t('c'));
  const right = bounds(t('r'));
  // pt.x = 50 points -> pixel 54; each H sits in a 6-pixel slot of the 30-point width.
  assert.ok(left.minX >= MARGIN + 50 && left.minX <= MARGIN + 51, `left ${left.minX}`);
  assert.ok(right.maxX <= MARGIN + 50 && right.maxX >= MARGIN + 48, `right ${right.maxX}`);
  assert.ok(Math.abs((centre.minX + centre.maxX + 1) / 2 - (MARGIN + 50)) <= 1, `centre ${centre.minX}`);
  // Baseline at y = 10 points up a 40-point box: the H's bottom row is the pixel row just above it.
  assert.equal(left.maxY, MARGIN + 30 - 1);
  assert.equal(left.maxY - left.minY + 1, 7, 'size 10 at scale 1: 7 pixels tall');
  const big = bounds(t('l', 20, 50));
  assert.equal(big.maxY - big.minY + 1, 14, 'size 20 at scale 1: 2x');
  // When Graphviz gave each character less room than a doubled glyph, the glyphs stay at 1x.
  const cramped = bounds(t('l', 20, 45));
  assert.equal(cramped.maxY - cramped.minY + 1, 7, 'size 20 in 9 points per character: 1x');
  const scaled = bounds(t('l', 10), 3);
  assert.equal(scaled.maxY - scaled.minY + 1, 21, 'size 10 at scale 3: 3x');
  const tiny = bounds(t('l', 4));
  assert.equal(tiny.maxY - tiny.minY + 1, 7, 'never below 1 pixel per font pixel');
});

test('line width: 1 pixel at scale 1, about scale pixels from scale 2, wider when bold or setlinewidth', () => {
  const width = (scale: number, style?: string) => {
    const ops: unknown[] = [
      PEN_BLACK,
      {
        op: 'L',
        points: [
          [20, 2],
          [20, 38],
        ],
      },
    ];
    if (style) ops.unshift({ op: 'S', style });
    const r = rasterize(plain(ops), { scale });
    return inkOnRow(r, Math.floor(r.height / 2));
  };
  assert.equal(width(1), 1);
  assert.equal(width(1.5), 1);
  assert.equal(width(2), 2);
  assert.equal(width(3), 3);
  assert.equal(width(1, 'bold'), 2);
  assert.equal(width(2, 'bold'), 4);
  assert.equal(width(1, 'setlinewidth(3)'), 3);
  assert.equal(width(2, 'setlinewidth(2.5)'), 5);
  assert.equal(width(1, 'setlinewidth(oops)'), 1);
  // A slanted line keeps roughly its width.
  const r = rasterize(
    plain([
      { op: 'S', style: 'setlinewidth(4)' },
      PEN_BLACK,
      {
        op: 'L',
        points: [
          [2, 2],
          [38, 38],
        ],
      },
    ]),
    { scale: 1 },
  );
  const across = inkOnRow(r, Math.floor(r.height / 2));
  assert.ok(across >= 5 && across <= 7, `45-degree 4-pixel line is ${across} wide on a row`);
});

test('dashed and dotted lines have gaps, solid ones none', () => {
  const runs = (style: string) => {
    const r = rasterize(
      plain([
        { op: 'S', style },
        PEN_BLACK,
        {
          op: 'L',
          points: [
            [2, 20],
            [38, 20],
          ],
        },
      ]),
      { scale: 2 },
    );
    const y = Math.floor(toPx(plain([]), 2, 0, 20)[1]);
    let on = 0;
    let gaps = 0;
    for (let x = MARGIN + 4; x < r.width - MARGIN - 4; x++) {
      if (isDark(rgb(r, x, y))) on++;
      else if (isDark(rgb(r, x - 1, y))) gaps++;
    }
    return { on, gaps };
  };
  const solid = runs('solid');
  const dashed = runs('dashed');
  const dotted = runs('dotted');
  assert.equal(solid.gaps, 0);
  assert.ok(dashed.gaps >= 4, `dashed gaps ${dashed.gaps}`);
  assert.ok(dotted.gaps >= 4, `dotted gaps ${dotted.gaps}`);
  assert.ok(solid.on > dashed.on && dashed.on > dotted.on, `${solid.on} > ${dashed.on} > ${dotted.on}`);
});

test('colours: alpha 00 paints nothing, partial alpha blends, unknown strings are a black pen and no fill', () => {
  const square = [
    [10, 10],
    [30, 10],
    [30, 30],
    [10, 30],
  ];
  const centre = (ops: unknown[]) => rgb(rasterize(plain(ops), { scale: 1 }), MARGIN + 20, MARGIN + 20);
  const edge = (ops: unknown[]) => rgb(rasterize(plain(ops), { scale: 1 }), MARGIN + 10, MARGIN + 20);
  const fill = (color: string) => ({ op: 'C', grad: 'none', color });
  const pen = (color: string) => ({ op: 'c', grad: 'none', color });
  assert.deepEqual(centre([fill('#336699'), { op: 'P', points: square }]), [0x33, 0x66, 0x99]);
  assert.deepEqual(
    centre([fill('#ABCDEF'), { op: 'P', points: square }]),
    [0xab, 0xcd, 0xef],
    'upper-case hex',
  );
  assert.deepEqual(centre([fill('#33669900'), { op: 'P', points: square }]), [255, 255, 255]);
  assert.deepEqual(centre([fill('#00000080'), { op: 'P', points: square }]), [127, 127, 127]);
  assert.deepEqual(centre([fill('red'), { op: 'P', points: square }]), [255, 255, 255], 'unknown fill: none');
  assert.deepEqual(edge([pen('#ff000000'), { op: 'p', points: square }]), [255, 255, 255]);
  assert.deepEqual(edge([pen('#00ff00'), { op: 'p', points: square }]), [0, 255, 0]);
  assert.deepEqual(edge([pen('bogus'), { op: 'p', points: square }]), [0, 0, 0], 'unknown pen: black');
  // p is only an outline: the inside stays empty.
  assert.deepEqual(centre([pen('#00ff00'), fill('#0000ff'), { op: 'p', points: square }]), [255, 255, 255]);
  // Each op list starts afresh: a pen set in one node's list does not leak into the next.
  const r = rasterize(
    {
      bb: '0,0,40,40',
      objects: [
        { _draw_: [pen('#00ff00') as XdotOp] },
        { _draw_: [{ op: 'p', points: square as [number, number][] }] },
      ],
    },
    { scale: 1 },
  );
  assert.deepEqual(rgb(r, MARGIN + 10, MARGIN + 20), [0, 0, 0]);
});

test('ellipses: E fills and outlines, e only outlines; y is flipped', () => {
  const r = rasterize(
    plain([
      { op: 'C', grad: 'none', color: '#0000ff' },
      { op: 'c', grad: 'none', color: '#ff0000' },
      { op: 'E', rect: [20, 30, 10, 5] },
      { op: 'e', rect: [20, 10, 10, 5] },
    ]),
    { scale: 2 },
  );
  const at = (x: number, y: number) => rgb(r, ...toPx(plain([]), 2, x, y));
  assert.deepEqual(at(20, 30), [0, 0, 255], 'filled ellipse near the top of the picture');
  assert.deepEqual(at(20, 10), [255, 255, 255], 'outline only near the bottom');
  const [ex, ey] = toPx(plain([]), 2, 30, 10);
  assert.ok(near(r, ex, ey, 1, same([255, 0, 0])) > 0, 'outline at the right end');
  assert.deepEqual(at(20, 36), [255, 255, 255], 'outside the filled ellipse');
});

test('op lists are drawn in order: graph, objects (draw then label), edges', () => {
  const fillSquare = (color: string): XdotOp[] => [
    { op: 'C', grad: 'none', color },
    {
      op: 'P',
      points: [
        [10, 10],
        [30, 10],
        [30, 30],
        [10, 30],
      ],
    },
  ];
  const base = { bb: '0,0,40,40' };
  const at = (l: GraphvizLayout) => rgb(rasterize(l, { scale: 1 }), MARGIN + 20, MARGIN + 20);
  assert.deepEqual(
    at({ ...base, _draw_: fillSquare('#110000'), objects: [{ _draw_: fillSquare('#220000') }] }),
    [0x22, 0, 0],
  );
  assert.deepEqual(
    at({ ...base, objects: [{ _draw_: fillSquare('#220000'), _ldraw_: fillSquare('#330000') }] }),
    [0x33, 0, 0],
  );
  assert.deepEqual(
    at({
      ...base,
      objects: [{ _ldraw_: fillSquare('#330000') }],
      edges: [{ _draw_: fillSquare('#440000') }],
    }),
    [0x44, 0, 0],
  );
  assert.deepEqual(
    at({ ...base, edges: [{ _tldraw_: fillSquare('#660000'), _hdraw_: fillSquare('#550000') }] }),
    [0x66, 0, 0],
  );
});

test('bad bb or scale throws a plain Error; pictures over MAX_PIXELS are refused', () => {
  const bad: unknown[] = [
    undefined,
    null,
    {},
    { bb: 42 },
    { bb: '' },
    { bb: '1,2,3' },
    { bb: 'a,b,c,d' },
    { bb: '0,0,10,NaN' },
    { bb: '0,0,Infinity,10' },
    { bb: '10,0,0,10' },
    { bb: '0,10,10,0' },
    { bb: '0,0,1e400,10' },
  ];
  for (const layout of bad)
    assert.throws(() => rasterize(layout as GraphvizLayout, { scale: 1 }), /bb/, JSON.stringify(layout));
  for (const scale of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '2' as unknown as number])
    assert.throws(() => rasterize({ bb: '0,0,10,10' }, { scale }), /scale/, String(scale));
  assert.equal(MAX_PIXELS, 16_777_216);
  assert.throws(() => rasterize({ bb: '0,0,5000,5000' }, { scale: 1 }), /over the limit/);
  assert.throws(() => rasterize({ bb: '0,0,10,10' }, { scale: 1e300 }), /over the limit/);
  assert.throws(() => rasterize({ bb: `0,0,${MAX_PIXELS},0` }, { scale: 1 }), /over the limit/);
  // Exactly MAX_PIXELS is allowed.
  const side = Math.sqrt(MAX_PIXELS) - 2 * MARGIN;
  const r = rasterize({ bb: `0,0,${side},${side}` }, { scale: 1 });
  assert.equal(r.width * r.height, MAX_PIXELS);
  // An empty graph still has its margins.
  assert.deepEqual([rasterize({ bb: '0,0,0,0' }, { scale: 2 }).width], [2 * MARGIN]);
});

test('fitScale: the scale it returns fits the limits, and a slightly bigger one does not', () => {
  const layout = layoutOf('digraph { a -> b -> c -> d; a -> d; b -> e; e -> f; f -> a }');
  const cases = [
    { maxScale: 4, maxPixels: 50_000, maxSide: 10_000 },
    { maxScale: 4, maxPixels: MAX_PIXELS, maxSide: 200 },
    { maxScale: 2, maxPixels: 20_000, maxSide: 150 },
    { maxScale: 4, maxPixels: 3_000, maxSide: 10_000 },
    { maxScale: 10, maxPixels: 1_000_000, maxSide: 700 },
  ];
  const fits = (scale: number, l: (typeof cases)[number]) => {
    const r = rasterize(layout, { scale });
    return r.width <= l.maxSide && r.height <= l.maxSide && r.width * r.height <= l.maxPixels;
  };
  for (const limits of cases) {
    const s = fitScale(layout, limits);
    assert.ok(s > 0 && s <= limits.maxScale, `${JSON.stringify(limits)} -> ${s}`);
    assert.ok(fits(s, limits), `${s} fits ${JSON.stringify(limits)}`);
    if (s < limits.maxScale) {
      assert.ok(!fits(s * (1 + 1e-12), limits), `${s} is the largest for ${JSON.stringify(limits)}`);
      assert.ok(!fits(s * 1.01, limits));
    }
  }
  // Fits as asked: the answer is maxScale itself.
  assert.equal(fitScale(layout, { maxScale: 1, maxPixels: MAX_PIXELS, maxSide: 100_000 }), 1);
  // Below 1 is returned as it is.
  const small = fitScale(layout, { maxScale: 1, maxPixels: 2_000, maxSide: 1_000 });
  assert.ok(small > 0 && small < 1);
  // MAX_PIXELS caps a looser maxPixels.
  const big = fitScale(layout, { maxScale: 1000, maxPixels: 1e12, maxSide: 1e9 });
  const r = rasterize(layout, { scale: big });
  assert.ok(r.width * r.height <= MAX_PIXELS);
  // Nothing fits when the margins alone are too big.
  assert.equal(fitScale(layout, { maxScale: 1, maxPixels: 10, maxSide: 10_000 }), 0);
  assert.throws(() => fitScale({ bb: 'x' }, { maxScale: 1, maxPixels: 100, maxSide: 100 }), /bb/);
  assert.throws(() => fitScale(layout, { maxScale: 0, maxPixels: 100, maxSide: 100 }), /maxScale/);
});

test('caps: points past MAX_POINTS_PER_OP and characters past MAX_TEXT_LENGTH are not drawn', () => {
  const many = Array.from({ length: MAX_POINTS_PER_OP }, () => [5, 5] as [number, number]);
  const r = rasterize(plain([PEN_BLACK, { op: 'L', points: [...many, [35, 35], [35, 5]] }]), { scale: 1 });
  assert.equal(near(r, MARGIN + 35, MARGIN + 20, 3, isDark), 0, 'the points beyond the cap are ignored');
  assert.ok(near(r, MARGIN + 5, MARGIN + 35, 1, isDark) > 0, 'the points before it are drawn');
  const wide = (text: string) =>
    rasterize(
      {
        bb: `0,0,${6 * (MAX_TEXT_LENGTH + 10)},20`,
        _draw_: [
          { op: 'F', size: 10, face: 'x' },
          PEN_BLACK as XdotOp,
          {
            op: 'T',
            pt: [0, 5],
            align: 'l',
            width: 0,
            text,
          },
        ],
      },
      { scale: 1 },
    );
  const darkCount = (r: Raster) => {
    let n = 0;
    for (let i = 0; i < r.rgba.length; i += 4) if (r.rgba[i]! < 128) n++;
    return n;
  };
  assert.ok(
    darkCount(wide(' '.repeat(MAX_TEXT_LENGTH - 1) + 'H')) > 0,
    'the last allowed character is drawn',
  );
  assert.equal(darkCount(wide(' '.repeat(MAX_TEXT_LENGTH) + 'HHHH')), 0, 'characters past the cap are not');
});

/** A random value of the kind a hostile op list could hold. */
function hostile(next: () => number): unknown {
  const pool: unknown[] = [
    Number.NaN,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
    1e300,
    -1e300,
    1e9,
    -1e9,
    0,
    -0,
    5e-324,
    'x',
    null,
    undefined,
    [],
    {},
    [1],
    [1, 2, 3],
    true,
  ];
  return next() < 0.5 ? (next() - 0.3) * 120 : pool[Math.floor(next() * pool.length)];
}

function randomPoints(next: () => number): unknown {
  const roll = next();
  if (roll < 0.05) return hostile(next);
  if (roll < 0.1) return [];
  const n = roll < 0.12 ? 3000 : Math.floor(next() * 12);
  return Array.from({ length: n }, () =>
    next() < 0.1 ? hostile(next) : [next() < 0.9 ? (next() - 0.2) * 80 : hostile(next), hostile(next)],
  );
}

const TEXTS = [
  '',
  'main',
  'sub_02000000',
  '\u00e9\u00e8\u{1f600}\ud800',
  'x'.repeat(5000),
  '\u0000\n\t',
  'a b c',
];
const STYLES = [
  'solid',
  'dashed',
  'dotted',
  'bold',
  'setlinewidth(3)',
  'setlinewidth(1e308)',
  'setlinewidth(-1)',
  'invis',
  'filled',
  '',
];
const COLOURS = ['#000000', '#ff0000', '#12345678', '#12345600', 'red', '', '#zzzzzz', '#fff', 'none'];

function randomOp(next: () => number): unknown {
  const pick = <T>(a: readonly T[]): T => a[Math.floor(next() * a.length)]!;
  const op = pick(['c', 'C', 'p', 'P', 'e', 'E', 'b', 'B', 'L', 'T', 'F', 'S', 'I', 't', 'X', '', 7, null]);
  const r = next();
  if (r < 0.02) return hostile(next);
  switch (op) {
    case 'c':
    case 'C':
      return { op, grad: 'none', color: r < 0.9 ? pick(COLOURS) : hostile(next) };
    case 'p':
    case 'P':
    case 'b':
    case 'B':
    case 'L':
      return { op, points: randomPoints(next) };
    case 'e':
    case 'E':
      return {
        op,
        rect:
          r < 0.7
            ? [next() * 40, next() * 40, next() * 20, next() * 20]
            : [hostile(next), hostile(next), hostile(next), hostile(next)],
      };
    case 'T':
      return {
        op,
        pt: r < 0.7 ? [next() * 40, next() * 40] : [hostile(next), hostile(next)],
        align: pick(['l', 'c', 'r', 'x', undefined]),
        width: r < 0.5 ? next() * 60 : hostile(next),
        text: r < 0.9 ? pick(TEXTS) : hostile(next),
      };
    case 'F':
      return { op, size: r < 0.7 ? next() * 40 : hostile(next), face: 'Times-Roman' };
    case 'S':
      return { op, style: r < 0.9 ? pick(STYLES) : hostile(next) };
    default:
      return { op, points: [[1, 2]], rect: [1, 2, 3, 4], text: 'what' };
  }
}

test('fuzz: thousands of hostile op lists never throw and give a picture of the right size', () => {
  const next = rng(20240607);
  const started = Date.now();
  for (let round = 0; round < 3000; round++) {
    const w = Math.floor(next() * 60);
    const h = Math.floor(next() * 60);
    const scale = 0.25 + next() * 2.75;
    const list = () =>
      next() < 0.05 ? hostile(next) : Array.from({ length: Math.floor(next() * 8) }, () => randomOp(next));
    const layout = {
      bb: `0,0,${w},${h}`,
      _draw_: list(),
      objects: next() < 0.05 ? hostile(next) : [{ _draw_: list(), _ldraw_: list() }, hostile(next)],
      edges:
        next() < 0.05
          ? hostile(next)
          : [{ _draw_: list(), _hdraw_: list(), _tdraw_: list(), _ldraw_: list() }],
    } as unknown as GraphvizLayout;
    let r: Raster;
    try {
      r = rasterize(layout, { scale });
    } catch (err) {
      assert.fail(`round ${round} threw ${(err as Error).stack}\n${JSON.stringify(layout).slice(0, 2000)}`);
    }
    assert.equal(r.width, Math.ceil(w * scale - 1e-6) + 2 * MARGIN, `round ${round}`);
    assert.equal(r.height, Math.ceil(h * scale - 1e-6) + 2 * MARGIN);
    assert.equal(r.rgba.length, r.width * r.height * 4);
  }
  assert.ok(Date.now() - started < 60_000, 'bounded time');
});

test('fuzz: huge hostile shapes on a big picture finish in bounded time', () => {
  const zigzag = Array.from({ length: MAX_POINTS_PER_OP + 5000 }, (_, i) => [
    i % 2 ? 1e9 : -1e9,
    (i * 7) % 2000,
  ]);
  const started = Date.now();
  const r = rasterize(
    plain(
      [
        { op: 'C', grad: 'none', color: '#123456' },
        { op: 'S', style: 'setlinewidth(1000)' },
        { op: 'P', points: zigzag },
        { op: 'S', style: 'dotted' },
        { op: 'B', points: zigzag },
        { op: 'E', rect: [1000, 1000, 1e300, 1e300] },
        { op: 'F', size: 1e9, face: 'x' },
        { op: 'T', pt: [1000, 1000], align: 'c', width: 1e12, text: 'W'.repeat(5000) },
      ],
      2000,
      2000,
    ),
    { scale: 2 },
  );
  assert.equal(r.width, 4008);
  assert.ok(Date.now() - started < 60_000, `took ${Date.now() - started} ms`);
});

test('the picture encodes to a PNG that decodes to the same pixels', () => {
  const layout = layoutOf(
    'digraph { node [shape=box]; entry -> loop -> loop; loop -> exit [color="#cc0000"] }',
  );
  const r = rasterize(layout, { scale: 2 });
  const back = readPng(encodePng(r.width, r.height, r.rgba));
  assert.deepEqual([back.width, back.height], [r.width, r.height]);
  assert.deepEqual(back.pixels, r.rgba);
});
