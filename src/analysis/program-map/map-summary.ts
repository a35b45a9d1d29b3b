// What a map's byte counts, coverage and gaps answer from (Summary, map-types.ts), counted once when
// the map is made, and kept in its file as sections read back checked. Pure.
import { turnTaker } from '../../core/cooperative.js';
import type { BuiltMap } from './build.js';
import type { ComponentSet } from './components.js';
import type { Summary, UnresolvedCounts } from './map-types.js';
import { ByteClass, NO_TIER } from './types.js';

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
  for (let i = 0; i < w.calls.length; i++) {
    if (((i + 1) & 0xfff) === 0) await pause();
    const c = w.calls.get(i);
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

/** The summary as sections of the map's file: per component its counts, run starts and levels. */
export function summarySections(summary: Summary): Record<string, Uint32Array | Int32Array | Uint8Array> {
  const out: Record<string, Uint32Array | Int32Array | Uint8Array> = {};
  summary.counts.forEach((counts, i) => {
    out[`${i}.counts`] = counts;
    out[`${i}.starts`] = summary.runs[i]!.starts;
    out[`${i}.levels`] = summary.runs[i]!.levels;
  });
  return out;
}

/** Count fields of UnresolvedCounts, for the file's header and its check. */
const UNRESOLVED_FIELDS = [
  'unmapped',
  'ambiguous',
  'runtimeOnly',
  'indirectCalls',
  'indirectBranches',
] as const;

/**
 * The summary read back from the map's file over `set` (with its unresolved counts from the header),
 * checked against the components' bytes as loaded: every component's counts add up to its size, its
 * runs start at 0 and ascend within it, each at a level 0..4 other than the run's before; or why not.
 */
export function summaryFromSections(
  sections: ReadonlyMap<string, unknown>,
  unresolved: unknown,
  set: ComponentSet,
): Summary | string {
  const counts: Uint32Array[] = [];
  const runs: Summary['runs'] = [];
  for (const comp of set.list) {
    const c = sections.get(`summary.${comp.index}.counts`);
    const starts = sections.get(`summary.${comp.index}.starts`);
    const levels = sections.get(`summary.${comp.index}.levels`);
    if (!(c instanceof Uint32Array) || !(starts instanceof Int32Array) || !(levels instanceof Uint8Array))
      return `summary of component ${comp.index} missing`;
    if (c.length !== 64 || starts.length !== levels.length)
      return `summary of component ${comp.index} malformed`;
    let total = 0;
    for (let i = 0; i < 64; i++) total += c[i]!;
    if (total !== comp.cls.length) return `summary of component ${comp.index} counts another size`;
    for (let i = 0; i < starts.length; i++) {
      const ordered = i === 0 ? starts[0] === 0 : starts[i]! > starts[i - 1]! && levels[i] !== levels[i - 1];
      if (!ordered || starts[i]! >= comp.cls.length || levels[i]! > 4)
        return `summary of component ${comp.index} with a run out of range`;
    }
    if (starts.length === 0 && comp.cls.length > 0) return `summary of component ${comp.index} without runs`;
    counts.push(c.slice());
    runs.push({ starts: starts.slice(), levels: levels.slice() });
  }
  if (!Array.isArray(unresolved) || unresolved.length !== 3) return 'unresolved counts malformed';
  const out: UnresolvedCounts[] = [];
  for (const u of unresolved as unknown[]) {
    if (typeof u !== 'object' || u === null) return 'unresolved counts malformed';
    const row = u as Record<string, unknown>;
    if (!UNRESOLVED_FIELDS.every((f) => Number.isSafeInteger(row[f]) && (row[f] as number) >= 0))
      return 'unresolved counts malformed';
    out.push({
      unmapped: row.unmapped as number,
      ambiguous: row.ambiguous as number,
      runtimeOnly: row.runtimeOnly as number,
      indirectCalls: row.indirectCalls as number,
      indirectBranches: row.indirectBranches as number,
    });
  }
  return { counts, runs, unresolved: out };
}
