// Narrowing the byte matches of a signature set's application (apply.ts, pass 3) by what functions
// one name matches say of others: the function each of their calls reaches, their neighbours in
// their object's section (a linker keeps an input section whole and in order) and the functions of
// the sections laid out between two named ones (object-layout.ts), each named only among the names
// its own bytes match (or, where the map has no function, kept as an outside place when its bytes are
// there); and a function several names match loses those whose calls reach functions named
// otherwise. Pure.
import type { Steps } from '../../core/cooperative.js';
import { dataNamedSteps } from './data-anchors.js';
import { type Anchor, type ObjectLayouts, objectLayoutsOf } from './object-layout.js';
import { directBranchAt, isLinkerStub, refBranchMode, stubReach } from './relocs.js';
import { derivedFrom, matchesAt, type ProgramFunction, type ProgramMemory, type SigItem } from './types.js';

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
): Steps<Map<number, Outside>> {
  const n = new Naming(items, byName, functions, live, bare, memory);
  // The functions the set's data found in the program names (a vtable's slots).
  for (const d of yield* dataNamedSteps(items, byName, memory)) {
    const g = n.at.get(d.address);
    if (g !== undefined) n.name(g, d.want, d.why);
  }
  for (let round = 0; round < NARROW_ROUNDS; round++) {
    let changed = false;
    n.newRound();
    for (const [f, fn] of functions.entries()) {
      if (f % STEP_FUNCTIONS === 0) yield;
      const one = n.oneName(f);
      if (one === null) continue;
      const m = live[f]!.find((x) => x.compared >= minCompared || x.agreed > 0 || x.calledAs !== null);
      if (!m) continue;
      if (n.byCalls(f, fn, m, one)) changed = true;
      if (n.byPlace(f, fn, m, one, minCompared)) changed = true;
    }
    yield;
    if (n.byLayout(minCompared, memory)) changed = true;
    for (const [f, fn] of functions.entries()) {
      if (f % STEP_FUNCTIONS === 0) yield;
      if (n.ruleOutByCalls(f, fn)) changed = true;
    }
    if (!changed) break;
  }
  const outside = new Map<number, Outside>();
  for (const [address, o] of n.outside) if (o !== null) outside.set(address, o);
  return outside;
}

/**
 * A function the map did not find, placed by the layout of its object (a neighbour in its section, or
 * a section laid out between two named ones), its bytes the item's: `key` is the key of the function
 * that placed it (its component is this one's).
 */
export interface Outside {
  item: number;
  why: string;
  key: string;
}

const hex = (n: number) => `0x${n.toString(16)}`;

/** The function items of each object section (by origin and section), in their order there. */
interface SectionOrder {
  sections: Map<string, number[]>;
  /** The index of each item in its section's list. */
  rankIn: Map<number, number>;
}

const ORDERS = new WeakMap<readonly SigItem[], SectionOrder>();

function sectionOrder(items: readonly SigItem[]): SectionOrder {
  const sections = new Map<string, number[]>();
  const rankIn = new Map<number, number>();
  for (const [i, item] of items.entries()) {
    if (item.kind !== 'function' || !item.place) continue;
    const k = `${item.origin}\u0000${item.place.section}`;
    const list = sections.get(k);
    if (list) list.push(i);
    else sections.set(k, [i]);
  }
  for (const list of sections.values()) {
    list.sort((a, b) => items[a]!.place!.offset - items[b]!.place!.offset);
    for (const [k, i] of list.entries()) rankIn.set(i, k);
  }
  return { sections, rankIn };
}

/** What narrowSteps works with: the matches of each function and the ways one names another. */
class Naming {
  /** The function at each start address. */
  readonly at = new Map<number, number>();
  /** The function items of each object section in their order there, and each item's rank in its list. */
  private readonly order: SectionOrder;
  /** Functions whose callers named them otherwise: left unnamed. */
  private readonly disputed = new Set<number>();
  /** The sections of each object, to lay out between functions named in two of them. */
  private readonly layouts: ObjectLayouts;
  /** Functions placed where the map has none (null: placed as two different items). */
  readonly outside = new Map<number, Outside | null>();
  /** The functions whose neighbours were walked this round, and the item each walked from. */
  private readonly walked = new Map<number, number>();

  constructor(
    private readonly items: readonly SigItem[],
    private readonly byName: ReadonlyMap<string, number>,
    private readonly functions: readonly ProgramFunction[],
    private readonly live: Match[][],
    private readonly bare: readonly boolean[],
    private readonly memory: ProgramMemory,
  ) {
    for (const [f, fn] of functions.entries()) if (!this.at.has(fn.address)) this.at.set(fn.address, f);
    this.layouts = objectLayoutsOf(items);
    this.order = derivedFrom(ORDERS, items, sectionOrder);
  }

