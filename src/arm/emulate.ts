// A small, exact interpreter of ARMv5TE (ARM9) and ARMv4T (ARM7) code, ARM and Thumb, over values that
// may be unknown. It exists to establish facts by running the program's own bytes: where a copy
// routine puts the bytes it copies, where a switch dispatch lands for each index, which register a
// call stub branches through. It never guesses: an unknown value that decides a branch, a condition
// or a store address stops the run with a reason, as does any instruction outside the supported set
// (coprocessor, status-register, exception and Thumb-2 encodings). Pure: memory is the caller's.
//
// Bounded by the caller's step limit; one step is one instruction.
import type { Processor } from '../core/vocabulary.js';

export type Value = number | null;

export interface EmuFlags {
  n: boolean | null;
  z: boolean | null;
  c: boolean | null;
  v: boolean | null;
}

export interface EmuState {
  /** r0..r15; r15 is the address of the next instruction to execute. */
  r: Value[];
  /**
   * Provenance of each register's value: the address it was loaded from, while it holds those bytes
   * unchanged (a plain load through a register base, or a move of such a value); null otherwise (a
   * PC-relative literal is a constant, not bytes being moved). `provWidth` is the load's width in bytes.
   */
  prov: (number | null)[];
  provWidth: number[];
  thumb: boolean;
  flags: EmuFlags;
}

export interface EmuMemory {
  /** The byte at `address`, or null when unknown; `fetch` for instruction fetches. */
  read8(address: number, fetch: boolean): number | null;
  /**
   * Stores a byte (null: unknown); `source` is the address the byte was loaded from when the stored
   * value is an unchanged loaded value (see EmuState.prov), else null. False refuses the store.
   */
  write8(address: number, value: number | null, source: number | null): boolean;
  /** Where the byte now at `address` came from (its own address for never-written bytes); null if unknown. */
  source8?(address: number): number | null;
}

export type EmuStop =
  | 'stopped' // the caller's stop predicate said so (the PC is about to execute there)
  | 'step-limit'
  | 'unknown-branch' // a branch target or a PC write depends on an unknown value
  | 'unknown-condition' // a condition depends on an unknown flag
  | 'unknown-address' // a store or a load address is unknown
  | 'memory' // the memory refused a store
  | 'undefined' // not an instruction of this processor
  | 'unsupported'; // an instruction this interpreter does not model

