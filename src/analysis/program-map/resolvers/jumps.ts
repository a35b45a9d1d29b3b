// Indirect PC writes whose destination the block itself fixes: a call through MOV LR, PC; BX PC (a mode
// switch to the next word); LDR PC from a literal; BX of an address the block builds from PC.
import { u32 } from '../../../formats/le.js';
import { blockValue } from '../idioms.js';
import { baseOf, regNumber } from '../instructions.js';
import { TIERS } from '../types.js';
import type { FlowSite, Resolver } from './resolver.js';

/** MOV LR, PC right before a PC write (ARM): LR is the next instruction, so this is a call. */
export const callThroughLr: Resolver = {
  id: 'call-through-lr',
  description: 'MOV LR, PC then a PC write (ARM): a call through a register',
  branch({ walk, comp, block, instructions, ins }: FlowSite): boolean {
    const prev = instructions[instructions.length - 2];
    if (block.mode !== 'arm' || !prev || baseOf(prev) !== 'mov' || prev.condition) return false;
    if (prev.operands.replace(/\s/g, '') !== 'lr,pc') return false;
    const base = baseOf(ins);
    block.term = 'call';
    block.call = walk.newCall(comp, block, ins, 'register', null, null);
    const c = walk.calls.get(block.call);
    c.register = base === 'bx' || base === 'mov' ? (ins.operands.split(',').pop() ?? '').trim() : null;
    return true;
  },
};

/** BX PC: Thumb to ARM at the next word; ARM to ARM at the instruction + 8 (the word after it skipped). */
export const pcModeSwitch: Resolver = {
  id: 'bx-pc',
  description: 'BX PC: on to ARM code at the next word (Thumb) or past the next word (ARM)',
  branch({ walk, fn, comp, block, ins }: FlowSite): boolean {
    if (baseOf(ins) !== 'bx' || ins.operands.trim() !== 'pc' || ins.condition) return false;
    const t = TIERS[block.tier]!;
    block.term = 'branch';
    if (block.mode === 'thumb') {
      // From a word-aligned BX PC the halfword after it is skipped (ARM resumes at the next word).
      if (ins.address % 4 === 0) walk.classify(comp, ins.address + 2, 2, 'padding', t);
      walk.edge(fn, block, comp, 'arm', (ins.address + 4) & ~3, 'branch');
    } else {
      walk.classify(comp, ins.address + 4, 4, 'padding', t);
      walk.edge(fn, block, comp, 'arm', ins.address + 8, 'branch');
    }
    return true;
  },
};

/** LDR PC, [PC, #k] (ARM): to the literal word (Thumb when bit 0 is set, on the ARM9). */
export const literalJump: Resolver = {
  id: 'literal-jump',
  description: 'LDR PC, [PC, #k] (ARM): a jump to the address the literal word holds',
  branch({ walk, fn, comp, block, ins }: FlowSite): boolean {
    if (block.mode !== 'arm' || baseOf(ins) !== 'ldr' || ins.condition) return false;
    if (ins.pcRelative?.kind !== 'literal-pool' || !ins.operands.startsWith('pc,')) return false;
    const o = ins.pcRelative.address - comp.start;
    if (o < 0 || o + 4 > comp.bytes.length) return false;
    const w = u32(comp.bytes, o);
    block.term = 'branch';
    const thumb = (w & 1) === 1 && walk.processor === 'arm9';
    walk.edge(fn, block, comp, thumb ? 'thumb' : 'arm', thumb ? w - 1 : w & ~3, 'branch', ins.address);
    return true;
  },
};

/**
 * BX Rn whose value the block itself computes (an address built from PC): a branch there, in the mode
 * its bit 0 names (a mode switch inside one routine).
 */
export const computedBranch: Resolver = {
  id: 'computed-branch',
  description: 'BX Rn of an address the block builds from PC: a branch there (a mode switch in one routine)',
  branch({ walk, fn, comp, block, instructions, ins }: FlowSite): boolean {
    if (baseOf(ins) !== 'bx' || ins.condition) return false;
    const reg = regNumber(ins.operands.trim());
    const value =
      reg !== null && reg <= 12
        ? blockValue(walk.set, comp, walk.processor, block.mode, block.start, ins.address, reg)
        : null;
    if (value === null || !instructions.some((i) => i.pcRelative?.kind === 'pc-relative-address'))
      return false;
    const thumb = (value & 1) === 1;
    const target = (thumb ? value - 1 : value & ~3) >>> 0;
    if (!('component' in walk.set.lookup(target, comp))) return false;
    block.term = 'branch';
    walk.edge(fn, block, comp, thumb ? 'thumb' : 'arm', target, 'branch', ins.address);
    return true;
  },
};
