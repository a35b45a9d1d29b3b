// Paints a Graphviz layout into an RGBA picture without any graphics library: it reads the xdot drawing
// operations that Graphviz puts into its JSON output (`-Tjson`, what @viz-js/viz's renderJSON returns) and
// draws them with scanline fills, plain line stepping and the bitmap font of font.ts. The input is treated
// as untrusted: bad coordinates, unknown operations and oversized lists are skipped or cut short, and the
// work per operation is capped, so only a missing bb, a bad scale or an oversized picture throw.
//
// This module reads the layout (its size, the operations and their drawing state) and drives the
// stages: raster-canvas.ts the canvas and the work limits, raster-lines.ts strokes, raster-shapes.ts
// fills and curves, raster-text.ts text.
import {
  BLACK,
  Canvas,
  COORD_LIMIT,
  type Colour,
  clamp,
  colour,
  MARGIN,
  MAX_LINE_WIDTH,
  MAX_PIXELS,
  MAX_POINTS_PER_OP,
  OP_BUDGET,
} from './raster-canvas.js';
import { strokePath } from './raster-lines.js';
import { bezierPath, ellipsePath, fillEllipse, fillPolygon } from './raster-shapes.js';
import { paintText } from './raster-text.js';

export { MARGIN, MAX_PIXELS, MAX_POINTS_PER_OP, MAX_TEXT_LENGTH } from './raster-canvas.js';

/** Font size when no F operation came first (Graphviz's default). */
const DEFAULT_FONT_SIZE = 14;
/** Dash patterns in points, on then off (what Graphviz's SVG output uses). */
const DASHED: readonly [number, number] = [5, 2];
const DOTTED: readonly [number, number] = [1, 5];

type XdotPoint = [number, number];

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

interface RasterOptions {
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

interface FitLimits {
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
// Drawing state and the painter

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

  /** Strokes the path through the points (pixel coordinates) with the pen, solid or dashed. */
  stroke(pts: readonly number[], closed: boolean, state: State): void {
    const c = state.pen;
    if (c === null || pts.length < 2) return;
    const dash = state.dash === null ? null : state.dash.map((d) => Math.max(1, d * this.scale));
    strokePath(this.canvas, pts, closed, c, this.thickness(state), dash);
  }

  /** A T operation: its anchor and text checked, then drawn with the pen. */
  text(op: Record<string, unknown>, state: State): void {
    const c = state.pen;
    const pt = op.pt;
    if (c === null || !Array.isArray(pt) || typeof op.text !== 'string') return;
    const [tx, ty] = [pt[0], pt[1]];
    if (typeof tx !== 'number' || typeof ty !== 'number') return;
    const px = this.x(tx);
    const py = this.y(ty);
    if (!Number.isFinite(px) || !Number.isFinite(py)) return;
    const at = { px, py, align: op.align, width: op.width, fontSize: state.fontSize, scale: this.scale };
    paintText(this.canvas, op.text, at, c);
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
          if (op.op === 'P') fillPolygon(this.canvas, pts, state.fill);
          this.stroke(pts, true, state);
          break;
        }
        case 'L':
          this.stroke(this.points(op.points), false, state);
          break;
        case 'b':
        case 'B': {
          const path = bezierPath(this.points(op.points));
          if (op.op === 'B') fillPolygon(this.canvas, path, state.fill);
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
          if (op.op === 'E') fillEllipse(this.canvas, cxp, cyp, rxp, ryp, state.fill);
          this.stroke(ellipsePath(cxp, cyp, rxp, ryp), true, state);
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