export interface EmulateOptions {
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

/** One MCR: coprocessor, its opcodes and registers, and the value of the general register written. */
export interface CoprocessorWrite {
  cp: number;
  opc1: number;
  crn: number;
  crm: number;
  opc2: number;
  value: Value;
}

export interface EmulateResult {
  stop: EmuStop;
  /** Where the run stopped: the next instruction to execute (or the one that could not run). */
  pc: number;
  thumb: boolean;
  steps: number;
}

const u32 = (v: number): number => v >>> 0;
const bit = (w: number, n: number): number => (w >>> n) & 1;

/** A fresh state: every register unknown but the PC, flags unknown. */
export function emuState(pc: number, thumb: boolean, registers: Record<number, number> = {}): EmuState {
  const r: Value[] = new Array<Value>(16).fill(null);
  for (const [k, v] of Object.entries(registers)) r[Number(k)] = u32(v);
  r[15] = u32(pc);
  return {
    r,
    prov: new Array<number | null>(16).fill(null),
    provWidth: new Array<number>(16).fill(0),
    thumb,
    flags: { n: null, z: null, c: null, v: null },
  };
}

/** Sets a register (never PC: see branchTo); `source` is the provenance of a plain load or move. */
function set(state: EmuState, n: number, value: Value, source: number | null = null, width = 0): void {
  state.r[n] = value;
  state.prov[n] = value === null ? null : source;
  state.provWidth[n] = source === null ? 0 : width;
}

/** The provenance of `width` bytes loaded from `address`: where they came from, if one contiguous run. */
function loadedFrom(mem: EmuMemory, address: Value, width: number): number | null {
  if (address === null) return null;
  const first = mem.source8 ? mem.source8(address) : address;
  if (first === null) return null;
  for (let i = 1; i < width; i++) {
    const next = mem.source8 ? mem.source8(u32(address + i)) : u32(address + i);
    if (next !== u32(first + i)) return null;
  }
  return first;
}

/** A load into register `n` of `width` bytes from `address`, with its provenance. */
function load(state: EmuState, mem: EmuMemory, n: number, value: Value, address: Value, width: number): void {
  set(state, n, value, value === null ? null : loadedFrom(mem, address, width), width);
}

/** Ends a run from deep inside a step. Not an Error: runs stop often and need no stack trace. */
class Stop {
  constructor(readonly reason: EmuStop) {}
}

function read(mem: EmuMemory, address: Value, size: 1 | 2 | 4, fetch = false): Value {
  if (address === null) return null;
  let out = 0;
  for (let i = 0; i < size; i++) {
    const b = mem.read8(u32(address + i), fetch);
    if (b === null) return null;
    out |= b << (8 * i);
  }
  return u32(out);
}

/**
 * Stores `size` bytes of `value`; `state`/`reg` give the stored register's provenance (kept only
 * when the register holds at least `size` loaded bytes unchanged).
 */
function write(
  mem: EmuMemory,
  address: Value,
  size: 1 | 2 | 4,
  value: Value,
  state?: EmuState,
  reg?: number,
): void {
  if (address === null) throw new Stop('unknown-address');
  const source =
    state !== undefined && reg !== undefined && reg !== 15 && state.provWidth[reg]! >= size
      ? state.prov[reg]!
      : null;
  for (let i = 0; i < size; i++) {
    const b = value === null ? null : (value >>> (8 * i)) & 0xff;
    if (!mem.write8(u32(address + i), b, source === null || b === null ? null : u32(source + i)))
      throw new Stop('memory');
  }
}

/** Rotated/misaligned word load as the ARM9/ARM7 do it: an unaligned LDR rotates the aligned word. */
function loadWord(mem: EmuMemory, address: Value): Value {
  if (address === null) return null;
  const aligned = read(mem, u32(address & ~3), 4);
  if (aligned === null) return null;
  const rot = (address & 3) * 8;
  return rot === 0 ? aligned : u32((aligned >>> rot) | (aligned << (32 - rot)));
}

function conditionHolds(cond: number, f: EmuFlags): boolean {
  const need = (...xs: (boolean | null)[]) => {
    if (xs.some((x) => x === null)) throw new Stop('unknown-condition');
    return xs as boolean[];
  };
  switch (cond) {
    case 0x0:
      return need(f.z)[0]!;
    case 0x1:
      return !need(f.z)[0]!;
    case 0x2:
      return need(f.c)[0]!;
    case 0x3:
      return !need(f.c)[0]!;
    case 0x4:
      return need(f.n)[0]!;
    case 0x5:
      return !need(f.n)[0]!;
    case 0x6:
      return need(f.v)[0]!;
    case 0x7:
      return !need(f.v)[0]!;
    case 0x8: {
      const [c, z] = need(f.c, f.z);
      return c! && !z!;
    }
    case 0x9: {
      // LS: C clear or Z set. A known decisive half suffices.
      if (f.c === false || f.z === true) return true;
      const [c, z] = need(f.c, f.z);
      return !c! || z!;
    }
    case 0xa: {
      const [n, v] = need(f.n, f.v);
      return n === v;
    }
    case 0xb: {
      const [n, v] = need(f.n, f.v);
      return n !== v;
    }
    case 0xc: {
      const [z, n, v] = need(f.z, f.n, f.v);
      return !z! && n === v;
    }
    case 0xd: {
      const [z, n, v] = need(f.z, f.n, f.v);
      return z! || n !== v;
    }
    case 0xe:
      return true;
    default:
      throw new Stop('undefined');
  }
}

interface Shifted {
  value: Value;
  carry: boolean | null;
}

/** The barrel shifter: type 0 LSL, 1 LSR, 2 ASR, 3 ROR (amount 0 with `immediate` = LSR/ASR #32, RRX). */
function shift(
  value: Value,
  type: number,
  amount: Value,
  carryIn: boolean | null,
  immediate: boolean,
): Shifted {
  if (value === null) return { value: null, carry: null };
  if (amount === null) return { value: null, carry: null };
  let n = amount & 0xff;
  if (immediate && n === 0) {
    if (type === 0) return { value, carry: carryIn };
    if (type === 3) {
      // RRX
      if (carryIn === null) return { value: null, carry: bit(value, 0) === 1 };
      return { value: u32((value >>> 1) | ((carryIn ? 1 : 0) << 31)), carry: bit(value, 0) === 1 };
    }
    n = 32;
  }
  if (n === 0) return { value, carry: carryIn };
  switch (type) {
    case 0:
      if (n < 32) return { value: u32(value << n), carry: bit(value, 32 - n) === 1 };
      return { value: 0, carry: n === 32 ? bit(value, 0) === 1 : false };
    case 1:
      if (n < 32) return { value: value >>> n, carry: bit(value, n - 1) === 1 };
      return { value: 0, carry: n === 32 ? bit(value, 31) === 1 : false };
    case 2:
      if (n < 32) return { value: u32((value | 0) >> n), carry: bit(value, n - 1) === 1 };
      return { value: bit(value, 31) ? 0xffffffff : 0, carry: bit(value, 31) === 1 };
    default: {
      const r = n & 31;
      if (r === 0) return { value, carry: bit(value, 31) === 1 };
      return { value: u32((value >>> r) | (value << (32 - r))), carry: bit(value, r - 1) === 1 };
    }
  }
}

interface AluResult {
  value: Value;
  flags: EmuFlags;
}

/** One data-processing operation (opcode 0..15) with its N/Z/C/V results. */
function alu(op: number, a: Value, b: Value, shifterCarry: boolean | null, f: EmuFlags): AluResult {
  const logical = (value: Value): AluResult => ({
    value,
    flags: {
      n: value === null ? null : bit(value, 31) === 1,
      z: value === null ? null : value === 0,
      c: shifterCarry,
      v: f.v,
    },
  });
  const arith = (x: Value, y: Value, carry: number | null, subtract: boolean): AluResult => {
    if (x === null || y === null || carry === null)
      return { value: null, flags: { n: null, z: null, c: null, v: null } };
    const yy = subtract ? u32(~y) : y;
    const sum = x + yy + carry;
    const value = u32(sum);
    const c = sum > 0xffffffff;
    const v = (bit(x, 31) === bit(yy, 31) && bit(value, 31) !== bit(x, 31)) as boolean;
    return { value, flags: { n: bit(value, 31) === 1, z: value === 0, c, v } };
  };
  const cin = f.c === null ? null : f.c ? 1 : 0;
  switch (op) {
    case 0x0:
    case 0x8:
      return logical(a === null || b === null ? null : u32(a & b));
    case 0x1:
    case 0x9:
      return logical(a === null || b === null ? null : u32(a ^ b));
    case 0x2:
    case 0xa:
      return arith(a, b, 1, true);
    case 0x3:
      return arith(b, a, 1, true);
    case 0x4:
    case 0xb:
      return arith(a, b, 0, false);
    case 0x5:
      return arith(a, b, cin, false);
    case 0x6:
      return arith(a, b, cin, true);
    case 0x7:
      return arith(b, a, cin, true);
    case 0xc:
      return logical(a === null || b === null ? null : u32(a | b));
    case 0xd:
      return logical(b);
    case 0xe:
      return logical(a === null || b === null ? null : u32(a & ~b));
    default:
      return logical(b === null ? null : u32(~b));
  }
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

interface Ctx {
  mem: EmuMemory;
  v5: boolean;
  skip: boolean;
  join: boolean;
  onMcr: ((write: CoprocessorWrite) => void) | undefined;
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

/**
 * Runs `exec` (one conditional instruction whose condition is unknown) as both outcomes at once: what
 * it changes becomes unknown. One that writes the PC is a branch: undone, and reported undecidable.
 */
function joinStep(state: EmuState, ctx: Ctx, pc: number, exec: () => void): void {
  const r = state.r.slice();
  const prov = state.prov.slice();
  const widths = state.provWidth.slice();
  const flags = { ...state.flags };
  const next = state.r[15];
  const mem = ctx.mem;
  const written: number[] = [];
  ctx.mem = {
    read8: (a, fetch) => mem.read8(a, fetch),
    write8: (a, value, source) => {
      written.push(a);
      return mem.write8(a, value, source);
    },
    ...(mem.source8 ? { source8: (a: number) => mem.source8!(a) } : {}),
  };
  try {
    exec();
  } finally {
    ctx.mem = mem;
  }
  if (state.r[15] !== next || state.thumb) {
    state.r = r;
    state.prov = prov;
    state.provWidth = widths;
    state.flags = flags;
    state.thumb = false;
    state.r[15] = pc;
    throw new Stop('unknown-condition');
  }
  for (let i = 0; i < 15; i++) if (state.r[i] !== r[i] || state.prov[i] !== prov[i]) set(state, i, null);
  for (const k of ['n', 'z', 'c', 'v'] as const) if (state.flags[k] !== flags[k]) state.flags[k] = null;
  for (const a of written) mem.write8(a, null, null);
}

/** Writes PC from a value: `interwork` (BX, LDR PC on ARMv5, POP PC on ARMv5) takes the mode from bit 0. */
function branchTo(state: EmuState, target: Value, interwork: boolean): void {
  if (target === null) throw new Stop('unknown-branch');
  if (interwork) {
    state.thumb = (target & 1) === 1;
    state.r[15] = u32(target & ~1);
  } else state.r[15] = u32(state.thumb ? target & ~1 : target & ~3);
}

/** An instruction outside the modelled set: stops, or (system 'skip') clobbers what it may write. */
function system(state: EmuState, ctx: Ctx, clobbers: number[]): void {
  if (!ctx.skip) throw new Stop('unsupported');
  for (const n of clobbers) set(state, n, null);
}

function armStep(state: EmuState, ctx: Ctx): void {
  const { mem, v5 } = ctx;
  const pc = state.r[15]!;
  if (pc % 4 !== 0) throw new Stop('undefined');
  const w = read(mem, pc, 4, true);
  if (w === null) throw new Stop('unsupported');
  const cond = w >>> 28;
  const next = u32(pc + 4);
  // Register reads see PC as the instruction's address + 8.
  const reg = (n: number): Value => (n === 15 ? u32(pc + 8) : state.r[n]!);
  if (cond === 0xf) {
    // Unconditional space: BLX <label> (v5); PLD is a hint.
    if (v5 && (w & 0x0e000000) === 0x0a000000) {
      const offset = ((w & 0xffffff) << 8) >> 6;
      set(state, 14, next);
      state.thumb = true;
      state.r[15] = u32(pc + 8 + offset + (bit(w, 24) << 1));
      return;
    }
    if (v5 && (w & 0x0d70f000) === 0x0550f000) {
      state.r[15] = next; // PLD
      return;
    }
    throw new Stop('undefined');
  }
  state.r[15] = next;
  let holds: boolean;
  try {
    holds = conditionHolds(cond, state.flags);
  } catch (error) {
    if (!(error instanceof Stop) || error.reason !== 'unknown-condition' || !ctx.join) throw error;
    joinStep(state, ctx, pc, () => armExecute(state, ctx, w, pc, next, reg));
    return;
  }
  if (holds) armExecute(state, ctx, w, pc, next, reg);
}

/** An ARM instruction whose condition holds (or is joined): everything after the condition check. */
function armExecute(
  state: EmuState,
  ctx: Ctx,
  w: number,
  pc: number,
  next: number,
  reg: (n: number) => Value,
) {
  const { v5 } = ctx;
  // BX / BLX register / CLZ.
  if ((w & 0x0ffffff0) === 0x012fff10) {
    branchTo(state, reg(w & 0xf), true);
    return;
  }
  if ((w & 0x0ffffff0) === 0x012fff30) {
    if (!v5) throw new Stop('undefined');
    const target = reg(w & 0xf);
    set(state, 14, next);
    branchTo(state, target, true);
    return;
  }
  if ((w & 0x0fff0ff0) === 0x016f0f10) {
    if (!v5) throw new Stop('undefined');
    const m = reg(w & 0xf);
    set(state, (w >>> 12) & 0xf, m === null ? null : Math.clz32(m));
    return;
  }
  const top = (w >>> 25) & 7;
  if (top === 5) {
    // B / BL
    const offset = ((w & 0xffffff) << 8) >> 6;
    if (bit(w, 24)) set(state, 14, next);
    state.r[15] = u32(pc + 8 + offset);
    return;
  }
  if (top === 0 && (w & 0x90) === 0x90) {
    armExtraLoadStore(state, ctx, w, pc, reg);
    return;
  }
  if (top === 0 || top === 1) {
    const op = (w >>> 21) & 0xf;
    const s = bit(w, 20) === 1;
    if (!s && op >= 8 && op <= 11) {
      // MRS / MSR and the DSP extensions in the compare space without S.
      if ((w & 0x0fbf0fff) === 0x010f0000) {
        system(state, ctx, [(w >>> 12) & 0xf]); // MRS
        return;
      }
      if ((w & 0x0db0f000) === 0x0120f000) {
        system(state, ctx, []); // MSR
        return;
      }
      throw new Stop('unsupported');
    }
    armDataProcessing(state, w, reg);
    return;
  }
  if (top === 2 || top === 3) {
    if (top === 3 && bit(w, 4)) throw new Stop('undefined');
    armLoadStore(state, ctx, w, reg);
    return;
  }
  if (top === 4) {
    armBlockTransfer(state, ctx, w, reg);
    return;
  }
  if (top === 7 && bit(w, 24)) {
    system(state, ctx, [0, 1, 2, 3, 12, 14]); // SWI
    return;
  }
  // Coprocessor: MRC writes Rd (or the flags when Rd is PC); the rest writes no general register.
  if (top === 7 && bit(w, 4) && bit(w, 20)) {
    const rd = (w >>> 12) & 0xf;
    if (rd === 15) {
      if (!ctx.skip) throw new Stop('unsupported');
      state.flags = { n: null, z: null, c: null, v: null };
      return;
    }
    system(state, ctx, [rd]);
    return;
  }
  if (top === 7 && bit(w, 4)) {
    // MCR: the general register written to the coprocessor is reported; no general register changes.
    if (!ctx.skip) throw new Stop('unsupported');
    ctx.onMcr?.({
      cp: (w >>> 8) & 0xf,
      opc1: (w >>> 21) & 7,
      crn: (w >>> 16) & 0xf,
      crm: w & 0xf,
      opc2: (w >>> 5) & 7,
      value: reg((w >>> 12) & 0xf),
    });
    return;
  }
  if (top === 6 && bit(w, 20)) {
    // LDC may write back its base register.
    system(state, ctx, bit(w, 21) ? [(w >>> 16) & 0xf] : []);
    return;
  }
  system(state, ctx, top === 6 && bit(w, 21) ? [(w >>> 16) & 0xf] : []);
  return;
}

function armDataProcessing(state: EmuState, w: number, reg: (n: number) => Value): void {
  const op = (w >>> 21) & 0xf;
  const s = bit(w, 20) === 1;
  const rn = (w >>> 16) & 0xf;
  const rd = (w >>> 12) & 0xf;
  const byRegister = !bit(w, 25) && bit(w, 4) === 1;
  // A register-specified shift reads PC as the instruction's address + 12.
  const read = (n: number): Value => (n === 15 && byRegister ? u32(state.r[15]! + 8) : reg(n));
  let operand: Shifted;
  let plainMove: number | null = null;
  if (bit(w, 25)) {
    const imm = w & 0xff;
    const rot = ((w >>> 8) & 0xf) * 2;
    const value = rot === 0 ? imm : u32((imm >>> rot) | (imm << (32 - rot)));
    operand = { value, carry: rot === 0 ? state.flags.c : bit(value, 31) === 1 };
  } else {
    const rm = w & 0xf;
    const type = (w >>> 5) & 3;
    if (byRegister) operand = shift(read(rm), type, state.r[(w >>> 8) & 0xf] ?? null, state.flags.c, false);
    else {
      const amount = (w >>> 7) & 0x1f;
      operand = shift(read(rm), type, amount, state.flags.c, true);
      if (type === 0 && amount === 0 && rm !== 15) plainMove = rm;
    }
  }
  const a = op === 0xd || op === 0xf ? 0 : read(rn);
  const r = alu(op, a, operand.value, operand.carry, state.flags);
  const test = op >= 8 && op <= 11;
  if (s) {
    if (rd === 15 && !test) throw new Stop('unsupported'); // exception return
    state.flags = r.flags;
  }
  if (test) return;
  if (rd === 15) branchTo(state, r.value, false);
  else if (op === 0xd && plainMove !== null)
    set(state, rd, r.value, state.prov[plainMove]!, state.provWidth[plainMove]!);
  else set(state, rd, r.value);
}

function armLoadStore(state: EmuState, ctx: Ctx, w: number, reg: (n: number) => Value): void {
  const { mem, v5 } = ctx;
  const pre = bit(w, 24) === 1;
  const up = bit(w, 23) === 1;
  const byte = bit(w, 22) === 1;
  const wb = bit(w, 21) === 1;
  const isLoad = bit(w, 20) === 1;
  const rn = (w >>> 16) & 0xf;
  const rd = (w >>> 12) & 0xf;
  let offset: Value;
  if (!bit(w, 25)) offset = w & 0xfff;
  else offset = shift(reg(w & 0xf), (w >>> 5) & 3, (w >>> 7) & 0x1f, state.flags.c, true).value;
  const base = reg(rn);
  const moved = base === null || offset === null ? null : u32(up ? base + offset : base - offset);
  const address = pre ? moved : base;
  if (!pre && wb) throw new Stop('unsupported'); // LDRT/STRT
  const writeBack = () => {
    if ((pre ? wb : true) && rn !== 15) set(state, rn, moved);
  };
  if (isLoad) {
    const value = byte ? read(mem, address, 1) : loadWord(mem, address);
    writeBack();
    if (rd === 15) branchTo(state, value, v5);
    else if (rn === 15)
      set(state, rd, value); // a literal: a constant, not bytes being copied
    else if (byte) load(state, mem, rd, value, address, 1);
    else if (address !== null && address % 4 === 0) load(state, mem, rd, value, address, 4);
    else set(state, rd, value);
  } else {
    const value = rd === 15 ? u32(state.r[15]! + 8) : state.r[rd]!;
    if (address === null) throw new Stop('unknown-address');
    if (byte) write(mem, address, 1, value === null ? null : value & 0xff, state, rd);
    else write(mem, u32(address & ~3), 4, value, state, rd);
    writeBack();
  }
}

/** UMULL / UMLAL / SMULL / SMLAL: the 64-bit product (plus RdHi:RdLo), exactly; S sets N and Z. */
function armLongMultiply(state: EmuState, w: number, reg: (n: number) => Value): void {
  const hi = (w >>> 16) & 0xf;
  const lo = (w >>> 12) & 0xf;
  const signed = bit(w, 22) === 1;
  const m = reg(w & 0xf);
  const sv = reg((w >>> 8) & 0xf);
  const accHi = bit(w, 21) ? reg(hi) : 0;
  const accLo = bit(w, 21) ? reg(lo) : 0;
  let result: bigint | null = null;
  if (m !== null && sv !== null && accHi !== null && accLo !== null) {
    const as = (v: number) => (signed ? BigInt(v | 0) : BigInt(v >>> 0));
    const acc = (BigInt(accHi >>> 0) << 32n) | BigInt(accLo >>> 0);
    result = BigInt.asUintN(64, as(m) * as(sv) + acc);
  }
  set(state, lo, result === null ? null : Number(result & 0xffffffffn));
  set(state, hi, result === null ? null : Number(result >> 32n));
  if (bit(w, 20)) {
    state.flags = {
      ...state.flags,
      n: result === null ? null : result >> 63n === 1n,
      z: result === null ? null : result === 0n,
    };
  }
}

function armExtraLoadStore(
  state: EmuState,
  ctx: Ctx,
  w: number,
  pc: number,
  reg: (n: number) => Value,
): void {
  const { mem, v5 } = ctx;
  const sh = (w >>> 5) & 3;
  if (sh === 0) {
    // MUL / MLA; the long multiplies and SWP are not modelled.
    if ((w & 0x0fc000f0) === 0x00000090) {
      const rd = (w >>> 16) & 0xf;
      const m = reg(w & 0xf);
      const sv = reg((w >>> 8) & 0xf);
      const acc = bit(w, 21) ? reg((w >>> 12) & 0xf) : 0;
      const value = m === null || sv === null || acc === null ? null : u32(Math.imul(m, sv) + acc);
      set(state, rd, value);
      if (bit(w, 20)) {
        state.flags = {
          ...state.flags,
          n: value === null ? null : bit(value, 31) === 1,
          z: value === null ? null : value === 0,
          c: null,
        };
      }
      return;
    }
    if ((w & 0x0f8000f0) === 0x00800090) {
      armLongMultiply(state, w, reg);
      return;
    }
    if ((w & 0x0fb00ff0) === 0x01000090) {
      // SWP / SWPB: load from [Rn], store Rm there, Rd takes the loaded value.
      const byte = bit(w, 22) === 1;
      const address = reg((w >>> 16) & 0xf);
      if (address === null) throw new Stop('unknown-address');
      const old = byte ? read(mem, address, 1) : loadWord(mem, address);
      const m = reg(w & 0xf);
      if (byte) write(mem, address, 1, m === null ? null : m & 0xff);
      else write(mem, u32(address & ~3), 4, m);
      set(state, (w >>> 12) & 0xf, old);
      return;
    }
    throw new Stop('unsupported');
  }
  const pre = bit(w, 24) === 1;
  const up = bit(w, 23) === 1;
  const immediate = bit(w, 22) === 1;
  const wb = bit(w, 21) === 1;
  const isLoad = bit(w, 20) === 1;
  const rn = (w >>> 16) & 0xf;
  const rd = (w >>> 12) & 0xf;
  const offset = immediate ? ((w >>> 4) & 0xf0) | (w & 0xf) : reg(w & 0xf);
  const base = reg(rn);
  const moved = base === null || offset === null ? null : u32(up ? base + offset : base - offset);
  const address = pre ? moved : base;
  const writeBack = () => {
    if ((pre ? wb : true) && rn !== 15) set(state, rn, moved);
  };
  if (!isLoad && sh !== 1) {
    // LDRD / STRD (ARMv5TE), encoded with L clear.
    if (!v5 || rd % 2 !== 0 || rd === 14) throw new Stop('undefined');
    const second = address === null ? null : u32(address + 4);
    if (sh === 2) {
      load(state, mem, rd, read(mem, address, 4), address, 4);
      load(state, mem, rd + 1, read(mem, second, 4), second, 4);
    } else {
      write(mem, address, 4, state.r[rd]!, state, rd);
      write(mem, second, 4, state.r[rd + 1]!, state, rd + 1);
    }
    writeBack();
    return;
  }
  if (isLoad) {
    let value: Value;
    if (sh === 1) value = read(mem, address, 2);
    else if (sh === 2) {
      const b = read(mem, address, 1);
      value = b === null ? null : u32((b << 24) >> 24);
    } else {
      const h = read(mem, address, 2);
      value = h === null ? null : u32((h << 16) >> 16);
    }
    writeBack();
    if (rd === 15) throw new Stop('unsupported');
    if (sh === 1) load(state, mem, rd, value, address, 2);
    else set(state, rd, value);
  } else {
    const value = rd === 15 ? u32(pc + 12) : state.r[rd]!;
    write(mem, address, 2, value === null ? null : value & 0xffff, state, rd);
    writeBack();
  }
}

function armBlockTransfer(state: EmuState, ctx: Ctx, w: number, reg: (n: number) => Value): void {
  const { mem, v5 } = ctx;
  if (bit(w, 22)) throw new Stop('unsupported'); // user-bank / SPSR forms
  const pre = bit(w, 24) === 1;
  const up = bit(w, 23) === 1;
  const wb = bit(w, 21) === 1;
  const isLoad = bit(w, 20) === 1;
  const rn = (w >>> 16) & 0xf;
  const list = w & 0xffff;
  if (list === 0) throw new Stop('unsupported');
  const count = popcount(list);
  const base = reg(rn);
  if (base === null) throw new Stop('unknown-address');
  const low = u32(up ? base + (pre ? 4 : 0) : base - 4 * count + (pre ? 0 : 4));
  const final = u32(up ? base + 4 * count : base - 4 * count);
  let at = low;
  let pcValue: Value | undefined;
  for (let i = 0; i < 16; i++) {
    if (!bit(list, i)) continue;
    if (isLoad) {
      const value = read(mem, at, 4);
      if (i === 15) pcValue = value;
      else load(state, mem, i, value, at, 4);
    } else {
      write(mem, at, 4, i === 15 ? u32(state.r[15]! + 8) : state.r[i]!, state, i);
    }
    at = u32(at + 4);
  }
  // Writeback: a loaded base keeps the loaded value.
  if (wb && !(isLoad && bit(list, rn))) set(state, rn, final);
  if (pcValue !== undefined) branchTo(state, pcValue, v5);
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x; v; v &= v - 1) n++;
  return n;
}

function thumbStep(state: EmuState, ctx: Ctx): void {
  const { mem, v5 } = ctx;
  const pc = state.r[15]!;
  if (pc % 2 !== 0) throw new Stop('undefined');
  const h = read(mem, pc, 2, true);
  if (h === null) throw new Stop('unsupported');
  const next = u32(pc + 2);
  state.r[15] = next;
  const lo = (n: number): Value => state.r[n]!;
  const setNZ = (value: Value) => {
    state.flags = {
      ...state.flags,
      n: value === null ? null : bit(value, 31) === 1,
      z: value === null ? null : value === 0,
    };
  };
  const top = h >>> 13;
  if (top === 0) {
    const op = (h >>> 11) & 3;
    const rd = h & 7;
    const rs = (h >>> 3) & 7;
    if (op < 3) {
      // LSL/LSR/ASR #imm5 (LSL #0 is a flag-setting move)
      const amount = (h >>> 6) & 0x1f;
      const r = shift(lo(rs), op, amount, state.flags.c, true);
      if (op === 0 && amount === 0) set(state, rd, r.value, state.prov[rs]!, state.provWidth[rs]!);
      else set(state, rd, r.value);
      setNZ(r.value);
      state.flags.c = r.carry;
      return;
    }
    // ADD/SUB register or imm3
    const operand = bit(h, 10) ? (h >>> 6) & 7 : lo((h >>> 6) & 7);
    const r = alu(bit(h, 9) ? 0x2 : 0x4, lo(rs), operand, null, state.flags);
    set(state, rd, r.value);
    state.flags = r.flags;
    return;
  }
  if (top === 1) {
    // MOV/CMP/ADD/SUB imm8
    const op = (h >>> 11) & 3;
    const rd = (h >>> 8) & 7;
    const imm = h & 0xff;
    if (op === 0) {
      set(state, rd, imm);
      setNZ(imm);
      return;
    }
    const r = alu([0xd, 0xa, 0x4, 0x2][op]!, lo(rd), imm, state.flags.c, state.flags);
    state.flags = r.flags;
    if (op !== 1) set(state, rd, r.value);
    return;
  }
  if ((h & 0xfc00) === 0x4000) {
    thumbAlu(state, h, setNZ);
    return;
  }
  if ((h & 0xfc00) === 0x4400) {
    // Hi register operations and BX/BLX.
    const op = (h >>> 8) & 3;
    const rd = (h & 7) | (bit(h, 7) << 3);
    const rm = (h >>> 3) & 0xf;
    const m = rm === 15 ? u32(pc + 4) : state.r[rm]!;
    if (op === 3) {
      if (bit(h, 7)) {
        if (!v5) throw new Stop('undefined');
        set(state, 14, u32(next | 1));
      }
      branchTo(state, rm === 15 ? u32(u32(pc + 4) & ~3) : m, true);
      return;
    }
    const d = rd === 15 ? u32(pc + 4) : state.r[rd]!;
    if (op === 0) {
      const value = d === null || m === null ? null : u32(d + m);
      if (rd === 15) branchTo(state, value, false);
      else set(state, rd, value);
    } else if (op === 1) {
      state.flags = alu(0xa, d, m, null, state.flags).flags;
    } else if (rd === 15) branchTo(state, m, false);
    else set(state, rd, m, rm === 15 ? null : state.prov[rm]!, rm === 15 ? 0 : state.provWidth[rm]!);
    return;
  }
  if ((h & 0xf800) === 0x4800) {
    // LDR Rd, [PC, #imm8*4]
    const address = u32(((pc + 4) & ~3) + (h & 0xff) * 4);
    set(state, (h >>> 8) & 7, read(mem, address, 4)); // a literal: no provenance
    return;
  }
  if ((h & 0xf000) === 0x5000) {
    const ro = lo((h >>> 6) & 7);
    const rb = lo((h >>> 3) & 7);
    const rd = h & 7;
    const address = ro === null || rb === null ? null : u32(rb + ro);
    const v = lo(rd);
    switch ((h >>> 9) & 7) {
      case 0:
        write(mem, address === null ? null : u32(address & ~3), 4, v, state, rd);
        return;
      case 1:
        write(mem, address === null ? null : u32(address & ~1), 2, v === null ? null : v & 0xffff, state, rd);
        return;
      case 2:
        write(mem, address, 1, v === null ? null : v & 0xff, state, rd);
        return;
      case 3: {
        const b = read(mem, address, 1);
        set(state, rd, b === null ? null : u32((b << 24) >> 24));
        return;
      }
      case 4: {
        const value = loadWord(mem, address);
        if (address !== null && address % 4 === 0) load(state, mem, rd, value, address, 4);
        else set(state, rd, value);
        return;
      }
      case 5: {
        const a = address === null ? null : u32(address & ~1);
        load(state, mem, rd, read(mem, a, 2), a, 2);
        return;
      }
      case 6:
        load(state, mem, rd, read(mem, address, 1), address, 1);
        return;
      default: {
        const x = read(mem, address === null ? null : u32(address & ~1), 2);
        set(state, rd, x === null ? null : u32((x << 16) >> 16));
        return;
      }
    }
  }
  if (top === 3) {
    // LDR/STR (B) Rd, [Rb, #imm5]
    const byte = bit(h, 12) === 1;
    const isLoad = bit(h, 11) === 1;
    const imm = ((h >>> 6) & 0x1f) * (byte ? 1 : 4);
    const rb = lo((h >>> 3) & 7);
    const rd = h & 7;
    const address = rb === null ? null : u32(rb + imm);
    if (isLoad) {
      if (byte) load(state, mem, rd, read(mem, address, 1), address, 1);
      else if (address !== null && address % 4 === 0)
        load(state, mem, rd, loadWord(mem, address), address, 4);
      else set(state, rd, loadWord(mem, address));
    } else if (byte) write(mem, address, 1, lo(rd) === null ? null : lo(rd)! & 0xff, state, rd);
    else write(mem, address === null ? null : u32(address & ~3), 4, lo(rd), state, rd);
    return;
  }
  if ((h & 0xf000) === 0x8000) {
    // LDRH/STRH Rd, [Rb, #imm5*2]
    const rb = lo((h >>> 3) & 7);
    const rd = h & 7;
    const address = rb === null ? null : u32(rb + ((h >>> 6) & 0x1f) * 2);
    if (bit(h, 11)) load(state, mem, rd, read(mem, address, 2), address, 2);
    else write(mem, address, 2, lo(rd) === null ? null : lo(rd)! & 0xffff, state, rd);
    return;
  }
  if ((h & 0xf000) === 0x9000) {
    // SP-relative load/store
    const sp = state.r[13]!;
    const address = sp === null ? null : u32(sp + (h & 0xff) * 4);
    const rd = (h >>> 8) & 7;
    if (bit(h, 11)) load(state, mem, rd, loadWord(mem, address), address, 4);
    else write(mem, address === null ? null : u32(address & ~3), 4, lo(rd), state, rd);
    return;
  }
  if ((h & 0xf000) === 0xa000) {
    // ADD Rd, PC|SP, #imm8*4
    const rd = (h >>> 8) & 7;
    const imm = (h & 0xff) * 4;
    if (bit(h, 11)) {
      const sp = state.r[13]!;
      set(state, rd, sp === null ? null : u32(sp + imm));
    } else set(state, rd, u32(((pc + 4) & ~3) + imm));
    return;
  }
  if ((h & 0xff00) === 0xb000) {
    // ADD/SUB SP, #imm7*4
    const sp = state.r[13]!;
    const imm = (h & 0x7f) * 4;
    set(state, 13, sp === null ? null : u32(bit(h, 7) ? sp - imm : sp + imm));
    return;
  }
  if ((h & 0xf600) === 0xb400) {
    // PUSH / POP
    const pop = bit(h, 11) === 1;
    const extra = bit(h, 8) === 1; // LR for PUSH, PC for POP
    const list = h & 0xff;
    const count = popcount(list) + (extra ? 1 : 0);
    const sp = state.r[13]!;
    if (sp === null) throw new Stop('unknown-address');
    if (pop) {
      let at = sp;
      for (let i = 0; i < 8; i++) {
        if (!bit(list, i)) continue;
        load(state, mem, i, read(mem, at, 4), at, 4);
        at = u32(at + 4);
      }
      set(state, 13, u32(sp + 4 * count));
      if (extra) branchTo(state, read(mem, at, 4), v5);
    } else {
      let at = u32(sp - 4 * count);
      set(state, 13, at);
      for (let i = 0; i < 8; i++) {
        if (!bit(list, i)) continue;
        write(mem, at, 4, state.r[i]!, state, i);
        at = u32(at + 4);
      }
      if (extra) write(mem, at, 4, state.r[14]!, state, 14);
    }
    return;
  }
  if ((h & 0xf000) === 0xc000) {
    // LDMIA / STMIA Rb!, {list}
    const rb = (h >>> 8) & 7;
    const list = h & 0xff;
    if (list === 0) throw new Stop('unsupported');
    let at = state.r[rb]!;
    if (at === null) throw new Stop('unknown-address');
    const isLoad = bit(h, 11) === 1;
    const start = at;
    for (let i = 0; i < 8; i++) {
      if (!bit(list, i)) continue;
      if (isLoad) load(state, mem, i, read(mem, at, 4), at, 4);
      else write(mem, at, 4, state.r[i]!, state, i);
      at = u32(at + 4);
    }
    if (!(isLoad && bit(list, rb))) set(state, rb, u32(start + 4 * popcount(list)));
    return;
  }
  if ((h & 0xf000) === 0xd000) {
    const cond = (h >>> 8) & 0xf;
    if (cond === 0xf) {
      system(state, ctx, [0, 1, 2, 3, 12, 14]); // SWI
      return;
    }
    if (cond === 0xe) throw new Stop('undefined');
    if (conditionHolds(cond, state.flags)) state.r[15] = u32(pc + 4 + (((h & 0xff) << 24) >> 23));
    return;
  }
  if ((h & 0xf800) === 0xe000) {
    state.r[15] = u32(pc + 4 + (((h & 0x7ff) << 21) >> 20));
    return;
  }
  if ((h & 0xf800) === 0xf000) {
    // BL/BLX prefix: executed together with its suffix, as one step.
    const suffix = read(mem, next, 2, true);
    if (suffix === null) throw new Stop('unsupported');
    const high = ((h & 0x7ff) << 21) >> 9;
    const target = u32(pc + 4 + high + ((suffix & 0x7ff) << 1));
    if ((suffix & 0xf800) === 0xf800) {
      set(state, 14, u32((pc + 4) | 1));
      state.r[15] = target;
      return;
    }
    if ((suffix & 0xf800) === 0xe800 && v5 && (suffix & 1) === 0) {
      set(state, 14, u32((pc + 4) | 1));
      state.thumb = false;
      state.r[15] = u32(target & ~3);
      return;
    }
    throw new Stop('undefined');
  }
  throw new Stop('undefined');
}

function thumbAlu(state: EmuState, h: number, setNZ: (v: Value) => void): void {
  const op = (h >>> 6) & 0xf;
  const rs = (h >>> 3) & 7;
  const rd = h & 7;
  const d = state.r[rd]!;
  const s = state.r[rs]!;
  const f = state.flags;
  const logical = (value: Value) => {
    set(state, rd, value);
    setNZ(value);
  };
  const shifted = (type: number) => {
    const r = shift(d, type, s, f.c, false);
    set(state, rd, r.value);
    setNZ(r.value);
    state.flags.c = r.carry;
  };
  const arith = (code: number, x: Value, y: Value, write: boolean) => {
    const r = alu(code, x, y, null, f);
    if (write) set(state, rd, r.value);
    state.flags = r.flags;
  };
  switch (op) {
    case 0x0:
      logical(d === null || s === null ? null : u32(d & s));
      return;
    case 0x1:
      logical(d === null || s === null ? null : u32(d ^ s));
      return;
    case 0x2:
      shifted(0);
      return;
    case 0x3:
      shifted(1);
      return;
    case 0x4:
      shifted(2);
      return;
    case 0x5:
      arith(0x5, d, s, true);
      return;
    case 0x6:
      arith(0x6, d, s, true);
      return;
    case 0x7:
      shifted(3);
      return;
    case 0x8:
      setNZ(d === null || s === null ? null : u32(d & s));
      return;
    case 0x9:
      arith(0x3, s, 0, true); // NEG = RSB Rd, Rs, #0
      return;
    case 0xa:
      arith(0xa, d, s, false);
      return;
    case 0xb:
      arith(0xb, d, s, false);
      return;
    case 0xc:
      logical(d === null || s === null ? null : u32(d | s));
      return;
    case 0xd:
      logical(d === null || s === null ? null : u32(Math.imul(d, s)));
      state.flags.c = null; // MUL leaves C UNPREDICTABLE on ARMv4T/v5TE
      return;
    case 0xe:
      logical(d === null || s === null ? null : u32(d & ~s));
      return;
    default:
      logical(s === null ? null : u32(~s));
      return;
  }
}
