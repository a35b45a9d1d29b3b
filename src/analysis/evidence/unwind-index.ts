// Evidence class `unwind-index` (referenced): the ARM EHABI exception index table (.ARM.exidx) that C++
// programs and libraries built with unwind tables carry: pairs of words whose first is a 31-bit
// place-relative offset to a function's first instruction, in ascending function order; the second is
// 1 (cannot unwind), an inline unwind description (bit 31 set) or an offset to its table entry. A run of
// at least MIN_ENTRIES such pairs in unclassified bytes is the table; each function start it names
// becomes an entry where well-formed code starts. The index does not give the mode: a start already
// walked keeps its own, otherwise Thumb and ARM are both offered (the probe keeps what is code).
// Each function's exception table entry (C++: GCC's personality routine and its call-site table)
// names its landing pads and personality routine too.

import { u32 } from '../../formats/le.js';
import type { MapComponent } from '../program-map/components.js';
import { ByteClass, headOf } from '../program-map/types.js';
import type { Walker } from '../program-map/walker.js';
import type { EvidenceClass, IdleContext } from './registry.js';

const MIN_ENTRIES = 4;
const done = new WeakMap<Walker, boolean>();

const prel31 = (word: number, at: number): number => {
  let off = word & 0x7fffffff;
  if (off & 0x40000000) off -= 0x80000000;
  return (at + off) >>> 0;
};

interface Table {
  comp: MapComponent;
  /** Byte offset of the first pair. */
  start: number;
  /** Each pair: the function start, where the pair is, and its second word. */
  starts: { address: number; at: number; word: number }[];
}

/** Reads a ULEB128 at `o` of `b`: [value, next offset], or null past `end`. */
function uleb(b: Uint8Array, o: number, end: number): [number, number] | null {
  let v = 0;
  let shift = 0;
  for (let i = o; i < end && shift < 32; i++) {
    v += (b[i]! & 0x7f) * 2 ** shift;
    shift += 7;
    if ((b[i]! & 0x80) === 0) return [v, i + 1];
  }
  return null;
}

/**
 * The landing pads of one function from its exception table entry (the generic model GCC's C++
 * personality routine uses): a personality routine offset, a word whose top byte counts the unwind
 * opcode words that follow, then the language-specific data: LPStart and TType encodings (omitted or
 * skipped), the call-site encoding and table, each record (start, length, landing pad, action) with
 * pads relative to the function start. Only uleb128 and udata4 call-site encodings are read.
 */
function landingPads(
  comp: MapComponent,
  fn: number,
  extab: number,
): { pads: number[]; personality: number } | null {
  const b = comp.bytes;
  const o = extab - comp.start;
  if (o < 0 || o + 8 > b.length || extab % 4 !== 0) return null;
  const w0 = u32(b, o);
  if (w0 & 0x80000000) return null; // the compact model carries no landing pads
  const personality = prel31(w0, extab);
  const extra = u32(b, o + 4) >>> 24;
  let at = o + 8 + 4 * extra;
  const end = Math.min(b.length, at + 4096);
  if (at >= end) return null;
  const lpStart = b[at++]!;
  if (lpStart !== 0xff) return null;
  const ttype = b[at++]!;
  if (ttype !== 0xff) {
    const t = uleb(b, at, end);
    if (!t) return null;
    at = t[1];
  }
  const encoding = b[at++]!;
  if (encoding !== 0x01 && encoding !== 0x03) return null;
  const len = uleb(b, at, end);
  if (!len) return null;
  at = len[1];
  const stop = at + len[0];
  if (stop > end) return null;
  const read = (): number | null => {
    if (encoding === 0x03) {
      if (at + 4 > stop) return null;
      const v = u32(b, at);
      at += 4;
      return v;
    }
    const r = uleb(b, at, stop);
    if (!r) return null;
    at = r[1];
    return r[0];
  };
  const pads: number[] = [];
  while (at < stop) {
    const start = read();
    const length = read();
    const pad = read();
    const action = uleb(b, at, stop);
    if (start === null || length === null || pad === null || !action) return null;
    at = action[1];
    if (pad !== 0) pads.push((fn + pad) >>> 0);
  }
  return { pads, personality };
}

