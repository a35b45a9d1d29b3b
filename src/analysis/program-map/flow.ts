// What a control-flow instruction does to the block it ends: a call makes a call record, a direct
// branch an edge (a conditional one two, and keeps the compare that may bound a dispatch after it), a
// return ends the block; an unconditional branch is shown to the tail resolvers, and any other PC
// write to the branch resolvers, in the walk's order (resolvers/index.ts by default); one none resolves is an
// unresolved indirect branch. A call is classified by the call resolvers. Pure.
import type { DecodedInstruction } from '../../arm/types.js';
import type { MapBlock } from './blocks.js';
import type { MapComponent } from './components.js';
import { guardMax, guardOf } from './idioms.js';
import { lastCompare, mentionsRegister } from './instructions.js';
import type { CallSite, FlowSite, WalkOps } from './resolvers/resolver.js';
import type { FunctionWalk, WalkItem } from './walk-types.js';

/** The site of the block that `instructions` end (its last instruction). */
export function flowSite(
  walk: WalkOps,
  fn: FunctionWalk,
  comp: MapComponent,
  block: MapBlock,
  instructions: DecodedInstruction[],
  arrival: WalkItem | null,
): FlowSite {
  return { walk, fn, comp, block, instructions, ins: instructions[instructions.length - 1]!, arrival };
}

/** Applies the control-flow instruction ending `site`'s block; true when it ends the block. */
export function applyFlow(site: FlowSite): boolean {
  const { walk, fn, comp, block, instructions, ins } = site;
  const next = ins.address + ins.size;
  switch (ins.flow) {
    case 'call':
      block.term = 'call';
      block.call = walk.newCall(comp, block, ins, 'direct', ins.target!, ins.targetMode!);
      return true;
    case 'call-indirect':
      block.term = 'call';
      block.call = walk.newCall(comp, block, ins, 'register', null, null);
      walk.calls.get(block.call).register = ins.operands.trim();
      return true;
    case 'branch':
      if (ins.condition) {
        block.term = 'conditional';
        const i = instructions.length - 1;
        const cmp = lastCompare(instructions, i);
        const guard = guardOf(cmp, ins.condition);
        // Kept only when it bounds one of the two paths (an unsigned compare): no other is ever read.
        if (
          guard &&
          cmp &&
          (guardMax(guard, true) !== null || guardMax(guard, false) !== null) &&
          !mentionsRegister(instructions, instructions.indexOf(cmp) + 1, i, guard.register)
        )
          block.guard = guard;
        walk.edge(fn, block, comp, ins.targetMode!, ins.target!, 'taken', ins.address);
        if (next < comp.end) walk.edge(fn, block, comp, block.mode, next, 'fallthrough');
      } else {
        block.term = 'branch';
        let leaves = false;
        for (const r of walk.resolvers.tailBranch) leaves = r.tailBranch!(site) || leaves;
        // A branch that leaves the function (a tail call) is no edge of its body.
        if (leaves) block.term = 'tail';
        else walk.edge(fn, block, comp, ins.targetMode!, ins.target!, 'branch', ins.address);
      }
      return true;
    case 'return':
      block.term = 'return';
      if (ins.condition && next < comp.end) walk.edge(fn, block, comp, block.mode, next, 'fallthrough');
      return true;
    default:
      for (const r of walk.resolvers.branch) if (r.branch!(site)) return true;
      block.term = 'indirect';
      walk.gaps.indirectBranches++;
      if (ins.condition && next < comp.end) walk.edge(fn, block, comp, block.mode, next, 'fallthrough');
      return true;
  }
}

/**
 * Classifies the call ending the site's block through the call resolvers (register, long branch,
 * stub, helper, veneer); a direct call none claims calls its target. True when no code follows it.
 */
export function resolveCall(site: CallSite): boolean {
  const { walk, call } = site;
  let target: MapComponent | null = null;
  if (call.kind !== 'register') {
    const found = walk.set.lookup(call.target!, site.comp);
    if (!('component' in found)) {
      call.unresolved = found.unresolved;
      return false;
    }
    target = found.component;
  }
  // One literal of CallSite's shape (a spread makes an object of another shape).
  const resolving: CallSite = {
    walk: site.walk,
    fn: site.fn,
    comp: site.comp,
    block: site.block,
    instructions: site.instructions,
    ins: site.ins,
    arrival: site.arrival,
    call,
    target,
  };
  for (const r of walk.resolvers.call) {
    const out = r.call!(resolving);
    if (out !== null) return out === 'ends';
  }
  if (target) call.targetComp = target.index;
  return false;
}
