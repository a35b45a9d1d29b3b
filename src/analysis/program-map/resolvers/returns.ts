// Whether code runs after a call: not past the component's end, and not into a function's prologue
// right after an unconditional call (code never runs on into another function's frame set-up; what
// was called does not come back). Whether a walked function may return at all is the walk's own
// body's question: a path of it reaching a return (mayReturn).
import type { ArmMode, DecodedInstruction } from '../../../arm/types.js';
import type { BlockStore, EdgeStore } from '../blocks.js';
import type { CallStore } from '../call-store.js';
import type { MapComponent } from '../components.js';
import { baseOf, decodeAt, registerList } from '../instructions.js';
import { ByteClass, headOf } from '../types.js';
import type { CallSite, Resolver, WalkOps } from './resolver.js';

/**
 * Whether the code at `address` saves LR on the stack, as its first act or among its first `within`
 * straight-line instructions (a function whose entry loads a register first: a late start).
 */
export function savesLr(
  walk: WalkOps,
  comp: MapComponent,
  address: number,
  mode: ArmMode,
  within = 1,
): boolean {
  const cls = comp.cls[address - comp.start];
  if (cls !== ByteClass.unknown && cls !== headOf(mode)) return false;
  for (const ins of decodeAt(comp, address, mode, walk.processor, within)) {
    if (ins.condition || ins.flow !== undefined) return false;
    if (pushesLr(ins)) return true;
  }
  return false;
}

/** Whether one instruction saves LR on the stack (PUSH / STMDB SP! with LR, STR LR, [SP, #-4]!). */
function pushesLr(ins: DecodedInstruction): boolean {
  const base = baseOf(ins);
  if (base === 'str' && ins.operands.replace(/\s/g, '') === 'lr,[sp,#-4]!') return true;
  if (base !== 'push' && !((base === 'stmdb' || base === 'stmfd') && ins.operands.startsWith('sp!')))
    return false;
  return registerList(ins.operands)?.includes(14) === true;
}

export const noReturnHere: Resolver = {
  id: 'no-return-here',
  description: "no code after a call at a component's end or right before a function's prologue",
  continuation({ walk, comp, block, call }: CallSite) {
    if (block.end >= comp.end) return 'none';
    if (!call.conditional && savesLr(walk, comp, block.end, block.mode)) return 'none';
    return null;
  },
};

/** Whether some path from `block` reaches a return (or anything the walk cannot see the end of). */
export function mayReturn(blocks: BlockStore, edges: EdgeStore, calls: CallStore, block: number): boolean {
  const seen = new Set<number>([block]);
  const work = [block];
  while (work.length > 0) {
    const b = blocks.get(work.pop()!);
    if (b.pendingOut > 0) return true;
    switch (b.term) {
      case 'return':
      case 'indirect':
      case 'stop':
      case 'end':
      case 'conflict':
      // (A tail call returns where its callee does, and a stub where its register's function does.)
      case 'tail':
      case 'stub':
        return true;
      case 'call':
        if (calls.get(b.call).continuation === 'pending') return true;
        break;
      default:
        break;
    }
    for (const s of edges.targets(b.edges)) {
      if (!seen.has(s)) {
        seen.add(s);
        work.push(s);
      }
    }
  }
  return false;
}
