// Longest-match finder for the BLZ encoder, over the data already reversed (so "earlier" here means
// "higher address" in the image, which is what a BLZ match copies from).
//
// The optimal parse needs, for every position, the longest match (capped at 18) at any distance
// 3..4098. Hash chains degrade on code and tables full of repeated 3-byte sequences, so this is a
// binary-tree finder: per 3-byte hash bucket, a search tree of earlier positions ordered by their
// next 18 bytes, re-rooted at each insertion so a node's children are always older than it. A search
// visits the key's neighbours in that order (which hold the longest common prefix) and stops at the
// first node outside the window, since everything below it is older still. Nodes equal over all 18
// bytes are replaced by the newer one, which is never a worse match. Result: exact longest matches.
//
// Distances 1 and 2 are not encodable, so position k is inserted only when the search reaches k + 3.

const BLZ_MIN_MATCH = 3;
export const BLZ_MAX_MATCH = 18;
const BLZ_MIN_DISTANCE = 3;
const BLZ_MAX_DISTANCE = 4098;

const HASH_BITS = 16;
const NONE = -1;

export interface MatchTable {
  /** Longest match length at each position (0 when below 3). */
  lengths: Uint8Array;
  /** A distance achieving that length (any shorter length matches at the same distance too). */
  distances: Uint16Array;
}

function hash3(x: Uint8Array, at: number): number {
  const key = (x[at]! << 16) | (x[at + 1]! << 8) | x[at + 2]!;
  return Math.imul(key, 0x9e3779b1) >>> (32 - HASH_BITS);
}

/** Positions searched between two yields of findMatchesSteps. */
const STEP_POSITIONS = 1 << 14;

export function findMatches(x: Uint8Array): MatchTable {
  const steps = findMatchesSteps(x);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** findMatches in bounded steps: yields after every STEP_POSITIONS positions. */
export function* findMatchesSteps(x: Uint8Array): Generator<void, MatchTable, void> {
  const n = x.length;
  const lengths = new Uint8Array(n);
  const distances = new Uint16Array(n);
  // children[2p] holds nodes ordered before p, children[2p + 1] nodes ordered after it.
  const children = new Int32Array(2 * n);
  const heads = new Int32Array(1 << HASH_BITS).fill(NONE);

  // The hot loop lives in a plain function (a generator's loop optimises less well).
  const last = n - BLZ_MIN_MATCH + 1;
  for (let from = 0; from < last; from += STEP_POSITIONS) {
    matchRange(x, children, heads, from, Math.min(last, from + STEP_POSITIONS), lengths, distances);
    yield;
  }
  return { lengths, distances };
}

function matchRange(
  x: Uint8Array,
  children: Int32Array,
  heads: Int32Array,
  from: number,
  to: number,
  lengths: Uint8Array,
  distances: Uint16Array,
): void {
  for (let k = from; k < to; k++) {
    if (k >= BLZ_MIN_DISTANCE) insert(x, children, heads, k - BLZ_MIN_DISTANCE);
    search(x, children, heads, k, lengths, distances);
  }
}

function insert(x: Uint8Array, children: Int32Array, heads: Int32Array, p: number): void {
  const limit = Math.min(BLZ_MAX_MATCH, x.length - p);
  const bucket = hash3(x, p);
  let node = heads[bucket]!;
  heads[bucket] = p;
  let beforeHook = 2 * p;
  let afterHook = 2 * p + 1;
  let beforeLength = 0;
  let afterLength = 0;
  for (;;) {
    if (node === NONE || p - node > BLZ_MAX_DISTANCE) {
      children[beforeHook] = NONE;
      children[afterHook] = NONE;
      return;
    }
    // Every node left in this subtree sorts between the last "before" and "after" nodes, so it
    // shares at least the shorter of their common prefixes with the key: skip comparing those bytes.
    let length = Math.min(beforeLength, afterLength);
    while (length < limit && x[node + length] === x[p + length]) length++;
    if (length === BLZ_MAX_MATCH) {
      children[beforeHook] = children[2 * node]!;
      children[afterHook] = children[2 * node + 1]!;
      return;
    }
    // length === limit < 18 means the key ran into the end of the data: a prefix sorts first.
    if (length < limit && x[node + length]! < x[p + length]!) {
      children[beforeHook] = node;
      beforeHook = 2 * node + 1;
      beforeLength = length;
      node = children[beforeHook]!;
    } else {
      children[afterHook] = node;
      afterHook = 2 * node;
      afterLength = length;
      node = children[afterHook]!;
    }
  }
}

function search(
  x: Uint8Array,
  children: Int32Array,
  heads: Int32Array,
  k: number,
  lengths: Uint8Array,
  distances: Uint16Array,
): void {
  const limit = Math.min(BLZ_MAX_MATCH, x.length - k);
  let node = heads[hash3(x, k)]!;
  let beforeLength = 0;
  let afterLength = 0;
  let best = 0;
  let bestDistance = 0;
  while (node !== NONE && k - node <= BLZ_MAX_DISTANCE) {
    let length = Math.min(beforeLength, afterLength);
    while (length < limit && x[node + length] === x[k + length]) length++;
    if (length > best) {
      best = length;
      bestDistance = k - node;
      if (length === limit) break;
    }
    if (x[node + length]! < x[k + length]!) {
      beforeLength = length;
      node = children[2 * node + 1]!;
    } else {
      afterLength = length;
      node = children[2 * node]!;
    }
  }
  if (best >= BLZ_MIN_MATCH) {
    lengths[k] = best;
    distances[k] = bestDistance;
  }
}
