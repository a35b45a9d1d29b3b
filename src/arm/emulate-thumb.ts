// The interpreter's Thumb state (see emulate.ts): one 16-bit instruction per step (a BL/BLX pair
// as one), dispatched by format to a handler each: shifts and three-operand add/subtract, 8-bit
// immediates, the ALU operations, high registers and BX/BLX, loads and stores (literal, register,
// immediate, halfword, SP-relative), address and SP arithmetic, PUSH/POP, LDMIA/STMIA, branches.

import { branchTo, load, loadWord, popcount, read, set, system, write } from './emulate-access.js';
import { alu, conditionHolds, shift } from './emulate-alu.js';
import { bit, type Ctx, type EmuState, Stop, u32, type Value } from './emulate-state.js';

/** One Thumb format: the bits that identify it, their value, and its handler. */
type ThumbFormat = [
  mask: number,
  match: number,
  run: (state: EmuState, ctx: Ctx, h: number, pc: number) => void,
];

/** Low register `n` (a plain function: a closure made per step costs the cold interpreter). */
function lo(state: EmuState, n: number): Value {
  return state.r[n]!;
}

/** N and Z from a result; C and V kept (the state's flags object is its own: changed in place). */
function setNZ(state: EmuState, value: Value): void {
  const f = state.flags;
  f.n = value === null ? null : bit(value, 31) === 1;
  f.z = value === null ? null : value === 0;
}

/** Runs the Thumb instruction at the PC (a BL/BLX pair as one step); the PC is moved on first. */
export function thumbStep(state: EmuState, ctx: Ctx): void {
  const pc = state.r[15]!;
  if (pc % 2 !== 0) throw new Stop('undefined');
  const h = read(ctx.mem, pc, 2, true);
  if (h === null) throw new Stop('unsupported');
  state.r[15] = u32(pc + 2);
  const run = BY_TOP_BYTE[h >>> 8];
  if (run === undefined) throw new Stop('undefined');
  run(state, ctx, h, pc);
}

/** LSL/LSR/ASR by an immediate; ADD/SUB of a register or a 3-bit immediate. */
function thumbShiftAddSub(state: EmuState, _ctx: Ctx, h: number): void {
  const op = (h >>> 11) & 3;
  const rd = h & 7;
  const rs = (h >>> 3) & 7;
  if (op < 3) {
    // LSL/LSR/ASR #imm5 (LSL #0 is a flag-setting move)
    const amount = (h >>> 6) & 0x1f;
    const r = shift(lo(state, rs), op, amount, state.flags.c, true);
    if (op === 0 && amount === 0) set(state, rd, r.value, state.prov[rs]!, state.provWidth[rs]!);
    else set(state, rd, r.value);
    setNZ(state, r.value);
    state.flags.c = r.carry;
    return;
  }
  // ADD/SUB register or imm3
  const operand = bit(h, 10) ? (h >>> 6) & 7 : lo(state, (h >>> 6) & 7);
  const r = alu(bit(h, 9) ? 0x2 : 0x4, lo(state, rs), operand, null, state.flags);
  set(state, rd, r.value);
  state.flags = r.flags;
}

/** MOV/CMP/ADD/SUB imm8 */
function thumbImmediate(state: EmuState, _ctx: Ctx, h: number): void {
  const op = (h >>> 11) & 3;
  const rd = (h >>> 8) & 7;
  const imm = h & 0xff;
  if (op === 0) {
    set(state, rd, imm);
    setNZ(state, imm);
    return;
  }
  const r = alu([0xd, 0xa, 0x4, 0x2][op]!, lo(state, rd), imm, state.flags.c, state.flags);
  state.flags = r.flags;
  if (op !== 1) set(state, rd, r.value);
}

/** Hi register operations and BX/BLX. */
function thumbHighRegisters(state: EmuState, ctx: Ctx, h: number, pc: number): void {
  const { v5 } = ctx;
  const next = u32(pc + 2);
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
}

/** LDR Rd, [PC, #imm8*4] */
function thumbLiteralLoad(state: EmuState, ctx: Ctx, h: number, pc: number): void {
  const { mem } = ctx;
  const address = u32(((pc + 4) & ~3) + (h & 0xff) * 4);
  set(state, (h >>> 8) & 7, read(mem, address, 4)); // a literal: no provenance
}

