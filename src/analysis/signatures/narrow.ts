// Narrowing the byte matches of a signature set's application (apply.ts, pass 3) by what functions
// one name matches say of others: the function each of their calls reaches, and their neighbours in
// their object's section (a linker keeps an input section whole and in order), each named only among
// the names its own bytes match; and a function several names match loses those whose calls reach
// functions named otherwise. Pure.
import type { Steps } from '../../core/cooperative.js';
import { dataNamedSteps } from './data-anchors.js';
import { directBranchAt, isLinkerStub, refBranchMode, stubReach } from './relocs.js';
import type { ProgramFunction, ProgramMemory, SigItem } from './types.js';

/** Functions handled between two turns of the event loop (here and in apply.ts). */
export const STEP_FUNCTIONS = 64;

/** One signature whose bytes matched a function, and what its references said. */
export interface Match {
  item: number;
  compared: number;
  agreed: number;
  unchecked: number;
  contradicted: number;
  why: string | null;
  /** Pass 3: the caller that names it (its call's relocation, the caller matched by one name alone). */
  calledAs: string | null;
}

/** Rounds of narrowing at most (each one settles what the previous one named). */
const NARROW_ROUNDS = 8;

/**
 * Narrows the live matches of each function (`live[f]`) by what functions named by one signature
 * alone say of the functions they call: a caller whose bytes match one name with enough compared
 * bytes (or agreeing references) names, through each call its signature's relocation names, the
 * function that call reaches: that function keeps only the matches of that name (if it has one; a
 * function whose bytes match no such name is left as it is). Then a function several names match
 * loses each name whose calls reach functions now named otherwise. Repeated while anything changes,
 * at most NARROW_ROUNDS times. A name given by a caller is evidence of its own: the match stands even
 * on few bytes (`calledAs` says who called it so). A function whose bytes match no signature at all
 * (`bare`: the same source built otherwise) takes the name its callers give it when they all agree
 * (a match of no compared bytes, whose own calls name nothing: its bytes are not the signature's);
 * a linker stub never does, and callers that disagree leave it unnamed. A call the set makes through a
 * linker stub to a function reaches a stub in the program too: the function that stub goes to is
 * named so (in the same ways).
 */
