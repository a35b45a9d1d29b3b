// The interpreter's arithmetic (see emulate.ts): the condition codes over flags that may be unknown,
// the barrel shifter and the sixteen data-processing operations with their N/Z/C/V results.
import { bit, type EmuFlags, Stop, u32, type Value } from './emulate-state.js';

/** A flag a condition needs: its value, or the run stops (an unknown flag decides nothing). */
function known(x: boolean | null): boolean {
  if (x === null) throw new Stop('unknown-condition');
  return x;
}

/** Whether condition `cond` holds on `f` (run for every conditional instruction: allocates nothing). */
export function conditionHolds(cond: number, f: EmuFlags): boolean {
  switch (cond) {
    case 0x0:
      return known(f.z);
    case 0x1:
      return !known(f.z);
    case 0x2:
      return known(f.c);
    case 0x3:
      return !known(f.c);
    case 0x4:
      return known(f.n);
    case 0x5:
      return !known(f.n);
    case 0x6:
      return known(f.v);
    case 0x7:
      return !known(f.v);
    case 0x8: {
      const c = known(f.c);
      return c && !known(f.z);
    }
    case 0x9:
      // LS: C clear or Z set. A known decisive half suffices.
      if (f.c === false || f.z === true) return true;
      return !known(f.c) || known(f.z);
    case 0xa:
      return known(f.n) === known(f.v);
    case 0xb:
      return known(f.n) !== known(f.v);
    case 0xc: {
      const z = known(f.z);
      return !z && known(f.n) === known(f.v);
    }
    case 0xd: {
      const z = known(f.z);
      return z || known(f.n) !== known(f.v);
    }
    case 0xe:
      return true;
    default:
      throw new Stop('undefined');
  }
}

export interface Shifted {
  value: Value;
  carry: boolean | null;
}

/** The barrel shifter: type 0 LSL, 1 LSR, 2 ASR, 3 ROR (amount 0 with `immediate` = LSR/ASR #32, RRX). */
export function shift(
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

/** A logical operation's result: N and Z from the value, C from the shifter, V kept. */
function logicalResult(value: Value, shifterCarry: boolean | null, v: boolean | null): AluResult {
  return {
    value,
    flags: {
      n: value === null ? null : bit(value, 31) === 1,
      z: value === null ? null : value === 0,
      c: shifterCarry,
      v,
    },
  };
}

/** x + y (or x + NOT y when `subtract`) + carry with its four flags; unknown in, unknown out. */
function arithResult(x: Value, y: Value, carry: number | null, subtract: boolean): AluResult {
  if (x === null || y === null || carry === null)
    return { value: null, flags: { n: null, z: null, c: null, v: null } };
  const yy = subtract ? u32(~y) : y;
  const sum = x + yy + carry;
  const value = u32(sum);
  const c = sum > 0xffffffff;
  const v = (bit(x, 31) === bit(yy, 31) && bit(value, 31) !== bit(x, 31)) as boolean;
  return { value, flags: { n: bit(value, 31) === 1, z: value === 0, c, v } };
}

/** One data-processing operation (opcode 0..15) with its N/Z/C/V results. */
export function alu(op: number, a: Value, b: Value, shifterCarry: boolean | null, f: EmuFlags): AluResult {
  const cin = f.c === null ? null : f.c ? 1 : 0;
  switch (op) {
    case 0x0:
    case 0x8:
      return logicalResult(a === null || b === null ? null : u32(a & b), shifterCarry, f.v);
    case 0x1:
    case 0x9:
      return logicalResult(a === null || b === null ? null : u32(a ^ b), shifterCarry, f.v);
    case 0x2:
    case 0xa:
      return arithResult(a, b, 1, true);
    case 0x3:
      return arithResult(b, a, 1, true);
    case 0x4:
    case 0xb:
      return arithResult(a, b, 0, false);
    case 0x5:
      return arithResult(a, b, cin, false);
    case 0x6:
      return arithResult(a, b, cin, true);
    case 0x7:
      return arithResult(b, a, cin, true);
    case 0xc:
      return logicalResult(a === null || b === null ? null : u32(a | b), shifterCarry, f.v);
    case 0xd:
      return logicalResult(b, shifterCarry, f.v);
    case 0xe:
      return logicalResult(a === null || b === null ? null : u32(a & ~b), shifterCarry, f.v);
    default:
      return logicalResult(b === null ? null : u32(~b), shifterCarry, f.v);
  }
}
