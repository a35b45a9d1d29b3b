// Filled shapes and curves for the rasterizer (see raster.ts): even-odd polygon fill by scanlines,
// ellipse fill, and the paths an ellipse's outline and a cubic Bezier are flattened to, in pixel
// coordinates.
import { type Canvas, type Colour, clamp, MAX_POINTS_PER_OP } from './raster-canvas.js';

/** Fills the polygon (pixel coordinates) by scanlines, even-odd, sampling pixel centres. */
export function fillPolygon(cv: Canvas, pts: readonly number[], c: Colour | null): void {
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

/** Fills the ellipse centred on (cx, cy) with radii rx, ry (pixels), sampling pixel centres. */
export function fillEllipse(
  cv: Canvas,
  cx: number,
  cy: number,
  rx: number,
  ry: number,
  c: Colour | null,
): void {
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
export function ellipsePath(cx: number, cy: number, rx: number, ry: number): number[] {
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
export function bezierPath(pts: readonly number[]): number[] {
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
