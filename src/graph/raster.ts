// Paints a Graphviz layout into an RGBA picture without any graphics library: it reads the xdot drawing
// operations that Graphviz puts into its JSON output (`-Tjson`, what @viz-js/viz's renderJSON returns) and
// draws them with scanline fills, plain line stepping and the bitmap font of font.ts. The input is treated
// as untrusted: bad coordinates, unknown operations and oversized lists are skipped or cut short, and the
// work per operation is capped, so only a missing bb, a bad scale or an oversized picture throw.
import { CELL_ASCENT, CELL_HEIGHT, CELL_WIDTH, glyphOrBox } from './font.js';

/** The largest picture rasterize paints (width * height). */
export const MAX_PIXELS = 16_777_216;
/** Blank pixels added on every side of the layout's bounding box. */
export const MARGIN = 4;
/** Points read from one operation; the rest are ignored. */
export const MAX_POINTS_PER_OP = 100_000;
/** Characters drawn from one text operation; the rest are ignored. */
export const MAX_TEXT_LENGTH = 1_000;
/** Pixel writes (and scanline edge visits) one operation may spend before it is cut short. */
const OP_BUDGET = 1 << 25;
/** Thickest stroke, and largest font pixel, in screen pixels. */
const MAX_LINE_WIDTH = 64;
const MAX_FONT_PIXEL = 64;
/** Coordinates (in pixels) are clamped to this, so arithmetic on hostile values stays finite. */
const COORD_LIMIT = 1e9;
/** Font size when no F operation came first (Graphviz's default). */
const DEFAULT_FONT_SIZE = 14;
/** Dash patterns in points, on then off (what Graphviz's SVG output uses). */
const DASHED: readonly [number, number] = [5, 2];
const DOTTED: readonly [number, number] = [1, 5];

export type XdotPoint = [number, number];

/** The xdot drawing operations rasterize understands; any other op is skipped. */
export type XdotOp =
  | { op: 'c' | 'C'; grad: string; color: string }
  | { op: 'p' | 'P' | 'b' | 'B' | 'L'; points: XdotPoint[] }
  | { op: 'e' | 'E'; rect: [number, number, number, number] }
  | { op: 'T'; pt: XdotPoint; align: 'l' | 'c' | 'r'; width: number; text: string }
  | { op: 'F'; size: number; face: string }
  | { op: 'S'; style: string };

/** A node or cluster of the layout (Graphviz lists clusters first). */
export interface GraphvizObject {
  _draw_?: XdotOp[];
  _ldraw_?: XdotOp[];
}

export interface GraphvizEdge {
  _draw_?: XdotOp[];
  _hdraw_?: XdotOp[];
  _tdraw_?: XdotOp[];
  _ldraw_?: XdotOp[];
  _hldraw_?: XdotOp[];
  _tldraw_?: XdotOp[];
}

/** The part of Graphviz's JSON output that is read. */
export interface GraphvizLayout {
  /** "llx,lly,urx,ury" in points, y growing upward. */
  bb: string;
  _draw_?: XdotOp[];
  _ldraw_?: XdotOp[];
  objects?: GraphvizObject[];
  edges?: GraphvizEdge[];
}

/** Another name for GraphvizLayout. */
export type GraphvizJson = GraphvizLayout;

export interface RasterOptions {
  /** Pixels per point. */
  scale: number;
  /** Colour of the pixels nothing is drawn on; white when left out. */
  background?: [number, number, number];
}

export interface Raster {
  width: number;
  height: number;
  /** width * height * 4 bytes, row by row from the top, every pixel opaque. */
  rgba: Uint8Array;
}

export interface FitLimits {
  maxScale: number;
  maxPixels: number;
  maxSide: number;
}

// ---------------------------------------------------------------------------------------------------------
// Size of the picture

type Box = [llx: number, lly: number, urx: number, ury: number];

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