/** Loads and stores with a register offset: STR/STRH/STRB, LDRSB, LDR/LDRH/LDRB, LDRSH. */
function thumbRegisterOffset(state: EmuState, ctx: Ctx, h: number): void {
  const { mem } = ctx;
  const ro = lo(state, (h >>> 6) & 7);
  const rb = lo(state, (h >>> 3) & 7);
  const rd = h & 7;
  const address = ro === null || rb === null ? null : u32(rb + ro);
  const v = lo(state, rd);
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

/** LDR/STR (B) Rd, [Rb, #imm5] */
function thumbImmediateOffset(state: EmuState, ctx: Ctx, h: number): void {
  const { mem } = ctx;
  const byte = bit(h, 12) === 1;
  const isLoad = bit(h, 11) === 1;
  const imm = ((h >>> 6) & 0x1f) * (byte ? 1 : 4);
  const rb = lo(state, (h >>> 3) & 7);
  const rd = h & 7;
  const address = rb === null ? null : u32(rb + imm);
  if (isLoad) {
    if (byte) load(state, mem, rd, read(mem, address, 1), address, 1);
    else if (address !== null && address % 4 === 0) load(state, mem, rd, loadWord(mem, address), address, 4);
    else set(state, rd, loadWord(mem, address));
  } else if (byte) write(mem, address, 1, lo(state, rd) === null ? null : lo(state, rd)! & 0xff, state, rd);
  else write(mem, address === null ? null : u32(address & ~3), 4, lo(state, rd), state, rd);
}

/** LDRH/STRH Rd, [Rb, #imm5*2] */
function thumbHalfwordOffset(state: EmuState, ctx: Ctx, h: number): void {
  const { mem } = ctx;
  const rb = lo(state, (h >>> 3) & 7);
  const rd = h & 7;
  const address = rb === null ? null : u32(rb + ((h >>> 6) & 0x1f) * 2);
  if (bit(h, 11)) load(state, mem, rd, read(mem, address, 2), address, 2);
  else write(mem, address, 2, lo(state, rd) === null ? null : lo(state, rd)! & 0xffff, state, rd);
}

/** SP-relative load/store */
function thumbSpRelative(state: EmuState, ctx: Ctx, h: number): void {
  const { mem } = ctx;
  const sp = state.r[13]!;
  const address = sp === null ? null : u32(sp + (h & 0xff) * 4);
  const rd = (h >>> 8) & 7;
  if (bit(h, 11)) load(state, mem, rd, loadWord(mem, address), address, 4);
  else write(mem, address === null ? null : u32(address & ~3), 4, lo(state, rd), state, rd);
}

/** ADD Rd, PC|SP, #imm8*4 */
function thumbAddress(state: EmuState, _ctx: Ctx, h: number, pc: number): void {
  const rd = (h >>> 8) & 7;
  const imm = (h & 0xff) * 4;
  if (bit(h, 11)) {
    const sp = state.r[13]!;
    set(state, rd, sp === null ? null : u32(sp + imm));
  } else set(state, rd, u32(((pc + 4) & ~3) + imm));
}

/** ADD/SUB SP, #imm7*4 */
function thumbAdjustSp(state: EmuState, _ctx: Ctx, h: number): void {
  const sp = state.r[13]!;
  const imm = (h & 0x7f) * 4;
  set(state, 13, sp === null ? null : u32(bit(h, 7) ? sp - imm : sp + imm));
}

/** PUSH / POP */
function thumbPushPop(state: EmuState, ctx: Ctx, h: number): void {
  const { mem, v5 } = ctx;
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
}

/** LDMIA / STMIA Rb!, {list} */
function thumbMultiple(state: EmuState, ctx: Ctx, h: number): void {
  const { mem } = ctx;
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
}

/** B<cond> (and SWI in its space). */
function thumbConditionalBranch(state: EmuState, ctx: Ctx, h: number, pc: number): void {
  const cond = (h >>> 8) & 0xf;
  if (cond === 0xf) {
    system(state, ctx, [0, 1, 2, 3, 12, 14]); // SWI
    return;
  }
  if (cond === 0xe) throw new Stop('undefined');
  if (conditionHolds(cond, state.flags)) state.r[15] = u32(pc + 4 + (((h & 0xff) << 24) >> 23));
}

/** B: the unconditional 11-bit branch. */
function thumbBranch(state: EmuState, _ctx: Ctx, h: number, pc: number): void {
  state.r[15] = u32(pc + 4 + (((h & 0x7ff) << 21) >> 20));
}

/** BL/BLX prefix: executed together with its suffix, as one step. */
function thumbLongBranch(state: EmuState, ctx: Ctx, h: number, pc: number): void {
  const { mem, v5 } = ctx;
  const next = u32(pc + 2);
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

/** thumbAlu's logical operations: Rd and N, Z. */
function aluLogical(state: EmuState, rd: number, value: Value): void {
  set(state, rd, value);
  setNZ(state, value);
}

/** thumbAlu's shifts by a register: Rd, N, Z and C. */
function aluShifted(state: EmuState, rd: number, d: Value, s: Value, type: number): void {
  const r = shift(d, type, s, state.flags.c, false);
  set(state, rd, r.value);
  setNZ(state, r.value);
  state.flags.c = r.carry;
}

/** thumbAlu's arithmetic and compares: the flags, and Rd when `write`. */
function aluArith(state: EmuState, rd: number, code: number, x: Value, y: Value, write: boolean): void {
  const r = alu(code, x, y, null, state.flags);
  if (write) set(state, rd, r.value);
  state.flags = r.flags;
}

/** The ALU operations on low registers. */
function thumbAlu(state: EmuState, _ctx: Ctx, h: number): void {
  const op = (h >>> 6) & 0xf;
  const rs = (h >>> 3) & 7;
  const rd = h & 7;
  const d = state.r[rd]!;
  const s = state.r[rs]!;
  switch (op) {
    case 0x0:
      aluLogical(state, rd, d === null || s === null ? null : u32(d & s));
      return;
    case 0x1:
      aluLogical(state, rd, d === null || s === null ? null : u32(d ^ s));
      return;
    case 0x2:
      aluShifted(state, rd, d, s, 0);
      return;
    case 0x3:
      aluShifted(state, rd, d, s, 1);
      return;
    case 0x4:
      aluShifted(state, rd, d, s, 2);
      return;
    case 0x5:
      aluArith(state, rd, 0x5, d, s, true);
      return;
    case 0x6:
      aluArith(state, rd, 0x6, d, s, true);
      return;
    case 0x7:
      aluShifted(state, rd, d, s, 3);
      return;
    case 0x8:
      setNZ(state, d === null || s === null ? null : u32(d & s));
      return;
    case 0x9:
      aluArith(state, rd, 0x3, s, 0, true); // NEG = RSB Rd, Rs, #0
      return;
    case 0xa:
      aluArith(state, rd, 0xa, d, s, false);
      return;
    case 0xb:
      aluArith(state, rd, 0xb, d, s, false);
      return;
    case 0xc:
      aluLogical(state, rd, d === null || s === null ? null : u32(d | s));
      return;
    case 0xd:
      aluLogical(state, rd, d === null || s === null ? null : u32(Math.imul(d, s)));
      state.flags.c = null; // MUL leaves C UNPREDICTABLE on ARMv4T/v5TE
      return;
    case 0xe:
      aluLogical(state, rd, d === null || s === null ? null : u32(d & ~s));
      return;
    default:
      aluLogical(state, rd, s === null ? null : u32(~s));
      return;
  }
}

/** The formats in the order they are tried: the first whose bits match runs. */
const FORMATS: ThumbFormat[] = [
  [0xe000, 0x0000, thumbShiftAddSub],
  [0xe000, 0x2000, thumbImmediate],
  [0xfc00, 0x4000, thumbAlu],
  [0xfc00, 0x4400, thumbHighRegisters],
  [0xf800, 0x4800, thumbLiteralLoad],
  [0xf000, 0x5000, thumbRegisterOffset],
  [0xe000, 0x6000, thumbImmediateOffset],
  [0xf000, 0x8000, thumbHalfwordOffset],
  [0xf000, 0x9000, thumbSpRelative],
  [0xf000, 0xa000, thumbAddress],
  [0xff00, 0xb000, thumbAdjustSp],
  [0xf600, 0xb400, thumbPushPop],
  [0xf000, 0xc000, thumbMultiple],
  [0xf000, 0xd000, thumbConditionalBranch],
  [0xf800, 0xe000, thumbBranch],
  [0xf800, 0xf000, thumbLongBranch],
];

/**
 * The handler of each top byte of an instruction (every format's bits lie in its top byte): the first
 * format that matches, as FORMATS orders them; undefined for none. One lookup a step, nothing made.
 */
const BY_TOP_BYTE: (ThumbFormat[2] | undefined)[] = Array.from(
  { length: 256 },
  (_, top) => FORMATS.find(([mask, match]) => ((top << 8) & mask) === match)?.[2],
);
