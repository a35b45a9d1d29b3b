// The interpreter's ARM state (see emulate.ts): one 32-bit instruction per step, its condition
// checked (or, in 'join' mode, run as both outcomes at once), then decoded by class: branches and
// interworking, data processing, single and extra loads and stores, multiplies, swaps, block
// transfers, and the status-register, coprocessor and SWI instructions the system policy decides.

import { branchTo, load, loadWord, popcount, read, set, system, write } from './emulate-access.js';
import { alu, conditionHolds, type Shifted, shift } from './emulate-alu.js';
import { bit, type Ctx, type EmuState, Stop, u32, type Value } from './emulate-state.js';

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

/** Register `n` as an instruction at `pc` reads it (PC: its address + 8). A plain function: nothing made a step. */
function regAt(state: EmuState, pc: number, n: number): Value {
  return n === 15 ? u32(pc + 8) : state.r[n]!;
}

/** A data-processing operand register: a register-specified shift reads PC as the address + 12. */
function operandReg(state: EmuState, pc: number, byRegister: boolean, n: number): Value {
  return n === 15 && byRegister ? u32(state.r[15]! + 8) : regAt(state, pc, n);
}

export function armStep(state: EmuState, ctx: Ctx): void {
  const { mem, v5 } = ctx;
  const pc = state.r[15]!;
  if (pc % 4 !== 0) throw new Stop('undefined');
  const w = read(mem, pc, 4, true);
  if (w === null) throw new Stop('unsupported');
  const cond = w >>> 28;
  const next = u32(pc + 4);
  // Register reads see PC as the instruction's address + 8.
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
    joinStep(state, ctx, pc, () => armExecute(state, ctx, w, pc, next));
    return;
  }
  if (holds) armExecute(state, ctx, w, pc, next);
}

/** An ARM instruction whose condition holds (or is joined): everything after the condition check. */
function armExecute(state: EmuState, ctx: Ctx, w: number, pc: number, next: number) {
  const { v5 } = ctx;
  // BX / BLX register / CLZ.
  if ((w & 0x0ffffff0) === 0x012fff10) {
    branchTo(state, regAt(state, pc, w & 0xf), true);
    return;
  }
  if ((w & 0x0ffffff0) === 0x012fff30) {
    if (!v5) throw new Stop('undefined');
    const target = regAt(state, pc, w & 0xf);
    set(state, 14, next);
    branchTo(state, target, true);
    return;
  }
  if ((w & 0x0fff0ff0) === 0x016f0f10) {
    if (!v5) throw new Stop('undefined');
    const m = regAt(state, pc, w & 0xf);
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
    armExtraLoadStore(state, ctx, w, pc);
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
    armDataProcessing(state, w, pc);
    return;
  }
  if (top === 2 || top === 3) {
    if (top === 3 && bit(w, 4)) throw new Stop('undefined');
    armLoadStore(state, ctx, w, pc);
    return;
  }
  if (top === 4) {
    armBlockTransfer(state, ctx, w, pc);
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
      value: regAt(state, pc, (w >>> 12) & 0xf),
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

function armDataProcessing(state: EmuState, w: number, pc: number): void {
  const op = (w >>> 21) & 0xf;
  const s = bit(w, 20) === 1;
  const rn = (w >>> 16) & 0xf;
  const rd = (w >>> 12) & 0xf;
  const byRegister = !bit(w, 25) && bit(w, 4) === 1;
  // A register-specified shift reads PC as the instruction's address + 12.
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
    if (byRegister)
      operand = shift(
        operandReg(state, pc, byRegister, rm),
        type,
        state.r[(w >>> 8) & 0xf] ?? null,
        state.flags.c,
        false,
      );
    else {
      const amount = (w >>> 7) & 0x1f;
      operand = shift(operandReg(state, pc, byRegister, rm), type, amount, state.flags.c, true);
      if (type === 0 && amount === 0 && rm !== 15) plainMove = rm;
    }
  }
  const a = op === 0xd || op === 0xf ? 0 : operandReg(state, pc, byRegister, rn);
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

function armLoadStore(state: EmuState, ctx: Ctx, w: number, pc: number): void {
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
  else offset = shift(regAt(state, pc, w & 0xf), (w >>> 5) & 3, (w >>> 7) & 0x1f, state.flags.c, true).value;
  const base = regAt(state, pc, rn);
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
function armLongMultiply(state: EmuState, w: number, pc: number): void {
  const hi = (w >>> 16) & 0xf;
  const lo = (w >>> 12) & 0xf;
  const signed = bit(w, 22) === 1;
  const m = regAt(state, pc, w & 0xf);
  const sv = regAt(state, pc, (w >>> 8) & 0xf);
  const accHi = bit(w, 21) ? regAt(state, pc, hi) : 0;
  const accLo = bit(w, 21) ? regAt(state, pc, lo) : 0;
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

function armExtraLoadStore(state: EmuState, ctx: Ctx, w: number, pc: number): void {
  const { mem, v5 } = ctx;
  const sh = (w >>> 5) & 3;
  if (sh === 0) {
    // MUL / MLA; the long multiplies and SWP are not modelled.
    if ((w & 0x0fc000f0) === 0x00000090) {
      const rd = (w >>> 16) & 0xf;
      const m = regAt(state, pc, w & 0xf);
      const sv = regAt(state, pc, (w >>> 8) & 0xf);
      const acc = bit(w, 21) ? regAt(state, pc, (w >>> 12) & 0xf) : 0;
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
      armLongMultiply(state, w, pc);
      return;
    }
    if ((w & 0x0fb00ff0) === 0x01000090) {
      // SWP / SWPB: load from [Rn], store Rm there, Rd takes the loaded value.
      const byte = bit(w, 22) === 1;
      const address = regAt(state, pc, (w >>> 16) & 0xf);
      if (address === null) throw new Stop('unknown-address');
      const old = byte ? read(mem, address, 1) : loadWord(mem, address);
      const m = regAt(state, pc, w & 0xf);
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
  const offset = immediate ? ((w >>> 4) & 0xf0) | (w & 0xf) : regAt(state, pc, w & 0xf);
  const base = regAt(state, pc, rn);
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

function armBlockTransfer(state: EmuState, ctx: Ctx, w: number, pc: number): void {
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
  const base = regAt(state, pc, rn);
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