function readBB(layout: unknown): Box {
  const bb = layout !== null && typeof layout === 'object' ? (layout as { bb?: unknown }).bb : undefined;
  if (typeof bb !== 'string') throw new Error('graph layout has no bb (expected "llx,lly,urx,ury")');
  const parts = bb.split(',').map((p) => p.trim());
  if (parts.length !== 4 || !parts.every((p) => NUMBER.test(p)))
    throw new Error(`graph layout has a malformed bb ${JSON.stringify(bb.slice(0, 80))}`);
  const [llx, lly, urx, ury] = parts.map(Number) as Box;
  if (![llx, lly, urx, ury].every(Number.isFinite) || urx < llx || ury < lly)
    throw new Error(`graph layout has a malformed bb ${JSON.stringify(bb.slice(0, 80))}`);
  return [llx, lly, urx, ury];
}

/** Pixels along one side: the extent in points times the scale, rounded up (with a little slack for
 * floating-point noise, so 54 * 2.000000000001 stays 108), plus the margin on both ends. */
function side(extent: number, scale: number): number {
  return Math.max(0, Math.ceil(extent * scale - 1e-6)) + 2 * MARGIN;
}

function checkScale(scale: unknown, what: string): number {
  if (typeof scale !== 'number' || !Number.isFinite(scale) || scale <= 0)
    throw new Error(`${what} must be a positive finite number, got ${String(scale)}`);
  return scale;
}

/**
 * The largest scale, at most maxScale, at which the picture is no more than maxSide pixels on either side
 * and no more than maxPixels (nor MAX_PIXELS) pixels in all. 0 when not even a vanishing scale fits (the
 * margins alone are too big).
 */
