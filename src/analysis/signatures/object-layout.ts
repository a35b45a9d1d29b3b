// The sections of one object laid out again between two of its functions found in a program. A
// linker places the input sections of an object that it keeps one after another, in their order in
// the object, each at the next address its alignment allows (sections it drops, to garbage collection
// or to a group kept from another object, take no room). So when functions of two sections of one
// object are named in a program, the sections between them lie in that gap in one of few ways: each is
// there (where the previous one ended, aligned, with its bytes matching) or not at all, and the last
// must end where the second named section begins, aligned. Every way that closes the gap exactly is
// worked out; a section that every one of them places at one address is named there. Sets without
// section spans (version 1, or built from a linked image) lay out nothing. Pure.
import { u32 } from '../../formats/le.js';
import { derivedFrom, matchesAt, type ProgramMemory, type SigItem } from './types.js';

export const LAYOUT_LIMITS = {
  /** Sections between two named ones laid out at most (more: that gap is left). */
  sectionsBetween: { max: 1024, unit: 'sections' },
  /** Bytes between two named sections at most. */
  gapBytes: { max: 1 << 20, unit: 'bytes' },
  /** Ways a gap's start can be reached after one section at most (more: that gap is left). */
  states: { max: 64, unit: 'addresses' },
  /** Sections of the two objects around a gap that whole objects may fill, at most. */
  sectionsAround: { max: 16, unit: 'sections' },
  /** Whole objects of the set laid into one gap at most. */
  objectsBetween: { max: 4, unit: 'objects' },
  /** Steps of the search for the ways whole objects fill one gap (more: that gap is left). */
  fillSteps: { max: 4096, unit: 'steps' },
  /** Ways whole objects fill one gap at most (more: that gap is left). */
  fills: { max: 16, unit: 'ways' },
} as const;

/** A function found in the program and the item one name matches it by. */
export interface Anchor {
  item: number;
  address: number;
}

/** A function item placed by the layout of its object. */
interface Placed {
  address: number;
  item: number;
  why: string;
  /** The address of the function before the gap (the first anchor). */
  from: number;
}

/** A section an anchor names, and where. */
interface Named {
  origin: string;
  rank: number;
  start: number;
  address: number;
  item: number;
}

interface Section {
  index: number;
  size: number;
  align: number;
  /** Its items (function and data) and their offsets in it. */
  items: { item: number; offset: number }[];
}

const hex = (n: number) => `0x${n.toString(16)}`;
const alignUp = (p: number, a: number) => ((p + a - 1) & -a) >>> 0;

/** What each step of a gap's layout did on some way through it: a section's address, or skipped. */
const SKIPPED = -1;

const LAYOUTS = new WeakMap<readonly SigItem[], ObjectLayouts>();

/** The layouts of `items` (built once per items array). */
export const objectLayoutsOf = (items: readonly SigItem[]): ObjectLayouts =>
  derivedFrom(LAYOUTS, items, (i) => new ObjectLayouts(i));

export class ObjectLayouts {
  /** Each object's code sections (those with items), in their order in the object. */
  private readonly objects = new Map<string, Section[]>();
  /** Where each item's section is in its object's list. */
  private readonly rankOf = new Map<number, number>();

  constructor(private readonly items: readonly SigItem[]) {
    const byKey = new Map<string, Section>();
    for (const [i, item] of items.entries()) {
      const span = item.place?.span;
      if (span === undefined || item.place === undefined) continue;
      const k = `${item.origin}\u0000${item.place.section}`;
      let s = byKey.get(k);
      if (s === undefined) {
        s = { index: item.place.section, size: span.size, align: span.align, items: [] };
        byKey.set(k, s);
        const list = this.objects.get(item.origin) ?? [];
        list.push(s);
        this.objects.set(item.origin, list);
      }
      s.items.push({ item: i, offset: item.place.offset });
    }
    for (const list of this.objects.values()) {
      list.sort((a, b) => a.index - b.index);
      for (const [r, s] of list.entries()) for (const { item } of s.items) this.rankOf.set(item, r);
    }
  }

  /** Whether any item has a section span (else nothing can be laid out). */
  get empty(): boolean {
    return this.objects.size === 0;
  }