  private nameOf(m: Match): string {
    return this.items[m.item]!.names[0]!;
  }

  newRound(): void {
    this.walked.clear();
  }

  /** The item `g` walks its neighbours from at its turn of a round, if it does (see narrowSteps). */
  private anchorItem(g: number, minCompared: number): number | undefined {
    if (this.oneName(g) === null) return undefined;
    return this.live[g]!.find((x) => x.compared >= minCompared || x.agreed > 0 || x.calledAs !== null)?.item;
  }

  /** The one name `live[f]` holds, or null (none, or several). */
  oneName(f: number): string | null {
    const ms = this.live[f]!;
    if (ms.length === 0) return null;
    const first = this.nameOf(ms[0]!);
    return ms.every((m) => this.nameOf(m) === first) ? first : null;
  }

  /** Each call of match `m` of `fn` its signature names: the function it reaches and the name wanted there. */
  private callsOf(fn: ProgramFunction, m: Match) {
    const item = this.items[m.item]!;
    const out: { g: number; want: string; wantItem: number; at: number }[] = [];
    if (m.compared === 0) return out;
    for (const r of item.refs) {
      if (r.kind !== 'call' || r.target === null) continue;
      const want = this.byName.get(r.target);
      if (want === undefined || this.items[want]!.kind !== 'function') continue;
      const b = directBranchAt(
        fn.bytes,
        fn.address - fn.start + r.at,
        fn.address + r.at,
        refBranchMode(item.bytes, item.mode!, r.at),
      );
      const g = b === null ? undefined : this.at.get(b.target);
      if (g !== undefined)
        out.push({ g, want: this.items[want]!.names[0]!, wantItem: want, at: fn.address + r.at });
    }
    return out;
  }

  /** Names `g` keeps `want` (its live matches of that name), said so by `why`; whether anything changed. */
  name(g: number, want: string, why: string): boolean {
    const there = this.live[g]!;
    const keep = there.filter((x) => this.nameOf(x) === want);
    if (keep.length === 0) return false;
    let changed = false;
    if (keep.length < there.length) {
      this.live[g] = keep;
      changed = true;
    }
    for (const x of keep)
      if (x.calledAs === null) {
        x.calledAs = why;
        changed = true;
      }
    return changed;
  }

  /** A bare function `g` named `wantItem`'s name by a caller (`why`); whether anything changed. */
  private adopt(g: number, wantItem: number, why: string): boolean {
    if (this.disputed.has(g)) return false;
    const there = this.live[g]!;
    if (there.length > 0) {
      if (this.nameOf(there[0]!) === this.items[wantItem]!.names[0]) return false;
      this.live[g] = [];
      this.disputed.add(g);
      return true;
    }
    const fn = this.functions[g]!;
    if (isLinkerStub(fn.bytes.subarray(fn.address - fn.start, fn.end - fn.start), fn.mode)) return false;
    this.live[g] = [
      { item: wantItem, compared: 0, agreed: 0, unchecked: 0, contradicted: 0, why: null, calledAs: why },
    ];
    return true;
  }

  /** `g` named `wantItem`'s name by a caller: among its own matches, or adopted when it has none. */
  private named(g: number, wantItem: number, why: string): boolean {
    return this.bare[g] ? this.adopt(g, wantItem, why) : this.name(g, this.items[wantItem]!.names[0]!, why);
  }

  /**
   * When item `wantItem` is a linker stub going to a function item and the program's function `g` is
   * a stub too: the function `g` goes to and that item.
   */
  private throughStub(g: number, wantItem: number): { h: number; target: number } | null {
    const item = this.items[wantItem]!;
    const ref = item.refs[0];
    if (!isLinkerStub(item.bytes, item.mode!) || ref === undefined || ref.target === null) return null;
    const target = this.byName.get(ref.target);
    if (target === undefined || this.items[target]!.kind !== 'function') return null;
    const fn = this.functions[g]!;
    const o = fn.address - fn.start;
    if (!isLinkerStub(fn.bytes.subarray(o, fn.end - fn.start), fn.mode)) return null;
    const reach = stubReach(fn.bytes, o, fn.address, fn.mode);
    const h = reach === null ? undefined : this.at.get(reach.target & ~1);
    return h === undefined || h === g ? null : { h, target };
  }

