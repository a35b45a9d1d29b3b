// Strokes for the rasterizer (see raster.ts): straight segments of a given thickness clipped to the
// canvas, square joints and ends, and paths stroked solid or dashed, in pixel coordinates.
import type { Canvas, Colour } from './raster-canvas.js';

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

/** A t x t square of pixels centred on (x, y): the joint between two strokes, or a stroke's end. */
function dot(cv: Canvas, x: number, y: number, t: number, c: Colour): void {
  const left = Math.floor(x - t / 2 + 0.5);
  const top = Math.floor(y - t / 2 + 0.5);
  cv.rect(left, top, left + t, top + t, c);
}

/** A straight stroke t pixels thick from a to b, with square dots at both ends. */
function segment(cv: Canvas, ax: number, ay: number, bx: number, by: number, t: number, c: Colour): void {
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
  if (clip[0] === 0) dot(cv, ax, ay, t, c);
  if (clip[1] === 1) dot(cv, bx, by, t, c);
}

/**
 * Strokes the path through the points (pixel coordinates) t pixels thick in colour c, solid or dashed
 * (`dash`: on and off lengths in pixels).
 */
export function strokePath(
  cv: Canvas,
  pts: readonly number[],
  closed: boolean,
  c: Colour,
  t: number,
  dash: readonly number[] | null,
): void {
  if (pts.length < 2) return;
  const count = pts.length / 2;
  if (count === 1) {
    dot(cv, pts[0]!, pts[1]!, t, c);
    return;
  }
  const segments = closed ? count : count - 1;
  const pad = t + 2;
  let phase = 0;
  for (let k = 0; k < segments && cv.budget > 0; k++) {
    const [ax, ay] = [pts[2 * k]!, pts[2 * k + 1]!];
    const next = (k + 1) % count;
    const [bx, by] = [pts[2 * next]!, pts[2 * next + 1]!];
    if (dash === null) {
      segment(cv, ax, ay, bx, by, t, c);
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
          segment(cv, ax + dx * f0, ay + dy * f0, ax + dx * f1, ay + dy * f1, t, c);
        }
        p = (p + (stop - d)) % period;
        if (stop - d <= 0) break;
        d = stop;
      }
    }
    phase = (phase + length) % period;
  }
}
