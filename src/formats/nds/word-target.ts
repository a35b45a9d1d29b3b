// What a 32-bit word loaded by code says about the ROM's static layout, as facts only: its bit 0 (the
// interworking bit a BX/BLX/POP-PC would read as "Thumb") and the static components that hold the
// address it names with that bit cleared. Whether the code uses the word as an address is not known
// here; an owner is reported only when the word does name a mapped runtime address.
import type { Processor } from '../../core/vocabulary.js';
import { type MappedStatus, resolveRuntimeAddress } from './address-map.js';
import type { NdsRomModel, RuntimeRangeKind } from './model.js';

export interface WordTarget {
  /** Bit 0 of the word. */
  modeBit: 0 | 1;
  /** The word with bit 0 cleared. */
  address: number;
  status: MappedStatus;
  owners: { component: string; overlayId: number | null; region: RuntimeRangeKind }[];
}

/** The runtime-address reading of `word` on `processor`; null when it names no mapped address. */
export function wordTarget(model: NdsRomModel, processor: Processor, word: number): WordTarget | null {
  const address = (word & ~1) >>> 0;
  const r = resolveRuntimeAddress(model, processor, address);
  if (r.status === 'unmapped') return null;
  return {
    modeBit: (word & 1) as 0 | 1,
    address,
    status: r.status,
    owners: r.candidates.map((c) => ({ component: c.component, overlayId: c.overlayId, region: c.region })),
  };
}
