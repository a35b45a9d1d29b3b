// Chunk attribution checked range by range must give what visiting every byte gives: the same count
// of changed prefix bytes, or the same failure at the same first offending byte.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReMcpError } from '../../src/core/errors.js';
import { attributeChunk } from '../../src/rebuild/attribution.js';
import type { Plan } from '../../src/rebuild/plan/index.js';

interface Owned {
  start: number;
  end: number;
  owner: string;
}
interface Piece {
  offset: number;
  bytes: Uint8Array;
  owner: string;
}

const planOf = (ownedPrefix: Owned[], pieces: Piece[]) => ({ ownedPrefix, pieces }) as unknown as Plan;

/** The rule, one byte at a time (this test's own reading of it). */
function reference(
  owned: Owned[],
  pieces: Piece[],
  position: number,
  out: Uint8Array,
  source: Uint8Array,
): number | string {
  let changed = 0;
  for (let i = 0; i < out.length; i++) {
    const at = position + i;
    if (i < source.length) {
      if (out[i] === source[i]) continue;
      if (!owned.some((o) => at >= o.start && at < o.end))
        return `an unowned byte of the source prefix changed at 0x${at.toString(16).padStart(8, '0')}`;
      changed++;
    } else if (out[i] !== 0 && !pieces.some((p) => at >= p.offset && at < p.offset + p.bytes.length)) {
      return `an unowned gap byte is not zero at 0x${at.toString(16).padStart(8, '0')}`;
    }
  }
  return changed;
}

function attempt(plan: Plan, position: number, out: Uint8Array, source: Uint8Array): number | string {
  try {
    return attributeChunk(plan, position, out, source);
  } catch (error) {
    assert.ok(error instanceof ReMcpError && error.code === 'verification-failed', String(error));
    return error.message;
  }
}

/** A small deterministic generator (xorshift32). */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return (n: number) => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s % n;
  };
}

test('range by range gives the count or the first failure that every byte in turn gives', () => {
  let failures = 0;
  let counted = 0;
  for (let seed = 1; seed <= 400; seed++) {
    const r = rng(seed);
    const position = r(4) * 0x1000 + r(64);
    const length = 1 + r(seed % 5 === 0 ? 200_000 : 3000);
    // The source may end inside the chunk (its prefix), before it or after it.
    const sourceLength = r(3) === 0 ? r(length + 1) : length;
    const source = new Uint8Array(sourceLength);
    for (let i = 0; i < sourceLength; i++) source[i] = r(256);
    const out = new Uint8Array(length);
    out.set(source);
    // Owned ranges and pieces, unsorted, overlapping, reaching past either end of the chunk.
    const span = () => {
      const start = position - 50 + r(length + 100);
      return [start, start + 1 + r(r(2) === 0 ? 40 : length)] as const;
    };
    const owned: Owned[] = [];
    for (let k = r(5); k > 0; k--) {
      const [start, end] = span();
      owned.push({ start, end, owner: `op${k}` });
    }
    const pieces: Piece[] = [];
    for (let k = r(5); k > 0; k--) {
      const [start, end] = span();
      pieces.push({ offset: start, bytes: new Uint8Array(end - start), owner: `op${k}` });
    }
    // Changes: inside owned ranges (allowed), in pieces past the prefix (allowed), and sometimes one
    // where nothing allows it.
    for (const o of owned)
      for (let at = Math.max(o.start, position); at < Math.min(o.end, position + sourceLength); at++)
        if (r(3) === 0) out[at - position] = (out[at - position]! + 1 + r(255)) & 0xff;
    for (const p of pieces)
      for (
        let at = Math.max(p.offset, position + sourceLength);
        at < Math.min(p.offset + p.bytes.length, position + length);
        at++
      )
        if (r(2) === 0) out[at - position] = 1 + r(255);
    if (r(3) === 0) {
      const i = r(length);
      out[i] = i < sourceLength ? (source[i]! + 1) & 0xff : 1 + r(255);
    }
    const plan = planOf(owned, pieces);
    const want = reference(owned, pieces, position, out, source);
    assert.deepEqual(attempt(plan, position, out, source), want, `seed ${seed}`);
    if (typeof want === 'string') failures++;
    else counted++;
  }
  // Both outcomes were exercised, many times over.
  assert.ok(failures > 50 && counted > 50, `${failures} failures, ${counted} counts`);
});

test('a gap longer than the zero slice is checked to its last byte', () => {
  const position = 0x10000;
  const source = new Uint8Array(100);
  const plan = planOf([], [{ offset: position + 70_000, bytes: new Uint8Array(10), owner: 'op' }]);
  for (const i of [100, 65_535 + 100, 65_536 + 100, 69_999, 70_010, 199_999]) {
    const out = new Uint8Array(200_000);
    out[i] = 7;
    assert.equal(
      attempt(plan, position, out, source),
      `an unowned gap byte is not zero at 0x${(position + i).toString(16).padStart(8, '0')}`,
    );
  }
  const inPiece = new Uint8Array(200_000);
  inPiece[70_005] = 7;
  assert.equal(attempt(plan, position, inPiece, source), 0);
});

test('the first offending byte is named even after allowed changes', () => {
  const source = new Uint8Array(1000);
  const out = new Uint8Array(1000);
  out[10] = 1; // owned
  out[500] = 1; // unowned
  out[20] = 1; // owned
  const plan = planOf([{ start: 0x2000 + 5, end: 0x2000 + 30, owner: 'op' }], []);
  assert.equal(
    attempt(plan, 0x2000, out, source),
    'an unowned byte of the source prefix changed at 0x000021f4',
  );
  out[500] = 0;
  assert.equal(attempt(plan, 0x2000, out, source), 2);
});
