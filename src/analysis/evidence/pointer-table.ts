// Evidence class `pointer-table` (referenced): aligned words in bytes no code uses as instructions or
// literals (.rodata, .data: vtables, dispatch tables, devoptabs, command tables) whose value is a code
// address where well-formed code starts; mode from bit 0 as for address-taken. Each accepted word is
// classified `pointer-table`; a word that points into a component without being code becomes a
// `data-word` reference (a string or object used through a table is found by value).

import { u32 } from '../../formats/le.js';
import { ByteClass, type Tier } from '../program-map/types.js';
import type { Walker } from '../program-map/walker.js';
import type { EvidenceClass } from './registry.js';

/** Whether the four bytes at `o` share one class that a table word may have (unknown or data). */
function dataWord(cls: Uint8Array, o: number): boolean {
  const c = cls[o]!;
  return (
    (c === ByteClass.unknown || c === ByteClass.data) &&
    cls[o + 1] === c &&
    cls[o + 2] === c &&
    cls[o + 3] === c
  );
}

/** The addresses analysed code materialises (literals naming them, ADR): a table starts at each. */
async function loadedAddresses(w: Walker): Promise<Set<number>> {
  const out = new Set<number>();
  for (let i = 0; i < w.refs.size; i++) {
    const pause = w.checkpoint();
    if (pause) await pause;
    const kind = w.refs.kindAt(i);
    if (kind === 'literal-value' || kind === 'pc-relative-address') out.add(w.refs.toAt(i));
  }
  return out;
}

/**
 * Per walker and component, the offsets of the words a table could hold, found by the first round:
 * aligned, nonzero, bytes of one class that is unknown or data, and a value inside a component (with
 * bit 0 for Thumb; word-aligned for ARM). Later rounds read only these: bytes only ever gain a class,
 * so a word left out then cannot qualify later, and the components (what a value lies inside) never
 * change. Each round still checks every listed word's class and offers it as the first round did.
 */
const candidatesOf = new WeakMap<Walker, Int32Array[]>();

async function tableWords(w: Walker): Promise<Int32Array[]> {
  const known = candidatesOf.get(w);
  if (known) return known;
  const out: Int32Array[] = [];
  for (const comp of w.set.list) {
    const b = comp.bytes;
    const found: number[] = [];
    for (let o = (4 - (comp.start & 3)) & 3; o + 4 <= b.length; o += 4) {
      // A scan of every word of a 12 MiB program: the walk's checkpoint gives the event loop turns.
      const pause = w.checkpoint();
      if (pause) await pause;
      if (!dataWord(comp.cls, o)) continue;
      const value = u32(b, o);
      if (value === 0) continue;
      const thumb = (value & 1) === 1;
      const address = thumb ? value - 1 : value;
      if (!thumb && address % 4 !== 0) continue;
      if (!('component' in w.set.lookup(address))) continue;
      found.push(o);
    }
    out.push(Int32Array.from(found));
  }
  candidatesOf.set(w, out);
  return out;
}

export const pointerTable = {
  id: 'pointer-table',
  tier: 'referenced',
  description:
    'aligned words in data (vtables, dispatch and device tables) pointing where well-formed code starts',
  bounded: false,
  async onIdle(ctx) {
    const w = ctx.walker;
    let found = 0;
    // Made on the first accepted word of a round (most rounds accept none).
    let loaded: Set<number> | null = null;
    const words = await tableWords(w);
    for (const comp of w.set.list) {
      const b = comp.bytes;
      const list = words[comp.index]!;
      for (let k = 0; k < list.length; k++) {
        const pause = w.checkpoint();
        if (pause) await pause;
        const o = list[k]!;
        if (!dataWord(comp.cls, o)) continue;
        const c = comp.cls[o]!;
        const value = u32(b, o);
        const thumb = (value & 1) === 1;
        const address = thumb ? value - 1 : value;
        const target = w.set.lookup(address);
        if (!('component' in target)) continue;
        const from = comp.start + o;
        const sourceTier: Tier = c === ByteClass.data ? 'heuristic' : 'referenced';
        if (
          await ctx.offer({
            component: target.component,
            address,
            mode: thumb ? 'thumb' : 'arm',
            sourceTier,
            from,
            fromComponent: comp.index,
          })
        ) {
          comp.cls.fill(ByteClass.pointerTable, o, o + 4);
          comp.tier.fill(sourceTier === 'heuristic' ? 2 : 1, o, o + 4);
          loaded ??= await loadedAddresses(w);
          // The table is the run of table words this one ends (the code loads its first word's address).
          let first = o;
          while (
            first >= 4 &&
            !loaded.has(comp.start + first) &&
            comp.cls[first - 4] === ByteClass.pointerTable
          )
            first -= 4;
          w.refs.add({
            from,
            to: address,
            kind: 'table-entry',
            component: comp.index,
            mode: 'data',
            tier: sourceTier,
            extra: comp.start + first,
          });
          found++;
        }
      }
    }
    return found;
  },
  async onFinish(ctx) {
    candidatesOf.delete(ctx.walker);
    // Words of data (not code, not a literal a load already names) that point into a component: a
    // string or object used through a table is found by value. A run of such words is one table; the
    // code that loads its first word's address is what uses it.
    const w = ctx.walker;
    const loaded = await loadedAddresses(w);
    for (const comp of w.set.list) {
      const b = comp.bytes;
      let runStart = -1;
      for (let o = (4 - (comp.start & 3)) & 3; o + 4 <= b.length; o += 4) {
        const pause = w.checkpoint();
        if (pause) await pause;
        const c = comp.cls[o]!;
        const value = u32(b, o);
        const data = c === ByteClass.unknown || c === ByteClass.data || c === ByteClass.pointerTable;
        const pointer = data && value !== 0 && w.set.holds(value & ~1);
        if (!pointer) {
          runStart = -1;
          continue;
        }
        // A word whose address code loads starts a table of its own (tables often sit side by side).
        if (runStart < 0 || loaded.has(comp.start + o)) runStart = o;
        if (c === ByteClass.pointerTable) continue; // already a table entry of code
        w.refs.add({
          from: comp.start + o,
          to: value,
          kind: 'data-word',
          component: comp.index,
          mode: 'data',
          tier: 'heuristic',
          extra: comp.start + runStart,
        });
      }
    }
  },
} as const satisfies EvidenceClass;
