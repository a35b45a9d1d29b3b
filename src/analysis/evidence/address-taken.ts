// Evidence class `address-taken` (referenced): a code address analysed code materialises, as the word
// of a literal pool it loads or the address an ADR / ADD Rd, PC builds, pointing at an aligned place
// of an executable component where well-formed code starts (program-map/probe.ts). The mode is bit 0
// of the value (BX/BLX/POP-PC read it so): odd is Thumb, even must be word-aligned ARM. IRQ and FIFO
// handlers passed to an install call, callbacks handed to qsort, constructors of tables reach the map
// this way.

import { u32 } from '../../formats/le.js';
import { ByteClass } from '../program-map/types.js';
import type { Walker } from '../program-map/walker.js';
import type { EvidenceClass } from './registry.js';

const cursors = new WeakMap<Walker, number>();

export const addressTaken = {
  id: 'address-taken',
  tier: 'referenced',
  description:
    'a code address analysed code loads from a literal pool or builds with ADR, where well-formed code starts',
  bounded: false,
  async onIdle(ctx) {
    const w = ctx.walker;
    let from = cursors.get(w) ?? 0;
    let found = 0;
    // New references appear while candidates are walked later: the cursor moves over what is seen now.
    const end = w.refs.size;
    for (; from < end; from++) {
      const kind = w.refs.kindAt(from);
      if (kind !== 'literal-pool' && kind !== 'pc-relative-address') continue;
      const r = w.refs.get(from);
      const comp = w.component(r.component);
      let value: number;
      if (r.kind === 'literal-pool') {
        const o = r.to - comp.start;
        if (o < 0 || o + 4 > comp.bytes.length || comp.cls[o] !== ByteClass.literalPool) continue;
        value = u32(comp.bytes, o);
      } else value = r.to;
      const thumb = (value & 1) === 1;
      const address = thumb ? value - 1 : value;
      if (!thumb && address % 4 !== 0) continue;
      const target = w.set.lookup(address, comp);
      if (!('component' in target)) continue;
      if (
        await ctx.offer({
          component: target.component,
          address,
          mode: thumb ? 'thumb' : 'arm',
          sourceTier: r.tier,
          from: r.from,
          fromComponent: r.component,
        })
      )
        found++;
    }
    cursors.set(w, from);
    return found;
  },
} as const satisfies EvidenceClass;