/** The index tables of every component (a scan of every word, with the walk's checkpoint). */
async function tables(w: Walker): Promise<Table[]> {
  const out: Table[] = [];
  for (const comp of w.set.list) {
    const b = comp.bytes;
    const free = (o: number) => {
      for (let i = 0; i < 8; i++)
        if (comp.cls[o + i] !== ByteClass.unknown && comp.cls[o + i] !== ByteClass.data) return false;
      return true;
    };
    const pairAt = (o: number): { target: number; word: number } | null => {
      if (o + 8 > b.length || !free(o)) return null;
      const w0 = u32(b, o);
      const w1 = u32(b, o + 4);
      // (An offset of zero names the pair itself: zero fill, never an index entry.)
      if (w0 & 0x80000000 || w0 === 0) return null;
      const target = prel31(w0, comp.start + o);
      if (!('component' in w.set.lookup(target))) return null;
      if (
        w1 !== 1 &&
        (w1 & 0x80000000) === 0 &&
        !('component' in w.set.lookup(prel31(w1, comp.start + o + 4)))
      )
        return null;
      return { target, word: w1 };
    };
    let o = (4 - (comp.start & 3)) & 3;
    while (o + 8 <= b.length) {
      const pause = w.checkpoint();
      if (pause) await pause;
      const first = pairAt(o);
      if (first === null) {
        o += 4;
        continue;
      }
      const starts = [{ address: first.target, at: comp.start + o, word: first.word }];
      let e = o + 8;
      for (
        let next = pairAt(e);
        next !== null && next.target > starts[starts.length - 1]!.address;
        next = pairAt(e)
      ) {
        starts.push({ address: next.target, at: comp.start + e, word: next.word });
        e += 8;
      }
      if (starts.length >= MIN_ENTRIES) {
        out.push({ comp, start: o, starts });
        o = e;
      } else o += 4;
    }
  }
  return out;
}

/**
 * The exception table entries of one index table: landing pads (code the unwinder jumps to, walked
 * as code of no new function) and the personality routines they name.
 */
async function exceptionTables(ctx: IdleContext, t: Table): Promise<number> {
  const w = ctx.walker;
  let found = 0;
  for (let i = 0; i < t.starts.length; i++) {
    const s = t.starts[i]!;
    if (s.word === 1 || (s.word & 0x80000000) !== 0) continue;
    const extab = prel31(s.word, s.at + 4);
    const l = w.set.lookup(extab);
    const fnAt = w.set.lookup(s.address);
    if (!('component' in l) || !('component' in fnAt)) continue;
    const lp = landingPads(l.component, s.address, extab);
    if (!lp) continue;
    const c = fnAt.component;
    const next = t.starts[i + 1]?.address ?? c.end;
    const mode = c.cls[s.address - c.start] === headOf('arm') ? ('arm' as const) : ('thumb' as const);
    for (const pad of lp.pads) {
      if (pad <= s.address || pad >= next) continue;
      const at = { component: c, address: pad, mode, sourceTier: 'referenced' as const, from: extab };
      if (await ctx.offer({ ...at, fromComponent: l.component.index, orphan: true })) found++;
    }
    const pers = w.set.lookup((lp.personality & ~1) >>> 0);
    if ('component' in pers) {
      const candidate = {
        component: pers.component,
        address: (lp.personality & ~1) >>> 0,
        mode: lp.personality & 1 ? ('thumb' as const) : ('arm' as const),
        sourceTier: 'referenced' as const,
        from: extab,
        fromComponent: l.component.index,
      };
      if (await ctx.offer(candidate)) found++;
    }
  }
  return found;
}

export const unwindIndex = {
  id: 'unwind-index',
  tier: 'referenced',
  description:
    'function starts named by the ARM exception index table (.ARM.exidx) of C++ and unwind-table code',
  bounded: false,
  async onIdle(ctx) {
    const w = ctx.walker;
    if (done.get(w)) return 0;
    done.set(w, true);
    let found = 0;
    const all = await tables(w);
    for (const t of all) {
      t.comp.cls.fill(ByteClass.pointerTable, t.start, t.start + 8 * t.starts.length);
      t.comp.tier.fill(1, t.start, t.start + 8 * t.starts.length);
      for (const s of t.starts) {
        const l = w.set.lookup(s.address);
        if (!('component' in l)) continue;
        const c = l.component;
        w.refs.add({
          from: s.at,
          to: s.address,
          kind: 'table-entry',
          component: t.comp.index,
          mode: 'data',
          tier: 'referenced',
          extra: t.comp.start + t.start,
        });
        const cls = c.cls[s.address - c.start]!;
        const modes =
          cls === headOf('arm')
            ? (['arm'] as const)
            : cls === headOf('thumb')
              ? (['thumb'] as const)
              : (['thumb', 'arm'] as const);
        for (const mode of modes) {
          if (
            await ctx.offer({
              component: c,
              address: s.address,
              mode,
              sourceTier: 'referenced',
              from: s.at,
              fromComponent: t.comp.index,
            })
          ) {
            found++;
            break;
          }
        }
      }
    }
    // Landing pads are checked against their function's walked code (its literal pools, the callees
    // that never return), so the functions the index names are walked first.
    await ctx.settle();
    for (const t of all) found += await exceptionTables(ctx, t);
    return found;
  },
} as const satisfies EvidenceClass;
