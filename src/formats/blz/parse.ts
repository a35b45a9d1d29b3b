// Optimal parse for the BLZ encoder, over the reversed data x (the order the decoder produces it).
//
// Cost is exact bytes, flag bytes included: a flag byte is paid when the 1st, 9th, 17th... token
// starts, so the state is (position, token count mod 8). C(k) = the fewest stream bytes that encode
// x[0..k) exactly, over all parses and all 8 states; every match length 3..longest is tried because a
// prefix of a match is a match at the same distance.
//
// Where compression stops (the rest stays a raw prefix) is the k with the largest gain k - C(k): the
// blob is smallest there. That choice is also what makes the blob decodable in place: along the
// optimal parse of x[0..K), every token boundary j has gain <= k_j - C(k_j) <= K - C(K), and
// "gain so far <= final gain" is exactly "the write pointer has not passed the read pointer".

import { ReMcpError } from '../../core/errors.js';
import { BLZ_MAX_COMPRESSED, BLZ_MAX_HEADER } from './footer.js';
import { BLZ_MAX_MATCH, type MatchTable } from './match.js';

export interface BlzParse {
  /** Bytes of x covered by the stream (0: nothing worth compressing). */
  end: number;
  /** Stream length in bytes for x[0..end), flag bytes included. */
  streamLength: number;
  /** Token lengths in decode order: 1 = literal, 3..18 = match. */
  tokens: Uint8Array;
}

const INFINITE = 0x3fffffff;
const RING = 32; // > BLZ_MAX_MATCH + 1 positions of costs are live at once

export function optimalParse(n: number, matches: MatchTable): BlzParse {
  const { lengths } = matches;
  const cost = new Int32Array(RING * 8).fill(INFINITE);
  // choice[k * 8 + r]: length of the token that ends at k leaving r tokens mod 8 (its predecessor
  // state is always r - 1 mod 8, so the length alone retraces the parse).
  const choice = new Uint8Array((n + 1) * 8);
  cost[0] = 0;

  let bestEnd = 0;
  let bestState = 0;
  let bestCost = 0;
  let bestGain = 0;
  for (let k = 0; ; k++) {
    const slot = (k & (RING - 1)) * 8;
    let here = INFINITE;
    let hereState = 0;
    for (let r = 0; r < 8; r++) {
      if (cost[slot + r]! < here) {
        here = cost[slot + r]!;
        hereState = r;
      }
    }
    if (k - here > bestGain && here + BLZ_MAX_HEADER <= BLZ_MAX_COMPRESSED) {
      bestGain = k - here;
      bestEnd = k;
      bestState = hereState;
      bestCost = here;
    }
    if (k === n) break;

    cost.fill(INFINITE, ((k + BLZ_MAX_MATCH) & (RING - 1)) * 8, ((k + BLZ_MAX_MATCH) & (RING - 1)) * 8 + 8);
    const longest = lengths[k]!;
    for (let r = 0; r < 8; r++) {
      const c = cost[slot + r]!;
      if (c >= INFINITE) continue;
      const base = r === 0 ? c + 1 : c;
      const next = (r + 1) & 7;
      const literalAt = ((k + 1) & (RING - 1)) * 8 + next;
      if (base + 1 < cost[literalAt]!) {
        cost[literalAt] = base + 1;
        choice[(k + 1) * 8 + next] = 1;
      }
      const matchCost = base + 2;
      for (let length = 3; length <= longest; length++) {
        const at = ((k + length) & (RING - 1)) * 8 + next;
        if (matchCost < cost[at]!) {
          cost[at] = matchCost;
          choice[(k + length) * 8 + next] = length;
        }
      }
    }
  }

  let count = 0;
  for (let k = bestEnd, r = bestState; k > 0; r = (r + 7) & 7) {
    const length = choice[k * 8 + r]!;
    // Unreachable unless the table above is wrong; a zero would loop forever.
    if (length === 0) throw new ReMcpError('internal-error', 'BLZ parse table has a gap', { at: k });
    k -= length;
    count++;
  }
  const tokens = new Uint8Array(count);
  for (let k = bestEnd, r = bestState, i = count - 1; k > 0; r = (r + 7) & 7, i--) {
    tokens[i] = choice[k * 8 + r]!;
    k -= tokens[i]!;
  }
  return { end: bestEnd, streamLength: bestCost, tokens };
}
