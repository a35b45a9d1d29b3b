// Branches that leave the function: one into another component (ITCM code branching to main RAM: no
// function spans two) is a tail call, its target a function (tail-call evidence; the walk's edge()
// applies tailCall to every kind of branch); so is an unconditional branch to code that saves LR
// first; a branch to a mode-switch veneer (the linker's, e.g. __f_from_arm) is a tail call of the
// veneer (the direct-call evidence names the veneer an entry; the body stops there). A branch onto
// code another function's walk decoded is a shared tail (sharedTail: the walk asks when a branch
// meets a block it has already decoded).

import type { ArmMode } from '../../../arm/types.js';
import { u32 } from '../../../formats/le.js';
import type { MapBlock } from '../blocks.js';
import type { MapComponent } from '../components.js';
import { TIER_RANK, TIERS } from '../types.js';
import type { FunctionWalk, WalkItem } from '../walk-types.js';
import type { FlowSite, Resolver, WalkOps } from './resolver.js';
import { savesLr } from './returns.js';

export const tailVeneer: Resolver = {
  id: 'tail-veneer',
  description: 'an unconditional branch to a mode-switch veneer: a tail call of the veneer',
  tailBranch({ walk, comp, block, ins }: FlowSite): boolean {
    const found = walk.set.lookup(ins.target!, comp);
    if (!('component' in found)) {
      block.tailVeneer = false;
      return false;
    }
    const c = found.component;
    const o = ins.target! - c.start;
    if (o < 0 || o + 4 > c.bytes.length) {
      block.tailVeneer = false;
      return false;
    }
    const word = u32(c.bytes, o);
    const shaped =
      ins.targetMode === 'thumb'
        ? (word & 0xffff) === 0x4778
        : (word & 0xfffff000) >>> 0 === 0xe59fc000 || word === 0xe51ff004;
    block.tailVeneer = shaped && walk.memo.veneerLanding(c, ins.target!, ins.targetMode!) !== null;
    return false;
  },
};

/** Names the target of a branch into another component a function (tail-call evidence). */
export function tailCall(
  walk: WalkOps,
  comp: MapComponent,
  block: MapBlock,
  target: MapComponent,
  address: number,
  mode: ArmMode,
  site: number | undefined,
): void {
  walk.addEntry(
    {
      component: target,
      address,
      mode,
      class: 'tail-call',
      classTier: 'proven',
      ...(site !== undefined ? { from: site } : {}),
      fromComponent: comp.index,
    },
    TIERS[block.tier]!,
  );
}

/** Instructions a tail-called function may run before it saves LR (a literal load, a move). */
const TAIL_PROLOGUE_WITHIN = 3;

/**
 * An unconditional branch to code that starts by saving LR on the stack: the code of a function (a
 * function's body never saves LR again after a branch inside it), so the branch is a tail call of it.
 */
export const tailPrologue: Resolver = {
  id: 'tail-prologue',
  description: 'an unconditional branch to code that saves LR first: a tail call of the function there',
  tailBranch({ walk, comp, block, ins }: FlowSite): boolean {
    const found = walk.set.lookup(ins.target!, comp);
    if (!('component' in found) || ins.condition) return false;
    const target = found.component;
    if (!savesLr(walk, target, ins.target!, ins.targetMode!, TAIL_PROLOGUE_WITHIN)) return false;
    tailCall(walk, comp, block, target, ins.target!, ins.targetMode!, ins.address);
    return true;
  },
};

/**
 * An unconditional branch of one function's walk onto code another function's walk decoded: code
 * two functions reach by a tail branch is a function of its own (a shared tail), named so.
 */
export function sharedTail(
  walk: WalkOps,
  fn: FunctionWalk,
  comp: MapComponent,
  item: WalkItem,
  block: number,
): void {
  if (item.kind !== 'branch' || item.from < 0) return;
  const other = walk.blocks.walkOf(block);
  if (other < 0 || other === fn.entry.index || walk.entryAt(comp.index, item.mode, item.address)) return;
  // Two functions' own walks, at the tiers code references establish: a guess of the sweep (or code
  // walked as no function) branching into a known function is no evidence that its target is shared.
  const first = walk.entryOfWalk(other);
  const worst = TIER_RANK.referenced;
  if (!first || first.orphan || fn.entry.orphan || first.tier > worst || fn.tier > worst) return;
  const from = walk.blocks.get(walk.owner(item.from));
  walk.addEntry(
    {
      component: comp,
      address: item.address,
      mode: item.mode,
      class: 'tail-call',
      classTier: 'proven',
      from: from.end - (from.mode === 'arm' ? 4 : 2),
      fromComponent: from.comp,
    },
    TIERS[fn.tier]!,
  );
}