  /**
   * The function items the gaps between `anchors` place: between two named sections of one object, the
   * sections between them; between the last named section of one object and the next named section,
   * of another object, the first object's later sections then the other's earlier ones (a linker lays
   * one object's sections after the other's; anything else between them closes no gap).
   */
  placements(anchors: readonly Anchor[], memory: ProgramMemory): Placed[] {
    // Each named section and where it starts; a section two anchors start apart is left.
    const named = new Map<string, Named | null>();
    for (const a of anchors) {
      const item = this.items[a.item]!;
      const rank = this.rankOf.get(a.item);
      if (rank === undefined) continue;
      const start = (a.address - item.place!.offset) >>> 0;
      const k = `${item.origin}\u0000${rank}`;
      const had = named.get(k);
      if (had === undefined)
        named.set(k, { origin: item.origin, rank, start, address: a.address, item: a.item });
      else if (had !== null && had.start !== start) named.set(k, null);
    }
    const sorted = [...named.values()].filter((n) => n !== null).sort((a, b) => a.start - b.start);
    const out: Placed[] = [];
    for (let k = 0; k + 1 < sorted.length; k++) {
      const a1 = sorted[k]!;
      const a2 = sorted[k + 1]!;
      const first = this.objects.get(a1.origin)!;
      const second = this.objects.get(a2.origin)!;
      const between =
        a1.origin === a2.origin
          ? first.slice(a1.rank + 1, a2.rank)
          : [...first.slice(a1.rank + 1), ...second.slice(0, a2.rank)];
      if (between.length > LAYOUT_LIMITS.sectionsBetween.max) continue;
      if (a1.origin === a2.origin && a2.rank < a1.rank) continue;
      const from = a1.start + first[a1.rank]!.size;
      if (a2.start < from || a2.start - from > LAYOUT_LIMITS.gapBytes.max) continue;
      const lastAlign = second[a2.rank]!.align;
      let fixed = between.length === 0 ? null : this.layGap(between, lastAlign, from, a2.start, memory);
      let how =
        a1.origin === a2.origin
          ? `as ${a1.origin} orders its sections`
          : `${a1.origin} ending and ${a2.origin} starting there`;
      if (fixed === null && a1.origin !== a2.origin && from !== a2.start) {
        const tail = first.slice(a1.rank + 1);
        const head = second.slice(0, a2.rank);
        if (tail.length + head.length <= LAYOUT_LIMITS.sectionsAround.max) {
          const anchored = new Set(sorted.map((n) => n.origin));
          fixed = this.fillWithObjects(tail, head, lastAlign, from, a2.start, anchored, memory);
          how = `${a1.origin} ending, whole objects of the set between, and ${a2.origin} starting there`;
        }
      }
      if (fixed === null) continue;
      const why = `laid out between ${this.items[a1.item]!.names[0]} (${hex(a1.address)}) and ${this.items[a2.item]!.names[0]} (${hex(a2.address)}), ${how}`;
      for (const [s, at] of fixed)
        for (const { item, offset } of s.items)
          if (this.items[item]!.kind === 'function')
            out.push({ address: at + offset, item, why, from: a1.address });
    }
    return out;
  }

  /**
   * The objects of the set by the alignment of their first section, then by that section's first word
   * (`any` holds those whose first word is masked or not at offset 0).
   */
  private firstWords: Map<number, { byWord: Map<number, Section[][]>; any: Section[][] }> | null = null;

  private objectsByFirstWord(): Map<number, { byWord: Map<number, Section[][]>; any: Section[][] }> {
    if (this.firstWords !== null) return this.firstWords;
    const index = new Map<number, { byWord: Map<number, Section[][]>; any: Section[][] }>();
    for (const list of this.objects.values()) {
      const s = list[0]!;
      const lead = s.items.find((x) => x.offset === 0);
      const it = lead === undefined ? undefined : this.items[lead.item]!;
      let byAlign = index.get(s.align);
      if (byAlign === undefined) {
        byAlign = { byWord: new Map(), any: [] };
        index.set(s.align, byAlign);
      }
      if (it !== undefined && it.bytes.length >= 4 && it.mask.subarray(0, 4).every((m) => m === 1)) {
        const word = u32(it.bytes, 0);
        const had = byAlign.byWord.get(word);
        if (had) had.push(list);
        else byAlign.byWord.set(word, [list]);
      } else byAlign.any.push(list);
    }
    this.firstWords = index;
    return index;
  }

  /** The objects (not `anchored`) whose sections all fit one after another from `p`, and where each ends. */
  private wholeObjectsAt(
    p: number,
    end: number,
    anchored: ReadonlySet<string>,
    memory: ProgramMemory,
  ): { sections: Section[]; ats: number[]; next: number }[] {
    const out: { sections: Section[]; ats: number[]; next: number }[] = [];
    // Per alignment: only the objects whose first word is the one there, and those of any first word.
    for (const [align, { byWord, any }] of this.objectsByFirstWord()) {
      const there = memory.read(alignUp(p, align), 4);
      const keyed = there === null ? undefined : byWord.get(u32(there, 0));
      for (const lists of keyed === undefined ? [any] : [keyed, any])
        for (const sections of lists) {
          if (anchored.has(this.items[sections[0]!.items[0]!.item]!.origin)) continue;
          const ats: number[] = [];
          let q = p;
          for (const s of sections) {
            const a = alignUp(q, s.align);
            if (a + s.size > end || !this.fits(s, a, memory)) break;
            ats.push(a);
            q = a + s.size;
          }
          if (ats.length === sections.length) out.push({ sections, ats, next: q });
        }
    }
    return out;
  }

