// Attribution of a rebuilt ROM's bytes, one stream chunk at a time: inside the source prefix a byte
// may differ from the source only where an operation owns it, and past the prefix a byte no piece
// writes must be zero. A chunk is checked by ranges: the bytes between owned ranges (or between
// pieces) are compared whole, natively, and only owned bytes are visited one by one to count the
// changed ones. When a range check fails, the chunk is gone over byte by byte to name the first
// offending byte, so a failure reads exactly as it did when every byte was visited.
import { ReMcpError } from '../core/errors.js';
import { formatAddress } from '../core/vocabulary.js';
import type { Plan } from './plan/index.js';

/** Zero bytes to compare a gap against, a slice at a time. */
const ZEROS = new Uint8Array(64 * 1024);

const view = (b: Uint8Array, from: number, to: number) =>
  Buffer.from(b.buffer, b.byteOffset + from, to - from);

/**
 * Attribution of one output chunk at `position` against the source bytes there (`source` holds those
 * that exist). Returns how many prefix bytes differ; throws 'verification-failed' at the first byte
 * that differs outside every owned range, or the first gap byte no piece writes that is not zero.
 */
export function attributeChunk(plan: Plan, position: number, out: Uint8Array, source: Uint8Array): number {
  const length = out.length;
  const sourceLength = Math.min(length, source.length);
  if (sourceLength === length && view(out, 0, length).equals(view(source, 0, length))) return 0;
  return byRanges(plan, position, out, source) ?? byteByByte(plan, position, out, source);
}

/** `ranges` ([start, end) file offsets) inside [from, to), relative to `position`, sorted and merged. */
function within(
  ranges: Array<[number, number]>,
  from: number,
  to: number,
  position: number,
): Array<[number, number]> {
  const clipped: Array<[number, number]> = [];
  for (const [start, end] of ranges) {
    const s = Math.max(start, from);
    const e = Math.min(end, to);
    if (s < e) clipped.push([s - position, e - position]);
  }
  clipped.sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const r of clipped) {
    const last = merged[merged.length - 1];
    if (last && r[0] <= last[1]) last[1] = Math.max(last[1], r[1]);
    else merged.push(r);
  }
  return merged;
}

function allZero(b: Uint8Array, from: number, to: number): boolean {
  for (let at = from; at < to; at += ZEROS.length) {
    const end = Math.min(to, at + ZEROS.length);
    if (!view(b, at, end).equals(view(ZEROS, 0, end - at))) return false;
  }
  return true;
}

/** The count of changed prefix bytes, checked range by range; null when a check fails. */
function byRanges(plan: Plan, position: number, out: Uint8Array, source: Uint8Array): number | null {
  const length = out.length;
  const sourceLength = Math.min(length, source.length);
  const prefixEnd = position + sourceLength;
  let changed = 0;
  let at = 0;
  const owned = plan.ownedPrefix.map((o): [number, number] => [o.start, o.end]);
  for (const [s, e] of within(owned, position, prefixEnd, position)) {
    if (!view(out, at, s).equals(view(source, at, s))) return null;
    for (let i = s; i < e; i++) if (out[i] !== source[i]) changed++;
    at = e;
  }
  if (!view(out, at, sourceLength).equals(view(source, at, sourceLength))) return null;
  let gap = sourceLength;
  const written = plan.pieces.map((p): [number, number] => [p.offset, p.offset + p.bytes.length]);
  for (const [s, e] of within(written, prefixEnd, position + length, position)) {
    if (!allZero(out, gap, s)) return null;
    gap = e;
  }
  return allZero(out, gap, length) ? changed : null;
}

/** Every byte in turn: the count, or the failure at the first offending byte. */
function byteByByte(plan: Plan, position: number, out: Uint8Array, source: Uint8Array): number {
  const length = out.length;
  const sourceLength = Math.min(length, source.length);
  const owned = plan.ownedPrefix;
  const pieces = plan.pieces;
  const inPiece = (at: number) => pieces.some((p) => at >= p.offset && at < p.offset + p.bytes.length);
  const inOwned = (at: number) => owned.some((o) => at >= o.start && at < o.end);
  let changed = 0;
  for (let i = 0; i < length; i++) {
    const off = position + i;
    if (i < sourceLength) {
      if (out[i] !== source[i]) {
        if (!inOwned(off)) {
          throw new ReMcpError(
            'verification-failed',
            `an unowned byte of the source prefix changed at ${formatAddress(off)}`,
          );
        }
        changed++;
      }
    } else if (out[i] !== 0 && !inPiece(off)) {
      throw new ReMcpError('verification-failed', `an unowned gap byte is not zero at ${formatAddress(off)}`);
    }
  }
  return changed;
}
