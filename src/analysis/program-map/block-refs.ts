// The references a decoded block makes, recorded in the walk's RefStore: an instruction's branch
// target, PC-relative address and literal word (the literal's bytes classified as a pool), and a
// resolved call's direct target and constant-register target. Pure.
import { literalSlotOf } from '../../arm/literal-pools.js';
import type { DecodedInstruction } from '../../arm/types.js';
import { u32 } from '../../formats/le.js';
import type { MapBlock } from './blocks.js';
import type { MapCall } from './call-store.js';
import type { MapComponent } from './components.js';
import type { RefStore } from './refs.js';
import { ByteClass, TIERS, type Tier } from './types.js';

/** Literal words remembered per function walk (candidates for a spilled table address). */
const MAX_CONTEXT_LITERALS = 1024;

/** The references of one instruction; a literal word it loads is added to `literals` (bounded). */
export function instructionRefs(
  refs: RefStore,
  comp: MapComponent,
  block: MapBlock,
  ins: DecodedInstruction,
  tier: number,
  literals: number[],
): void {
  const t = TIERS[tier]!;
  const conditional = ins.condition !== undefined;
  const base = { component: comp.index, mode: block.mode, tier: t, conditional };
  if (ins.flow === 'branch' && ins.target !== undefined)
    refs.add({ from: ins.address, to: ins.target, kind: 'direct-branch', ...base });
  if (ins.pcRelative)
    refs.add({ from: ins.address, to: ins.pcRelative.address, kind: ins.pcRelative.kind, ...base });
  const slot = literalSlotOf(ins);
  if (slot === null) return;
  const o = slot - comp.start;
  if (o < 0 || o + 4 > comp.bytes.length) return;
  const value = u32(comp.bytes, o);
  if (literals.length < MAX_CONTEXT_LITERALS) literals.push(value);
  // The word as stored; a query for a Thumb function also matches its address + 1.
  refs.add({ from: ins.address, to: value, kind: 'literal-value', ...base, extra: slot });
  const cls = comp.cls;
  const free =
    cls[o] === ByteClass.unknown &&
    cls[o + 1] === ByteClass.unknown &&
    cls[o + 2] === ByteClass.unknown &&
    cls[o + 3] === ByteClass.unknown;
  if (free) {
    comp.cls.fill(ByteClass.literalPool, o, o + 4);
    comp.tier.fill(tier, o, o + 4);
  }
}

/** The references of a resolved call: a direct call of what it names, a constant register's target. */
export function callRefs(
  refs: RefStore,
  comp: MapComponent,
  block: MapBlock,
  call: MapCall,
  tier: Tier,
): void {
  const base = {
    from: call.at,
    component: comp.index,
    mode: block.mode,
    tier,
    conditional: call.conditional,
  };
  // Every BL/BLX with a target is a direct call of what it names (a veneer, stub or helper too).
  if (call.kind !== 'register') refs.add({ ...base, to: call.via ?? call.target!, kind: 'direct-call' });
  if ((call.kind === 'register' || call.kind === 'stub') && call.target !== null)
    refs.add({ ...base, to: call.target, kind: 'constant-register-call' });
}
