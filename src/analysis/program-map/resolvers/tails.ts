// Unconditional branches that leave the function: a branch into another component (ITCM code branching
// to main RAM: no function spans two components) is a tail call, its target a function (tail-call
// evidence); a branch to a mode-switch veneer (the linker's, e.g. __f_from_arm) is a tail call of the
// veneer (the direct-call evidence names the veneer an entry; the body stops there). A branch onto
// code another function's walk decoded is named by the walk itself (Walker.sharedTail).
import { u32 } from '../../../formats/le.js';
import { veneerLanding } from '../idioms.js';
import { TIERS } from '../types.js';
import type { FlowSite, Resolver } from './resolver.js';

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
    block.tailVeneer =
      shaped && veneerLanding(walk.set, c, ins.target!, ins.targetMode!, walk.processor) !== null;
    return false;
  },
};

export const tailAcross: Resolver = {
  id: 'tail-across',
  description: 'an unconditional branch into another component: a tail call of a function there',
  tailBranch({ walk, comp, block, ins }: FlowSite): boolean {
    const found = walk.set.lookup(ins.target!, comp);
    if (!('component' in found) || found.component === comp) return false;
    walk.addEntry(
      {
        component: found.component,
        address: ins.target!,
        mode: ins.targetMode!,
        class: 'tail-call',
        classTier: 'proven',
        from: ins.address,
        fromComponent: comp.index,
      },
      TIERS[block.tier]!,
    );
    return true;
  },
};