  /**
   * A gap between two objects' named sections that their own sections alone do not close, filled with
   * the first object's later sections (each there or not), whole objects of the set named nowhere else
   * (every section there, one after another), then the second object's earlier sections (each there or
   * not). The sections every way that closes the gap places at one address, or null (no way, or more
   * ways or steps than LAYOUT_LIMITS allows).
   */
  private fillWithObjects(
    tail: readonly Section[],
    head: readonly Section[],
    lastAlign: number,
    from: number,
    end: number,
    anchored: ReadonlySet<string>,
    memory: ProgramMemory,
  ): Map<Section, number> | null {
    const fills: Map<Section, number>[] = [];
    const path: [Section, number][] = [];
    let steps = 0;
    const over = () => ++steps > LAYOUT_LIMITS.fillSteps.max || fills.length > LAYOUT_LIMITS.fills.max;
    const optional = (list: readonly Section[], i: number, p: number, then: (p: number) => void): void => {
      if (over()) return;
      if (i === list.length) {
        then(p);
        return;
      }
      optional(list, i + 1, p, then);
      const s = list[i]!;
      const at = alignUp(p, s.align);
      if (at + s.size > end || !this.fits(s, at, memory)) return;
      path.push([s, at]);
      optional(list, i + 1, at + s.size, then);
      path.pop();
    };
    const closes = (p: number) => {
      if (alignUp(p, lastAlign) === end) fills.push(new Map(path));
    };
    const objects = (p: number, depth: number): void => {
      if (over()) return;
      optional(head, 0, p, closes);
      if (depth === LAYOUT_LIMITS.objectsBetween.max || p >= end) return;
      for (const o of this.wholeObjectsAt(p, end, anchored, memory)) {
        for (const [k, s] of o.sections.entries()) path.push([s, o.ats[k]!]);
        objects(o.next, depth + 1);
        path.length -= o.sections.length;
      }
    };
    optional(tail, 0, from, (p) => objects(p, 0));
    if (over() || fills.length === 0) return null;
    const fixed = new Map<Section, number>();
    for (const [s, at] of fills[0]!) if (fills.every((f) => f.get(s) === at)) fixed.set(s, at);
    return fixed;
  }

  /** Whether every item of `s` with bytes matches the program at `at`. */
  private fits(s: Section, at: number, memory: ProgramMemory): boolean {
    for (const { item, offset } of s.items) {
      const it = this.items[item]!;
      if (it.bytes.length === 0) continue;
      const there = memory.read(at + offset, it.bytes.length);
      if (there === null || !matchesAt(it, there, 0)) return false;
    }
    return true;
  }

  /**
   * The sections of `between` (in link order) that every way of filling [from, end) places at one
   * address, the section after them aligned to `lastAlign` starting at
   * `end`; null when no way closes the gap or the ways are too many.
   */
  private layGap(
    between: readonly Section[],
    lastAlign: number,
    from: number,
    end: number,
    memory: ProgramMemory,
  ): Map<Section, number> | null {
    // steps[j]: for each address reached after section r1+1+j, the ways it was reached.
    const steps: Map<number, { prev: number; at: number }[]>[] = [];
    let reached = new Map<number, { prev: number; at: number }[]>([[from, []]]);
    for (const s of between) {
      const next = new Map<number, { prev: number; at: number }[]>();
      const add = (p: number, way: { prev: number; at: number }) => {
        const list = next.get(p);
        if (list) list.push(way);
        else next.set(p, [way]);
      };
      for (const p of reached.keys()) {
        add(p, { prev: p, at: SKIPPED });
        const at = alignUp(p, s.align);
        if (at + s.size <= end && this.fits(s, at, memory)) add(at + s.size, { prev: p, at });
      }
      if (next.size > LAYOUT_LIMITS.states.max) return null;
      steps.push(next);
      reached = next;
    }
    let live = new Set([...reached.keys()].filter((p) => alignUp(p, lastAlign) === end));
    if (live.size === 0) return null;
    // Back through the steps: what each section did on the ways that close the gap.
    const fixed = new Map<Section, number>();
    for (let j = steps.length - 1; j >= 0; j--) {
      const ats = new Set<number>();
      const prev = new Set<number>();
      for (const p of live)
        for (const way of steps[j]!.get(p)!) {
          ats.add(way.at);
          prev.add(way.prev);
        }
      if (ats.size === 1) {
        const at = [...ats][0]!;
        if (at !== SKIPPED) fixed.set(between[j]!, at);
      }
      live = prev;
    }
    return fixed;
  }
}
