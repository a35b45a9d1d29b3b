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
  // (Every instruction of the walk comes here: fields, not an object per reference.)
  const t = TIERS[tier]!;
  const conditional = ins.condition !== undefined;
  const c = comp.index;
  const mode = block.mode;
  if (ins.flow === 'branch' && ins.target !== undefined)
    refs.addOf(ins.address, ins.target, 'direct-branch', c, mode, t, conditional, 0);
  if (ins.pcRelative)
    refs.addOf(ins.address, ins.pcRelative.address, ins.pcRelative.kind, c, mode, t, conditional, 0);
  const slot = literalSlotOf(ins);
  if (slot === null) return;
  const o = slot - comp.start;
  if (o < 0 || o + 4 > comp.bytes.length) return;
  const value = u32(comp.bytes, o);
  if (literals.length < MAX_CONTEXT_LITERALS) literals.push(value);
  // The word as stored; a query for a Thumb function also matches its address + 1.
  refs.addOf(ins.address, value, 'literal-value', c, mode, t, conditional, slot);
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
  const at = call.at;
  const c = comp.index;
  const mode = block.mode;
  const conditional = call.conditional;
  const kind = call.kind;
  const target = call.target;
  // Every BL/BLX with a target is a direct call of what it names (a veneer, stub or helper too).
  if (kind !== 'register') refs.addOf(at, call.via ?? target!, 'direct-call', c, mode, tier, conditional, 0);
  if ((kind === 'register' || kind === 'stub') && target !== null)
    refs.addOf(at, target, 'constant-register-call', c, mode, tier, conditional, 0);
}
