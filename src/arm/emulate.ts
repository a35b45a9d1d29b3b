// A small, exact interpreter of ARMv5TE (ARM9) and ARMv4T (ARM7) code, ARM and Thumb, over values that
// may be unknown. It exists to establish facts by running the program's own bytes: where a copy
// routine puts the bytes it copies, where a switch dispatch lands for each index, which register a
// call stub branches through. It never guesses: an unknown value that decides a branch, a condition
// or a store address stops the run with a reason, as does any instruction outside the supported set
// (coprocessor, status-register, exception and Thumb-2 encodings). Pure: memory is the caller's.
//
// Bounded by the caller's step limit; one step is one instruction.
//
// This module is the run loop and the public surface; the parts: emulate-state.ts (state, memory,
// how a run stops), emulate-access.ts (register and memory accesses), emulate-alu.ts (conditions,
// shifter, ALU), emulate-arm.ts (an ARM step) and emulate-thumb.ts (a Thumb step, one handler per
// format).
import type { Processor } from '../core/vocabulary.js';
import { read } from './emulate-access.js';
import { conditionHolds } from './emulate-alu.js';
import { armStep } from './emulate-arm.js';
import {
  type CoprocessorWrite,
  type Ctx,
  type EmuFlags,
  type EmuMemory,
  type EmuState,
  type EmuStop,
  Stop,
} from './emulate-state.js';
import { thumbStep } from './emulate-thumb.js';

export type { CoprocessorWrite, EmuMemory, EmuState } from './emulate-state.js';
export { emuState } from './emulate-state.js';

interface EmulateOptions {
  processor: Processor;
  memory: EmuMemory;
  maxSteps: number;
  /** Checked before each instruction; true stops the run there. */
  stopAt?: (pc: number, thumb: boolean) => boolean;
  /** Sees every executed instruction's address (for tests and for tracing which code ran). */
  onStep?: (pc: number, thumb: boolean) => void;
  /**
   * Status-register, coprocessor and SWI instructions: 'stop' (default) ends the run as unsupported;
   * 'skip' runs them as far as the general registers go (MRS/MRC make their destination unknown, SWI
   * the BIOS's scratch registers r0-r3, r12, LR; MSR/MCR/CDP/LDC/STC change none). For start-up
   * code, whose mode switches and CP15 set-up do not decide what it copies where.
   */
  system?: 'stop' | 'skip';
  /**
   * An instruction whose condition depends on an unknown flag: 'stop' (default) ends the run there
   * ('unknown-condition', the PC at the instruction); 'join' runs one that does not write the PC as
   * both outcomes at once (every register, flag and byte it would change becomes unknown) and stops
   * only at a conditional branch, whose two ways the caller may follow (assumeCondition).
   */
  unknownCondition?: 'stop' | 'join';
  /** Sees every MCR (ARM coprocessor register write: the CP15 set-up) with the value written. */
  onCoprocessorWrite?: (write: CoprocessorWrite) => void;
}

interface EmulateResult {
  stop: EmuStop;
  /** Where the run stopped: the next instruction to execute (or the one that could not run). */
  pc: number;
  thumb: boolean;
  steps: number;
}

/** Runs from `state` until a stop; mutates `state` (registers, flags, PC, mode). */
export function emulate(state: EmuState, opts: EmulateOptions): EmulateResult {
  const ctx: Ctx = {
    mem: opts.memory,
    v5: opts.processor === 'arm9',
    skip: opts.system === 'skip',
    join: opts.unknownCondition === 'join',
    onMcr: opts.onCoprocessorWrite,
  };
  let steps = 0;
  let at = state.r[15];
  const result = (stop: EmuStop): EmulateResult => ({ stop, pc: state.r[15]!, thumb: state.thumb, steps });
  try {
    for (;;) {
      const pc = state.r[15];
      if (pc === null) return result('unknown-branch');
      if (opts.stopAt?.(pc, state.thumb)) return result('stopped');
      if (steps >= opts.maxSteps) return result('step-limit');
      opts.onStep?.(pc, state.thumb);
      at = pc;
      if (state.thumb) thumbStep(state, ctx);
      else armStep(state, ctx);
      steps++;
    }
  } catch (error) {
    if (!(error instanceof Stop)) throw error;
    // An undecidable condition is reported at its instruction (nothing of it has run).
    if (error.reason === 'unknown-condition') state.r[15] = at;
    return result(error.reason);
  }
}

/** The condition field of the instruction at `pc` (ARM: every one; Thumb: B<cond>); null for none. */
export function conditionAt(mem: EmuMemory, pc: number, thumb: boolean): number | null {
  if (thumb) {
    const h = read(mem, pc, 2, true);
    if (h === null || (h & 0xf000) !== 0xd000) return null;
    const cond = (h >>> 8) & 0xf;
    return cond >= 0xe ? null : cond;
  }
  const w = read(mem, pc, 4, true);
  return w === null || w >>> 28 >= 0xe ? null : w >>> 28;
}

/**
 * Makes condition `cond` come out `outcome` by fixing the unknown flags it reads (a known flag stays);
 * false when the known flags already decide it the other way. The run may then go on as one of the
 * executions in which the unknown values are so.
 */
export function assumeCondition(flags: EmuFlags, cond: number, outcome: boolean): boolean {
  const order: (keyof EmuFlags)[] = ['z', 'c', 'n', 'v'];
  const unknown = order.filter((k) => flags[k] === null);
  // Every assignment of the unknown flags, in a fixed order: the first that gives `outcome`.
  for (let bits = 0; bits < 1 << unknown.length; bits++) {
    const trial = { ...flags };
    unknown.forEach((k, i) => {
      trial[k] = ((bits >>> i) & 1) === 1;
    });
    if (conditionHolds(cond, trial) === outcome) {
      Object.assign(flags, trial);
      return true;
    }
  }
  return false;
}
