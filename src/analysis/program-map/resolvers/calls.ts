// What a call really is: a register call whose register the block loads with a constant; a Thumb BL
// that is GCC's long branch inside one function (its target restores a frame it never built); a BL to
// a register stub (`bx rN`: ARMv4T Thumb has no BLX), which calls the register's constant; a BL to a
// mode-switch veneer, which calls the veneer's destination. A direct call no resolver claims calls its
// target.
import type { DecodedInstruction } from '../../../arm/types.js';
import { u32 } from '../../../formats/le.js';
import type { MapCall } from '../call-store.js';
import type { MapComponent } from '../components.js';
import { baseOf, mentionsRegister, regNumber } from '../instructions.js';
import { TIERS } from '../types.js';
import type { CallSite, FlowSite, Resolver, WalkOps } from './resolver.js';

/**
 * The constant a call's register holds at the call: defined in this block by a literal load or a
 * PC-relative address, unconditionally, with nothing in between mentioning the register.
 */
function constantTarget(
  walk: WalkOps,
  comp: MapComponent,
  instructions: DecodedInstruction[],
  at: number,
  call: MapCall,
): void {
  const reg = call.register!;
  if (regNumber(reg) === null || regNumber(reg)! > 12) return;
  let j = at - 1;
  if (
    call.kind === 'register' &&
    instructions[j] &&
    baseOf(instructions[j]!) === 'mov' &&
    instructions[j]!.operands.replace(/\s/g, '') === 'lr,pc'
  )
    j--;
  for (; j >= 0; j--) {
    const d = instructions[j]!;
    if (d.flow !== undefined) return;
    if (!mentionsRegister([d], 0, 1, regNumber(reg)!)) continue;
    const first = d.operands.split(',')[0]!.trim();
    if (first !== reg || d.condition || !d.pcRelative) return;
    let value: number | null = null;
    if (d.pcRelative.kind === 'literal-pool' && baseOf(d) === 'ldr') {
      const o = d.pcRelative.address - comp.start;
      if (o < 0 || o + 4 > comp.bytes.length) return;
      value = u32(comp.bytes, o);
      call.slot = d.pcRelative.address;
    } else if (d.pcRelative.kind === 'pc-relative-address') value = d.pcRelative.address;
    if (value === null) return;
    const thumb = (value & 1) === 1;
    call.definedAt = d.address;
    call.target = thumb ? value - 1 : value;
    call.targetMode = thumb ? 'thumb' : 'arm';
    const found = walk.set.lookup(call.target, comp);
    if ('component' in found) call.targetComp = found.component.index;
    else call.unresolved = found.unresolved;
    return;
  }
}

/** BLX rN / MOV LR, PC; BX rN: an indirect call, whose target is known when the block loads a constant. */
export const constantRegister: Resolver = {
  id: 'constant-register',
  description: 'a call through a register the calling block loads with a constant (literal or ADR)',
  call({ walk, comp, instructions, call }: CallSite) {
    if (call.kind !== 'register') return null;
    walk.gaps.indirectCalls++;
    if (call.register) constantTarget(walk, comp, instructions, instructions.length - 1, call);
    return 'continues';
  },
};

/** A Thumb BL into code that restores a frame it never built: a long branch inside this function. */
export const longBranch: Resolver = {
  id: 'long-branch',
  description: 'a Thumb BL whose target restores a frame it never built: a branch inside one function',
  call({ walk, fn, comp, block, ins, call, target }: CallSite) {
    if (target === null || block.mode !== 'thumb' || call.targetMode !== 'thumb' || baseOf(ins) !== 'bl')
      return null;
    if (!walk.memo.longBranchTarget(target, call.target!)) return null;
    block.term = 'branch';
    block.call = -1;
    walk.calls.pop();
    walk.refs.add({
      from: ins.address,
      to: call.target!,
      kind: 'direct-branch',
      component: comp.index,
      mode: block.mode,
      tier: TIERS[block.tier]!,
    });
    walk.edge(fn, block, comp, 'thumb', call.target!, 'branch');
    return 'ends';
  },
};

/** A BL to `bx rN`: a call of the register's constant, through the stub (a function of its own). */
export const registerStub: Resolver = {
  id: 'register-stub',
  description: 'a BL to a `bx rN` stub: a call of the constant the calling block loads into rN',
  call({ walk, comp, block, instructions, call, target }: CallSite) {
    if (target === null) return null;
    const mode = call.targetMode!;
    const stub = walk.memo.stubRegister(target, call.target!, mode);
    if (!stub) return null;
    call.kind = 'stub';
    call.via = call.target;
    call.viaMode = mode;
    call.register = stub;
    call.target = null;
    call.targetMode = null;
    walk.gaps.indirectCalls++;
    // The stub is a function of its own (a BL calls it): a veneer whose target each caller loads.
    walk.addEntry(
      {
        component: target,
        address: call.via!,
        mode,
        class: 'direct-call',
        classTier: 'proven',
        from: call.at,
        fromComponent: comp.index,
      },
      TIERS[block.tier]!,
    );
    constantTarget(walk, comp, instructions, instructions.length - 1, call);
    return 'continues';
  },
};

/** A BL to a mode-switch veneer (`bx pc` + `b f`, `ldr ip, =f; bx ip`): a call of f through the veneer. */
export const veneerCall: Resolver = {
  id: 'veneer-call',
  description: 'a BL to a mode-switch veneer: a call of the veneer and of where it lands',
  call({ walk, call, target }: CallSite) {
    if (target === null) return null;
    const mode = call.targetMode!;
    const landing = walk.memo.veneerLanding(target, call.target!, mode);
    if (!landing) return null;
    const to = walk.set.lookup(landing.address, target);
    call.kind = 'veneer';
    call.via = call.target;
    call.viaMode = mode;
    call.targetComp = 'component' in to ? to.component.index : null;
    call.target = landing.address;
    call.targetMode = landing.mode;
    if (!('component' in to)) call.unresolved = to.unresolved;
    return 'continues';
  },
};

/** A function that is one `bx rN` (a register stub): it goes where each caller's register says. */
export const stubBody: Resolver = {
  id: 'stub-body',
  description: 'a function whose whole body is `bx rN`: a register stub, resolved at each call site',
  branch({ fn, comp, block, instructions, ins }: FlowSite) {
    if (instructions.length !== 1 || block.start !== fn.entry.address || fn.entry.comp !== comp.index)
      return false;
    if (baseOf(ins) !== 'bx' || ins.condition || regNumber(ins.operands.trim()) === null) return false;
    if (regNumber(ins.operands.trim())! > 12) return false;
    block.term = 'stub';
    return true;
  },
};