export function fitScale(layout: GraphvizLayout, limits: FitLimits): number {
  const [llx, lly, urx, ury] = readBB(layout);
  const maxScale = checkScale(limits?.maxScale, 'maxScale');
  const maxPixels = Math.min(MAX_PIXELS, Number(limits.maxPixels));
  const maxSide = Number(limits.maxSide);
  const [bw, bh] = [urx - llx, ury - lly];
  const fits = (s: number): boolean => {
    const [w, h] = [side(bw, s), side(bh, s)];
    return w <= maxSide && h <= maxSide && w * h <= maxPixels;
  };
  if (fits(maxScale)) return maxScale;
  if (!fits(0)) return 0;
  // The size only grows with the scale: bisect down to neighbouring doubles.
  let lo = 0;
  let hi = maxScale;
  for (;;) {
    const mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) return lo;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The canvas

interface Colour {
  r: number;
  g: number;
  b: number;
  /** 1..255 (a transparent colour is represented by no colour at all). */
  a: number;
  /** The pixel as one word of the canvas's Uint32Array view. */
  word: number;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

function colour(r: number, g: number, b: number, a: number): Colour {
  const word = LITTLE_ENDIAN
    ? ((a << 24) | (b << 16) | (g << 8) | r) >>> 0
    : ((r << 24) | (g << 16) | (b << 8) | a) >>> 0;
  return { r, g, b, a, word };
}

const BLACK = colour(0, 0, 0, 255);

class Canvas {
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

// ---------------------------------------------------------------------------------------------------------
// Drawing state and primitives

interface State {
  pen: Colour | null;
  fill: Colour | null;
  /** Line width in points. */
  lineWidth: number;
  dash: readonly [number, number] | null;
  fontSize: number;
}

function freshState(): State {
  return { pen: BLACK, fill: BLACK, lineWidth: 1, dash: null, fontSize: DEFAULT_FONT_SIZE };
}

const HEX_COLOUR = /^#([0-9a-fA-F]{6})([0-9a-fA-F]{2})?$/;

/** A colour for `#rrggbb` / `#rrggbbaa`, null when fully transparent, undefined when not understood. */
function readColour(value: unknown): Colour | null | undefined {
  if (typeof value !== 'string') return undefined;
  const m = HEX_COLOUR.exec(value);
  if (!m) return undefined;
  const rgb = Number.parseInt(m[1]!, 16);
  const a = m[2] === undefined ? 255 : Number.parseInt(m[2], 16);
  return a === 0 ? null : colour((rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff, a);
}

function applyStyle(state: State, style: unknown): void {
  if (typeof style !== 'string') return;
  const s = style.trim();
  if (s === 'solid') state.dash = null;
  else if (s === 'dashed') state.dash = DASHED;
  else if (s === 'dotted') state.dash = DOTTED;
  else if (s === 'bold') state.lineWidth = 2;
  else {
    const m = /^setlinewidth\(\s*([^)]*)\)$/.exec(s);
    if (m && NUMBER.test(m[1]!.trim())) {
      const w = Number(m[1]);
      if (Number.isFinite(w) && w >= 0) state.lineWidth = Math.min(w, 1e6);
    }
  }
}

function clamp(v: number): number {
  return Math.max(-COORD_LIMIT, Math.min(COORD_LIMIT, v));
}

/**
 * Liang-Barsky: the part [t0, t1] of the segment a + t (b - a), t in [0, 1], inside the box
 * [lo, hiX] x [lo, hiY]; null when none of it is.
 */
function clipSegment(
  ax: number,
  ay: number,
  bx: number,
  by: number,
  lo: number,
  hiX: number,
  hiY: number,
): [number, number] | null {
  let t0 = 0;
  let t1 = 1;
  const dx = bx - ax;
  const dy = by - ay;
  const edges: [number, number][] = [
    [-dx, ax - lo],
    [dx, hiX - ax],
    [-dy, ay - lo],
    [dy, hiY - ay],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return null;
    } else {
      const r = q / p;
      if (p < 0) {
        if (r > t1) return null;
        if (r > t0) t0 = r;
      } else {
        if (r < t0) return null;
        if (r < t1) t1 = r;
      }
    }
  }
  return [t0, t1];
}

class Painter {
  constructor(
    readonly canvas: Canvas,
    readonly scale: number,
    readonly box: Box,
  ) {}

  /** Points of an op as pixel coordinates (x, y interleaved), bad points dropped, at most MAX_POINTS_PER_OP. */
  points(value: unknown): number[] {
    const out: number[] = [];
    if (!Array.isArray(value)) return out;
    const n = Math.min(value.length, MAX_POINTS_PER_OP);
    for (let i = 0; i < n; i++) {
      const p: unknown = value[i];
      if (!Array.isArray(p) || p.length < 2) continue;
      const [x, y] = [p[0], p[1]];
      if (typeof x !== 'number' || typeof y !== 'number') continue;
      const px = this.x(x);
      const py = this.y(y);
      if (Number.isFinite(px) && Number.isFinite(py)) out.push(clamp(px), clamp(py));
    }
    return out;
  }

  x(x: number): number {
    return MARGIN + (x - this.box[0]) * this.scale;
  }

  y(y: number): number {
    return MARGIN + (this.box[3] - y) * this.scale;
  }

  thickness(state: State): number {
    const w = state.lineWidth * this.scale;
    return w < 2 ? 1 : Math.min(MAX_LINE_WIDTH, Math.round(w));
  }

  /** A t x t square of pixels centred on (x, y): the joint between two strokes, or a stroke's end. */
  dot(x: number, y: number, t: number, c: Colour): void {
    const left = Math.floor(x - t / 2 + 0.5);
    const top = Math.floor(y - t / 2 + 0.5);
    this.canvas.rect(left, top, left + t, top + t, c);
  }

  /** A straight stroke t pixels thick from a to b, with square dots at both ends. */
  segment(ax: number, ay: number, bx: number, by: number, t: number, c: Colour): void {
    const cv = this.canvas;
    const pad = t + 2;
    const clip = clipSegment(ax, ay, bx, by, -pad, cv.width + pad, cv.height + pad);
    if (clip === null) return;
    const dx = bx - ax;
    const dy = by - ay;
    const [sx, sy] = [ax + dx * clip[0], ay + dy * clip[0]];
    const [ex, ey] = [ax + dx * clip[1], ay + dy * clip[1]];
    if (Math.abs(dx) >= Math.abs(dy)) {
      if (dx !== 0) {
        // One run of n pixels per column, n grown so the stroke keeps its width when slanted.
        const m = dy / dx;
        const n = t === 1 ? 1 : Math.max(1, Math.round(t * Math.sqrt(1 + m * m)));
        const from = Math.max(0, Math.ceil(Math.min(sx, ex) - 0.5));
        const to = Math.min(cv.width - 1, Math.floor(Math.max(sx, ex) - 0.5));
        for (let i = from; i <= to && cv.budget > 0; i++) {
          const yc = ay + (i + 0.5 - ax) * m;
          const top = Math.floor(yc - n / 2 + 0.5);
          cv.rect(i, top, i + 1, top + n, c);
        }
      }
    } else {
      const m = dx / dy;
      const n = t === 1 ? 1 : Math.max(1, Math.round(t * Math.sqrt(1 + m * m)));
      const from = Math.max(0, Math.ceil(Math.min(sy, ey) - 0.5));
      const to = Math.min(cv.height - 1, Math.floor(Math.max(sy, ey) - 0.5));
      for (let j = from; j <= to && cv.budget > 0; j++) {
        const xc = ax + (j + 0.5 - ay) * m;
        const left = Math.floor(xc - n / 2 + 0.5);
        cv.span(j, left, left + n, c);
      }
    }
    if (clip[0] === 0) this.dot(ax, ay, t, c);
    if (clip[1] === 1) this.dot(bx, by, t, c);
  }

  /** Strokes the path through the points (pixel coordinates) with the pen, solid or dashed. */
  stroke(pts: readonly number[], closed: boolean, state: State): void {
    const c = state.pen;
    if (c === null || pts.length < 2) return;
    const cv = this.canvas;
    const t = this.thickness(state);
    const count = pts.length / 2;
    if (count === 1) {
      this.dot(pts[0]!, pts[1]!, t, c);
      return;
    }
    const segments = closed ? count : count - 1;
    const dash = state.dash === null ? null : state.dash.map((d) => Math.max(1, d * this.scale));
    const pad = t + 2;
    let phase = 0;
    for (let k = 0; k < segments && cv.budget > 0; k++) {
      const [ax, ay] = [pts[2 * k]!, pts[2 * k + 1]!];
      const next = (k + 1) % count;
      const [bx, by] = [pts[2 * next]!, pts[2 * next + 1]!];
      if (dash === null) {
        this.segment(ax, ay, bx, by, t, c);
        continue;
      }
      // Dashes: walk the on/off pattern along the visible part of the segment only.
      const length = Math.hypot(bx - ax, by - ay);
      if (!(length > 0)) continue;
      const [on, off] = dash as [number, number];
      const period = on + off;
      const clip = clipSegment(ax, ay, bx, by, -pad, cv.width + pad, cv.height + pad);
      if (clip !== null) {
        let d = clip[0] * length;
        const end = clip[1] * length;
        let p = (phase + d) % period;
        while (d < end && cv.budget > 0) {
          const step = p < on ? on - p : period - p;
          const stop = Math.min(end, d + step);
          if (p < on) {
            const [f0, f1] = [d / length, stop / length];
            const [dx, dy] = [bx - ax, by - ay];
            this.segment(ax + dx * f0, ay + dy * f0, ax + dx * f1, ay + dy * f1, t, c);
          }
          p = (p + (stop - d)) % period;
          if (stop - d <= 0) break;
          d = stop;
        }
      }
      phase = (phase + length) % period;
    }
  }

  /** Fills the polygon (pixel coordinates) by scanlines, even-odd, sampling pixel centres. */
  fillPolygon(pts: readonly number[], c: Colour | null): void {
    const cv = this.canvas;
    const count = pts.length / 2;
    if (c === null || count < 3) return;
    // Edge table: for each non-horizontal edge, the first and last row whose centre it crosses.
    const x0 = new Float64Array(count);
    const y0 = new Float64Array(count);
    const slope = new Float64Array(count);
    const first = new Int32Array(count);
    const last = new Int32Array(count);
    const order: number[] = [];
    for (let k = 0; k < count; k++) {
      const next = (k + 1) % count;
      const [ax, ay, bx, by] = [pts[2 * k]!, pts[2 * k + 1]!, pts[2 * next]!, pts[2 * next + 1]!];
      if (ay === by) continue;
      const top = Math.max(0, Math.ceil(Math.min(ay, by) - 0.5));
      const bottom = Math.min(cv.height - 1, Math.ceil(Math.max(ay, by) - 0.5) - 1);
      if (bottom < top) continue;
      x0[k] = ax;
      y0[k] = ay;
      slope[k] = (bx - ax) / (by - ay);
      first[k] = top;
      last[k] = bottom;
      order.push(k);
    }
    if (order.length === 0) return;
    order.sort((a, b) => first[a]! - first[b]!);
    const crossings = new Float64Array(order.length);
    let active: number[] = [];
    let waiting = 0;
    const startRow = first[order[0]!]!;
    for (let y = startRow; y < cv.height && cv.budget > 0; y++) {
      while (waiting < order.length && first[order[waiting]!]! <= y) active.push(order[waiting++]!);
      active = active.filter((k) => last[k]! >= y);
      if (active.length === 0) {
        if (waiting === order.length) break;
        y = first[order[waiting]!]! - 1;
        continue;
      }
      cv.budget -= active.length;
      const yc = y + 0.5;
      for (let i = 0; i < active.length; i++) {
        const k = active[i]!;
        const x = x0[k]! + (yc - y0[k]!) * slope[k]!;
        crossings[i] = Number.isNaN(x) ? x0[k]! : x;
      }
      const xs = crossings.subarray(0, active.length).sort();
      for (let i = 0; i + 1 < xs.length; i += 2) {
        const from = Math.ceil(Math.max(-1, xs[i]!) - 0.5);
        const to = Math.ceil(Math.min(cv.width + 1, xs[i + 1]!) - 0.5);
        cv.span(y, from, to, c);
      }
    }
  }

  fillEllipse(cx: number, cy: number, rx: number, ry: number, c: Colour | null): void {
    const cv = this.canvas;
    if (c === null || !(rx > 0) || !(ry > 0)) return;
    const top = Math.max(0, Math.ceil(cy - ry - 0.5));
    const bottom = Math.min(cv.height - 1, Math.ceil(cy + ry - 0.5));
    for (let y = top; y <= bottom && cv.budget > 0; y++) {
      const d = (y + 0.5 - cy) / ry;
      if (d * d > 1) continue;
      const half = rx * Math.sqrt(1 - d * d);
      cv.span(
        y,
        Math.ceil(Math.max(-1, cx - half) - 0.5),
        Math.ceil(Math.min(cv.width + 1, cx + half) - 0.5),
        c,
      );
    }
  }

  /** The ellipse's outline as a closed path, with enough points to look round at this size. */
  ellipsePath(cx: number, cy: number, rx: number, ry: number): number[] {
    const around = 2 * Math.PI * Math.sqrt((rx * rx + ry * ry) / 2);
    const n = Math.max(12, Math.min(2048, Math.ceil(around / 3)));
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      const a = (2 * Math.PI * i) / n;
      out.push(clamp(cx + rx * Math.cos(a)), clamp(cy + ry * Math.sin(a)));
    }
    return out;
  }

  /** Cubic Bezier pieces p0 (c1 c2 p)* flattened to a path; fewer than 4 points stay a polyline. */
  bezierPath(pts: readonly number[]): number[] {
    const count = pts.length / 2;
    if (count < 4) return [...pts];
    const out: number[] = [pts[0]!, pts[1]!];
    const limit = 4 * MAX_POINTS_PER_OP;
    for (let k = 0; k + 3 < count && out.length < 2 * limit; k += 3) {
      const [x0, y0, x1, y1] = [pts[2 * k]!, pts[2 * k + 1]!, pts[2 * k + 2]!, pts[2 * k + 3]!];
      const [x2, y2, x3, y3] = [pts[2 * k + 4]!, pts[2 * k + 5]!, pts[2 * k + 6]!, pts[2 * k + 7]!];
      const hull = Math.hypot(x1 - x0, y1 - y0) + Math.hypot(x2 - x1, y2 - y1) + Math.hypot(x3 - x2, y3 - y2);
      const n = Math.max(1, Math.min(256, Math.ceil(hull / 3)));
      for (let i = 1; i <= n; i++) {
        const t = i / n;
        const u = 1 - t;
        const [a, b, cc, d] = [u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t];
        out.push(a * x0 + b * x1 + cc * x2 + d * x3, a * y0 + b * y1 + cc * y2 + d * y3);
      }
    }
    return out;
  }

  text(op: Record<string, unknown>, state: State): void {
    const c = state.pen;
    const pt = op.pt;
    if (c === null || !Array.isArray(pt) || typeof op.text !== 'string') return;
    const [tx, ty] = [pt[0], pt[1]];
    if (typeof tx !== 'number' || typeof ty !== 'number') return;
    const px = this.x(tx);
    const py = this.y(ty);
    if (!Number.isFinite(px) || !Number.isFinite(py)) return;
    const codes: number[] = [];
    for (const ch of op.text) {
      if (codes.length >= MAX_TEXT_LENGTH) break;
      codes.push(ch.codePointAt(0)!);
    }
    const n = codes.length;
    if (n === 0) return;
    // Font pixel: 1 screen pixel per 10 points of font size at scale 1, at least 1; smaller when a glyph
    // would be wider than the room Graphviz gave each character (neighbours would run into each other).
    let f = Math.max(1, Math.floor((state.fontSize * this.scale) / 10 + 1e-9));
    const laidOut = typeof op.width === 'number' && Number.isFinite(op.width) && op.width > 0;
    const total = laidOut ? Math.min((op.width as number) * this.scale, 2 * COORD_LIMIT) : NaN;
    if (laidOut) f = Math.max(1, Math.min(f, Math.floor(total / n / CELL_WIDTH + 1e-9)));
    f = Math.min(f, MAX_FONT_PIXEL);
    const advance = laidOut ? total / n : (CELL_WIDTH + 1) * f;
    const width = advance * n;
    const left = op.align === 'l' ? px : op.align === 'r' ? px - width : px - width / 2;
    const baseline = Math.round(py);
    const top = baseline - CELL_ASCENT * f;
    const cv = this.canvas;
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

  /** Runs one list of drawing operations (one _draw_, _ldraw_, ... attribute). */
  run(ops: unknown): void {
    if (!Array.isArray(ops)) return;
    const state = freshState();
    for (const raw of ops) {
      if (raw === null || typeof raw !== 'object') continue;
      const op = raw as Record<string, unknown>;
      this.canvas.budget = OP_BUDGET;
      switch (op.op) {
        case 'c': {
          const c = readColour(op.color);
          state.pen = c === undefined ? BLACK : c;
          break;
        }
        case 'C': {
          const c = readColour(op.color);
          state.fill = c === undefined ? null : c;
          break;
        }
        case 'F':
          if (typeof op.size === 'number' && Number.isFinite(op.size) && op.size > 0)
            state.fontSize = Math.min(op.size, 1e6);
          break;
        case 'S':
          applyStyle(state, op.style);
          break;
        case 'p':
        case 'P': {
          const pts = this.points(op.points);
          if (op.op === 'P') this.fillPolygon(pts, state.fill);
          this.stroke(pts, true, state);
          break;
        }
        case 'L':
          this.stroke(this.points(op.points), false, state);
          break;
        case 'b':
        case 'B': {
          const path = this.bezierPath(this.points(op.points));
          if (op.op === 'B') this.fillPolygon(path, state.fill);
          this.stroke(path, false, state);
          break;
        }
        case 'e':
        case 'E': {
          const rect = op.rect;
          if (!Array.isArray(rect) || rect.length < 4) break;
          const [cx, cy, rx, ry] = [rect[0], rect[1], rect[2], rect[3]].map((v) =>
            typeof v === 'number' ? v : NaN,
          );
          const [x, y] = [this.x(cx!), this.y(cy!)];
          const [w, h] = [Math.abs(rx!) * this.scale, Math.abs(ry!) * this.scale];
          if (![x, y, w, h].every(Number.isFinite)) break;
          const [cxp, cyp, rxp, ryp] = [
            clamp(x),
            clamp(y),
            Math.min(w, COORD_LIMIT),
            Math.min(h, COORD_LIMIT),
          ];
          if (op.op === 'E') this.fillEllipse(cxp, cyp, rxp, ryp, state.fill);
          this.stroke(this.ellipsePath(cxp, cyp, rxp, ryp), true, state);
          break;
        }
        case 'T':
          this.text(op, state);
          break;
        default:
          break;
      }
    }
  }
}

function readBackground(bg: unknown): Colour {
  if (!Array.isArray(bg)) return colour(255, 255, 255, 255);
  const channel = (v: unknown): number =>
    typeof v === 'number' && Number.isFinite(v) ? Math.min(255, Math.max(0, Math.round(v))) : 0;
  return colour(channel(bg[0]), channel(bg[1]), channel(bg[2]), 255);
}

/**
 * Paints the layout at `scale` pixels per point: the bounding box times the scale, rounded up, plus MARGIN
 * pixels on each side, y pointing down. Draws the graph's _draw_ and _ldraw_, then each object's _draw_ and
 * _ldraw_, then each edge's _draw_, _hdraw_, _tdraw_, _ldraw_, _hldraw_ and _tldraw_. Filled shapes (P, E,
 * B) are filled with the fill colour and outlined with the pen colour, as Graphviz's own renderers do.
 * Throws only for a missing or malformed bb, a scale that is not a positive finite number, or a picture of
 * more than MAX_PIXELS pixels.
 */
export function rasterize(layout: GraphvizLayout, options: RasterOptions): Raster {
  const box = readBB(layout);
  const scale = checkScale(options?.scale, 'scale');
  const width = side(box[2] - box[0], scale);
  const height = side(box[3] - box[1], scale);
  if (!(width * height <= MAX_PIXELS))
    throw new Error(`picture of ${width}x${height} pixels is over the limit of ${MAX_PIXELS} pixels`);
  const canvas = new Canvas(width, height, readBackground(options.background));
  const painter = new Painter(canvas, scale, box);
  const g = layout as unknown as Record<string, unknown>;
  painter.run(g._draw_);
  painter.run(g._ldraw_);
  for (const [list, keys] of [
    [g.objects, OBJECT_DRAWS],
    [g.edges, EDGE_DRAWS],
  ] as const) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (item === null || typeof item !== 'object') continue;
      for (const key of keys) painter.run((item as Record<string, unknown>)[key]);
    }
  }
  return { width, height, rgba: canvas.bytes };
}

const OBJECT_DRAWS = ['_draw_', '_ldraw_'] as const;
const EDGE_DRAWS = ['_draw_', '_hdraw_', '_tdraw_', '_ldraw_', '_hldraw_', '_tldraw_'] as const;
