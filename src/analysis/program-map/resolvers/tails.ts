// Unconditional branches that leave the function: a branch to a mode-switch veneer (the linker's, e.g.
// __f_from_arm) is a tail call of the veneer (the direct-call evidence names the veneer an entry).
import { u32 } from '../../../formats/le.js';
import { veneerLanding } from '../idioms.js';
import type { FlowSite, Resolver } from './resolver.js';

export const tailVeneer: Resolver = {
  id: 'tail-veneer',
  description: 'an unconditional branch to a mode-switch veneer: a tail call of the veneer',
  tailBranch({ walk, comp, block, ins }: FlowSite): void {
    const found = walk.set.lookup(ins.target!, comp);
    if (!('component' in found)) {
      block.tailVeneer = false;
      return;
    }
    const c = found.component;
    const o = ins.target! - c.start;
    if (o < 0 || o + 4 > c.bytes.length) {
      block.tailVeneer = false;
      return;
    }
    const word = u32(c.bytes, o);
    const shaped =
      ins.targetMode === 'thumb'
        ? (word & 0xffff) === 0x4778
        : (word & 0xfffff000) >>> 0 === 0xe59fc000 || word === 0xe51ff004;
    block.tailVeneer =
      shaped && veneerLanding(walk.set, c, ins.target!, ins.targetMode!, walk.processor) !== null;
  },
};
