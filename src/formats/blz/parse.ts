// Optimal parse for the BLZ encoder, over the reversed data x (the order the decoder produces it).
//
// Cost is exact bytes, flag bytes included: a flag byte is paid when the 1st, 9th, 17th... token
// starts, so a partial parse is (bytes so far, tokens mod 8). Of two partial parses ending at the same
// position, the cheaper one wins even if the other has a better flag phase (phase is worth at most the
// one flag byte), and at equal cost the one with more free slots in its current flag byte wins for
// every continuation. So one state per position is exact: C(k) = the fewest stream bytes encoding
// x[0..k). Every match length 3..longest is tried: a prefix of a match is a match at the same distance.
//
// Where compression stops (the rest stays a raw prefix) is the k with the largest gain k - C(k): the
// blob is smallest there. That choice is also what makes the blob decodable in place: along the
// optimal parse of x[0..K), every token boundary j has gain <= k_j - C(k_j) <= K - C(K), and
// "gain so far <= final gain" is exactly "the write pointer has not passed the read pointer".

import { ReMcpError } from '../../core/errors.js';
import { BLZ_MAX_COMPRESSED, BLZ_MAX_HEADER } from './footer.js';
import { BLZ_MAX_MATCH, type MatchTable } from './match.js';

interface BlzParse {
  /** Bytes of x covered by the stream (0: nothing worth compressing). */
  end: number;
  /** Stream length in bytes for x[0..end), flag bytes included. */
  streamLength: number;
  /** Token lengths in decode order: 1 = literal, 3..18 = match. */
  tokens: Uint8Array;
}

const INFINITE = 0x7fffffff;
const RING = 32; // > BLZ_MAX_MATCH + 1 positions are live at once

// A state is cost * 16 + phase rank, so one integer comparison orders (cost, phase). Rank 1..7 =
// tokens already in the current flag byte (fewer is better), 8 = the next token needs a new flag byte.
const rankOf = (tokens: number) => (tokens === 0 ? 8 : tokens);

/** Positions parsed between two yields of optimalParseSteps. */
const STEP_POSITIONS = 1 << 16;

interface ParseState {
  state: Int32Array;
  choice: Uint8Array;
  bestEnd: number;
  bestCost: number;
  bestGain: number;
}

/** The optimal parse of x[0..n) (the cheapest token sequence), in bounded steps: yields after every STEP_POSITIONS positions. */
export function* optimalParseSteps(n: number, matches: MatchTable): Generator<void, BlzParse, void> {
  const p: ParseState = {
    state: new Int32Array(RING).fill(INFINITE),
    // choice[k]: length of the token ending at k in the best parse of x[0..k).
    choice: new Uint8Array(n + 1),
    bestEnd: 0,
    bestCost: 0,
    bestGain: 0,
  };
  p.state[0] = 8; // cost 0, no tokens: the first token opens a flag byte
  // The hot loop lives in a plain function (a generator's loop optimises less well).
  for (let from = 0; from <= n; from += STEP_POSITIONS) {
    parseRange(p, matches.lengths, from, Math.min(n, from + STEP_POSITIONS - 1), n);
    yield;
  }
  const { choice, bestEnd, bestCost } = p;
  let count = 0;
  for (let k = bestEnd; k > 0; count++) {
    const length = choice[k]!;
    // Unreachable unless the table above is wrong; a zero would loop forever.
    if (length === 0) throw new ReMcpError('internal-error', 'BLZ parse table has a gap', { at: k });
    k -= length;
  }
  const tokens = new Uint8Array(count);
  for (let k = bestEnd, i = count - 1; k > 0; i--) {
    tokens[i] = choice[k]!;
    k -= tokens[i]!;
  }
  return { end: bestEnd, streamLength: bestCost, tokens };
}

/** Relaxes positions from..to (inclusive; position n only records its gain). */
function parseRange(p: ParseState, lengths: Uint8Array, from: number, to: number, n: number): void {
  const { state, choice } = p;
  for (let k = from; k <= to; k++) {
    const here = state[k & (RING - 1)]!;
    const cost = here >>> 4;
    if (k - cost > p.bestGain && cost + BLZ_MAX_HEADER <= BLZ_MAX_COMPRESSED) {
      p.bestGain = k - cost;
      p.bestEnd = k;
      p.bestCost = cost;
    }
    if (k === n) return;

    state[(k + BLZ_MAX_MATCH) & (RING - 1)] = INFINITE;
    const rank = here & 15;
    const opened = rank === 8 ? cost + 1 : cost;
    const nextRank = rank === 8 ? 1 : rankOf((rank + 1) & 7);
    const literal = ((opened + 1) << 4) | nextRank;
    const literalAt = (k + 1) & (RING - 1);
    if (literal < state[literalAt]!) {
      state[literalAt] = literal;
      choice[k + 1] = 1;
    }
    const match = ((opened + 2) << 4) | nextRank;
    const longest = lengths[k]!;
    for (let length = 3; length <= longest; length++) {
      const at = (k + length) & (RING - 1);
      if (match < state[at]!) {
        state[at] = match;
        choice[k + length] = length;
      }
    }
  }
}
