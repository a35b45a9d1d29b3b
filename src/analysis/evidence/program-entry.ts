// Evidence class `program-entry` (proven): the processor's header entry point, ARM, in its main
// executable. The one root every proof starts from.
import type { EvidenceClass } from './registry.js';

export const programEntry = {
  id: 'program-entry',
  tier: 'proven',
  description: 'the header entry point (ARM)',
  bounded: true,
  async onIdle(ctx) {
    const w = ctx.walker;
    const main = w.set.list.find((c) => c.kind === 'main');
    if (!main) return 0;
    const entry = w.entryPoint;
    if (entry === null) return 0;
    const known = w.entries.size;
    const e = w.addEntry(
      { component: main, address: entry, mode: 'arm', class: 'program-entry', classTier: 'proven' },
      'proven',
    );
    return e && w.entries.size > known ? 1 : 0;
  },
} as const satisfies EvidenceClass;
