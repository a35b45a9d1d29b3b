// Classifying a component's bytes: each byte's class and the tier that classified it, set once (a byte
// the map has classified is never reclassified by another fact). Pure.
import type { ArmMode } from '../../arm/types.js';
import type { MapComponent } from './components.js';
import { ByteClass, bodyOf, headOf, TIER_RANK, type Tier } from './types.js';

/** What a detector may establish bytes to be. */
export type ByteFact = 'arm' | 'thumb' | 'literal' | 'table' | 'string' | 'padding' | 'data';

const CLASS_OF: Record<Exclude<ByteFact, 'arm' | 'thumb'>, number> = {
  literal: ByteClass.literalPool,
  table: ByteClass.pointerTable,
  string: ByteClass.string,
  padding: ByteClass.padding,
  data: ByteClass.data,
};

/** Whether [address, address + size) lies in `comp` and nothing classified any of it yet. */
export function unclassified(comp: MapComponent, address: number, size: number): boolean {
  const o = address - comp.start;
  if (o < 0 || o + size > comp.bytes.length) return false;
  for (let i = 0; i < size; i++) if (comp.cls[o + i] !== ByteClass.unknown) return false;
  return true;
}

/** Marks an instruction's bytes as code of `mode` (its first byte the head) at tier rank `tier`. */
export function markCode(
  comp: MapComponent,
  address: number,
  size: number,
  mode: ArmMode,
  tier: number,
): void {
  const o = address - comp.start;
  comp.cls[o] = headOf(mode);
  comp.tier[o] = tier;
  const body = bodyOf(mode);
  for (let i = 1; i < size; i++) {
    comp.cls[o + i] = body;
    comp.tier[o + i] = tier;
  }
}

/**
 * Classifies bytes still unclassified as `what` at `tier`: the bytes of code it added (0 for non-code),
 * or null when some byte already is something else.
 */
export function classifyBytes(
  comp: MapComponent,
  address: number,
  size: number,
  what: ByteFact,
  tier: Tier,
): number | null {
  if (!unclassified(comp, address, size)) return null;
  const o = address - comp.start;
  if (what === 'arm' || what === 'thumb') {
    comp.cls[o] = headOf(what);
    comp.cls.fill(bodyOf(what), o + 1, o + size);
  } else comp.cls.fill(CLASS_OF[what], o, o + size);
  comp.tier.fill(TIER_RANK[tier], o, o + size);
  return what === 'arm' || what === 'thumb' ? size : 0;
}