  /** The functions the calls of `fn` (named `one` by match `m`) reach, named; whether anything changed. */
  byCalls(f: number, fn: ProgramFunction, m: Match, one: string): boolean {
    let changed = false;
    for (const { g, want, wantItem, at: site } of this.callsOf(fn, m)) {
      if (g === f) continue;
      const why = `called as ${want} by ${one} (${hex(fn.address)}) at ${hex(site)}`;
      if (this.named(g, wantItem, why)) changed = true;
      const through = this.throughStub(g, wantItem);
      if (through === null) continue;
      const { h, target } = through;
      const via = `reached as ${this.items[target]!.names[0]} through the linker stub at ${hex(this.functions[g]!.address)}, ${why}`;
      if (this.named(h, target, via)) changed = true;
    }
    return changed;
  }

  /**
   * The neighbours of `fn` in its section, which lie at the same distances in the program: walked
   * outwards while each function found where one should be is one its bytes match (a function missing
   * there, or another one, ends the walk: it never steps over what it cannot confirm). A neighbour that
   * walks from the same item this round (it did before `f`'s turn, or will after it) ends the walk
   * too: what lies beyond it is its walk (so a section of n functions costs O(n) a round, not O(n²)).
   */
  byPlace(f: number, fn: ProgramFunction, m: Match, one: string, minCompared: number): boolean {
    const item = this.items[m.item]!;
    const place = item.place;
    if (!place) return false;
    this.walked.set(f, m.item);
    let changed = false;
    const list = this.order.sections.get(`${item.origin}\u0000${place.section}`)!;
    const from = this.order.rankIn.get(m.item)!;
    for (const step of [1, -1])
      for (let k = from + step; k >= 0 && k < list.length; k += step) {
        const other = this.items[list[k]!]!;
        const distance = other.place!.offset - place.offset;
        const address = (fn.address + distance) >>> 0;
        const g = this.at.get(address);
        const why = `placed ${distance} bytes from ${one} (${hex(fn.address)}) as in ${item.origin}`;
        if (g === undefined) {
          if (!this.placeOutside(address, list[k]!, why, fn.key)) break;
          continue;
        }
        if (g === f) break;
        const want = other.names[0]!;
        if (!this.live[g]!.some((x) => this.nameOf(x) === want)) break;
        if (this.name(g, want, why)) changed = true;
        const walks = g < f ? this.walked.get(g) : this.anchorItem(g, minCompared);
        if (walks === list[k]) break;
      }
    return changed;
  }

  /**
   * The functions between two named in sections of one object, where every layout of the sections
   * between them places them (object-layout.ts): named so, among the names their bytes match.
   */
  byLayout(minCompared: number, memory: ProgramMemory): boolean {
    if (this.layouts.empty) return false;
    const anchors: Anchor[] = [];
    for (const [f, fn] of this.functions.entries()) {
      if (this.oneName(f) === null) continue;
      const m = this.live[f]!.find((x) => x.compared >= minCompared || x.agreed > 0 || x.calledAs !== null);
      if (m) anchors.push({ item: m.item, address: fn.address });
    }
    let changed = false;
    for (const p of this.layouts.placements(anchors, memory)) {
      const g = this.at.get(p.address);
      if (g === undefined) {
        const from = this.at.get(p.from);
        if (from !== undefined) this.placeOutside(p.address, p.item, p.why, this.functions[from]!.key);
      } else if (this.name(g, this.items[p.item]!.names[0]!, p.why)) changed = true;
    }
    return changed;
  }

  /**
   * Function item `item` placed at `address`, where the map has no function: kept when its bytes are
   * there (a second, different item placed there disputes it). Whether its bytes are there.
   */
  private placeOutside(address: number, item: number, why: string, key: string): boolean {
    const it = this.items[item]!;
    if (it.kind !== 'function' || it.bytes.length === 0) return false;
    const there = this.memory.read(address, it.bytes.length);
    if (there === null || !matchesAt(it, there, 0)) return false;
    const had = this.outside.get(address);
    if (had === undefined) this.outside.set(address, { item, why, key });
    else if (had !== null && this.items[had.item]!.names[0] !== it.names[0]) this.outside.set(address, null);
    return true;
  }

  /** A function several names match loses those whose calls reach functions named otherwise. */
  ruleOutByCalls(f: number, fn: ProgramFunction): boolean {
    const live = this.live[f]!;
    if (live.length < 2 || this.oneName(f) !== null) return false;
    const keep = live.filter((m) =>
      this.callsOf(fn, m).every(({ g, want }) => {
        const named = this.oneName(g);
        return named === null || named === want;
      }),
    );
    if (keep.length === 0 || keep.length === live.length) return false;
    this.live[f] = keep;
    return true;
  }
}