export function* narrowSteps(
  items: readonly SigItem[],
  byName: ReadonlyMap<string, number>,
  functions: readonly ProgramFunction[],
  live: Match[][],
  minCompared: number,
  memory: ProgramMemory,
  bare: readonly boolean[] = [],
): Steps<void> {
  const at = new Map<number, number>();
  for (const [f, fn] of functions.entries()) if (!at.has(fn.address)) at.set(fn.address, f);
  const nameOf = (m: Match) => items[m.item]!.names[0]!;
  /** The one name `live[f]` holds, or null (none, or several). */
  const oneName = (f: number): string | null => {
    const ms = live[f]!;
    if (ms.length === 0) return null;
    const first = nameOf(ms[0]!);
    return ms.every((m) => nameOf(m) === first) ? first : null;
  };
  /** Each call of match `m` of `fn` its signature names: the function it reaches and the name wanted there. */
  const callsOf = (fn: ProgramFunction, m: Match) => {
    const item = items[m.item]!;
    const out: { g: number; want: string; wantItem: number; at: number }[] = [];
    if (m.compared === 0) return out;
    for (const r of item.refs) {
      if (r.kind !== 'call' || r.target === null) continue;
      const want = byName.get(r.target);
      if (want === undefined || items[want]!.kind !== 'function') continue;
      const b = directBranchAt(
        fn.bytes,
        fn.address - fn.start + r.at,
        fn.address + r.at,
        refBranchMode(item.bytes, item.mode!, r.at),
      );
      const g = b === null ? undefined : at.get(b.target);
      if (g !== undefined)
        out.push({ g, want: items[want]!.names[0]!, wantItem: want, at: fn.address + r.at });
    }
    return out;
  };
  const hex = (n: number) => `0x${n.toString(16)}`;
  // The function items of each object section, by origin and section.
  const sections = new Map<string, number[]>();
  for (const [i, item] of items.entries()) {
    if (item.kind !== 'function' || !item.place) continue;
    const k = `${item.origin}\u0000${item.place.section}`;
    const list = sections.get(k);
    if (list) list.push(i);
    else sections.set(k, [i]);
  }
  for (const list of sections.values())
    list.sort((a, b) => items[a]!.place!.offset - items[b]!.place!.offset);
  /** The index of each item in its section's list. */
  const rankIn = new Map<number, number>();
  for (const list of sections.values()) for (const [k, i] of list.entries()) rankIn.set(i, k);
  /** Names `g` keeps `want` (its live matches of that name), said so by `why`; whether anything changed. */
  const name = (g: number, want: string, why: string): boolean => {
    const there = live[g]!;
    const keep = there.filter((x) => nameOf(x) === want);
    if (keep.length === 0) return false;
    let changed = false;
    if (keep.length < there.length) {
      live[g] = keep;
      changed = true;
    }
    for (const x of keep)
      if (x.calledAs === null) {
        x.calledAs = why;
        changed = true;
      }
    return changed;
  };
  /** Functions whose callers named them otherwise: left unnamed. */
  const disputed = new Set<number>();
  /** A bare function `g` named `wantItem`'s name by a caller (`why`); whether anything changed. */
  const adopt = (g: number, wantItem: number, why: string): boolean => {
    if (disputed.has(g)) return false;
    const there = live[g]!;
    if (there.length > 0) {
      if (nameOf(there[0]!) === items[wantItem]!.names[0]) return false;
      live[g] = [];
      disputed.add(g);
      return true;
    }
    const fn = functions[g]!;
    if (isLinkerStub(fn.bytes.subarray(fn.address - fn.start, fn.end - fn.start), fn.mode)) return false;
    live[g] = [
      { item: wantItem, compared: 0, agreed: 0, unchecked: 0, contradicted: 0, why: null, calledAs: why },
    ];
    return true;
  };
  /**
   * When item `wantItem` is a linker stub going to a function item and the program's function `g` is
   * a stub too: the function `g` goes to and that item.
   */
  const throughStub = (g: number, wantItem: number): { h: number; target: number } | null => {
    const item = items[wantItem]!;
    const ref = item.refs[0];
    if (!isLinkerStub(item.bytes, item.mode!) || ref === undefined || ref.target === null) return null;
    const target = byName.get(ref.target);
    if (target === undefined || items[target]!.kind !== 'function') return null;
    const fn = functions[g]!;
    const o = fn.address - fn.start;
    if (!isLinkerStub(fn.bytes.subarray(o, fn.end - fn.start), fn.mode)) return null;
    const reach = stubReach(fn.bytes, o, fn.address, fn.mode);
    const h = reach === null ? undefined : at.get(reach.target & ~1);
    return h === undefined || h === g ? null : { h, target };
  };
  // The functions the set's data found in the program names (a vtable's slots).
  for (const d of yield* dataNamedSteps(items, byName, memory)) {
    const g = at.get(d.address);
    if (g !== undefined) name(g, d.want, d.why);
  }
  for (let round = 0; round < NARROW_ROUNDS; round++) {
    let changed = false;
    for (const [f, fn] of functions.entries()) {
      if (f % STEP_FUNCTIONS === 0) yield;
      const one = oneName(f);
      if (one === null) continue;
      const m = live[f]!.find((x) => x.compared >= minCompared || x.agreed > 0 || x.calledAs !== null);
      if (!m) continue;
      for (const { g, want, wantItem, at: site } of callsOf(fn, m)) {
        if (g === f) continue;
        const why = `called as ${want} by ${one} (${hex(fn.address)}) at ${hex(site)}`;
        if (bare[g] ? adopt(g, wantItem, why) : name(g, want, why)) changed = true;
        const through = throughStub(g, wantItem);
        if (through === null) continue;
        const { h, target } = through;
        const via = `reached as ${items[target]!.names[0]} through the linker stub at ${hex(functions[g]!.address)}, ${why}`;
        if (bare[h] ? adopt(h, target, via) : name(h, items[target]!.names[0]!, via)) changed = true;
      }
      // Its neighbours in its section lie at the same distances in the program: walked outwards
      // while each function found where one should be is one its bytes match (a function missing
      // there, or another one, ends the walk: it never steps over what it cannot confirm).
      const item = items[m.item]!;
      const place = item.place;
      if (!place) continue;
      const list = sections.get(`${item.origin}\u0000${place.section}`)!;
      const from = rankIn.get(m.item)!;
      for (const step of [1, -1])
        for (let k = from + step; k >= 0 && k < list.length; k += step) {
          const other = items[list[k]!]!;
          const distance = other.place!.offset - place.offset;
          const g = at.get((fn.address + distance) >>> 0);
          if (g === undefined || g === f) break;
          const want = other.names[0]!;
          if (!live[g]!.some((x) => nameOf(x) === want)) break;
          if (name(g, want, `placed ${distance} bytes from ${one} (${hex(fn.address)}) as in ${item.origin}`))
            changed = true;
        }
    }
    for (const [f, fn] of functions.entries()) {
      if (f % STEP_FUNCTIONS === 0) yield;
      if (live[f]!.length < 2 || oneName(f) !== null) continue;
      const keep = live[f]!.filter((m) =>
        callsOf(fn, m).every(({ g, want }) => {
          const named = oneName(g);
          return named === null || named === want;
        }),
      );
      if (keep.length > 0 && keep.length < live[f]!.length) {
        live[f] = keep;
        changed = true;
      }
    }
    if (!changed) break;
  }
}
