// What a map's byte counts, coverage and gaps answer from, counted once when the map is made.
import { turnTaker } from '../../core/cooperative.js';
import type { BuiltMap } from './build.js';
import type { ComponentSet } from './components.js';
import type { UnresolvedCounts } from './map-types.js';
import { ByteClass, NO_TIER } from './types.js';

/**
 * What componentBytes, coverage and gaps answer from: counted once when the map is made, in slices,
 * so a question about a 12 MiB program does not walk its 12 million bytes (and its calls and blocks)
 * on the event loop.
 */
export interface Summary {
  /** Per component: bytes by class and tier rank, at class * 4 + rank (rank 3: no tier). */
  counts: Uint32Array[];
  /**
   * Per component: runs of bytes of one level (the tier rank 0..2, 3 for no tier, 4 for unclassified
   * bytes): a byte is in a gap for a lowest accepted rank below its level. `starts` are offsets.
   */
  runs: { starts: Int32Array; levels: Uint8Array }[];
  /** Per tier rank 0..2: the unresolved calls and indirect branches found at that rank. */
  unresolved: UnresolvedCounts[];
}

/** Bytes counted between two checks of the clock in summarize. */
const SUMMARY_STRIDE = 1 << 16;

export async function summarize(built: BuiltMap, set: ComponentSet): Promise<Summary> {
  const turn = turnTaker(undefined, 1);
  const pause = async () => {
    const p = turn();
    if (p) await p;
  };
  const counts: Uint32Array[] = [];
  const runs: Summary['runs'] = [];
  for (const comp of set.list) {
    const count = new Uint32Array(64);
    const starts: number[] = [];
    const levels: number[] = [];
    let level = -1;
    for (let from = 0; from < comp.cls.length; from += SUMMARY_STRIDE) {
      await pause();
      const to = Math.min(comp.cls.length, from + SUMMARY_STRIDE);
      for (let i = from; i < to; i++) {
        const c = comp.cls[i]!;
        const t = comp.tier[i]!;
        const rank = t === NO_TIER ? 3 : t;
        count[c * 4 + rank]!++;
        const l = c === ByteClass.unknown ? 4 : rank;
        if (l !== level) {
          starts.push(i);
          levels.push(l);
          level = l;
        }
      }
    }
    counts.push(count);
    runs.push({ starts: Int32Array.from(starts), levels: Uint8Array.from(levels) });
  }
  const unresolved: UnresolvedCounts[] = [0, 1, 2].map(() => ({
    unmapped: 0,
    ambiguous: 0,
    runtimeOnly: 0,
    indirectCalls: 0,
    indirectBranches: 0,
  }));
  const w = built.walker;
  let n = 0;
  for (const c of w.calls) {
    if ((++n & 0xfff) === 0) await pause();
    const u = unresolved[c.tier];
    if (!u) continue;
    if (c.unresolved === 'unmapped') u.unmapped++;
    else if (c.unresolved === 'ambiguous-code-source') u.ambiguous++;
    else if (c.unresolved !== null) u.runtimeOnly++;
    else if ((c.kind === 'register' || c.kind === 'stub') && c.target === null) u.indirectCalls++;
  }
  for (let id = 0; id < w.blocks.length; id++) {
    if ((id & 0xffff) === 0) await pause();
    if (w.blocks.termOf(id) !== 'indirect') continue;
    const u = unresolved[w.blocks.tierOf(id)];
    if (u) u.indirectBranches++;
  }
  return { counts, runs, unresolved };
}
