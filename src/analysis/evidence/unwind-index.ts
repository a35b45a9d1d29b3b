// Evidence class `unwind-index` (referenced): the ARM EHABI exception index table (.ARM.exidx) that C++
// programs and libraries built with unwind tables carry: pairs of words whose first is a 31-bit
// place-relative offset to a function's first instruction, in ascending function order; the second is
// 1 (cannot unwind), an inline unwind description (bit 31 set) or an offset to its table entry. A run of
// at least MIN_ENTRIES such pairs in unclassified bytes is the table; each function start it names
// becomes an entry where well-formed code starts. The index does not give the mode: a start already
// walked keeps its own, otherwise Thumb and ARM are both offered (the probe keeps what is code).
import type { MapComponent } from '../program-map/components.js';
import { ByteClass, headOf } from '../program-map/types.js';
import type { Walker } from '../program-map/walker.js';
import type { EvidenceClass } from './registry.js';

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
  starts: { address: number; at: number }[];
}

function tables(w: Walker): Table[] {
  const out: Table[] = [];
  for (const comp of w.set.list) {
    const b = comp.bytes;
    const word = (o: number) => (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
    const free = (o: number) => {
      for (let i = 0; i < 8; i++)
        if (comp.cls[o + i] !== ByteClass.unknown && comp.cls[o + i] !== ByteClass.data) return false;
      return true;
    };
    const pairAt = (o: number): number | null => {
      if (o + 8 > b.length || !free(o)) return null;
      const w0 = word(o);
      const w1 = word(o + 4);
      if (w0 & 0x80000000) return null;
      const target = prel31(w0, comp.start + o);
      if (!('component' in w.set.lookup(target))) return null;
      if (
        w1 !== 1 &&
        (w1 & 0x80000000) === 0 &&
        !('component' in w.set.lookup(prel31(w1, comp.start + o + 4)))
      )
        return null;
      return target;
    };
    let o = (4 - (comp.start & 3)) & 3;
    while (o + 8 <= b.length) {
      const first = pairAt(o);
      if (first === null) {
        o += 4;
        continue;
      }
      const starts = [{ address: first, at: comp.start + o }];
      let e = o + 8;
      for (
        let next = pairAt(e);
        next !== null && next > starts[starts.length - 1]!.address;
        next = pairAt(e)
      ) {
        starts.push({ address: next, at: comp.start + e });
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
    for (const t of tables(w)) {
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
    return found;
  },
} as const satisfies EvidenceClass;
