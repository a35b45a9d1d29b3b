// Breakpoint conditions, evaluated by the server at each stop (the stub has no conditions of its own):
// register and memory comparisons, all of which must hold, and a count of matching hits to skip.
// Pure: the caller supplies the registers and a bounded memory reader.
import { ReMcpError } from '../core/errors.js';
import { formatAddress } from '../core/vocabulary.js';
import { int, uint } from '../formats/le.js';
import { CORE_REGISTERS, type DecodedRegisters } from './rsp/arm-registers.js';

export const CONDITION_LIMITS = {
  comparisons: { max: 8 },
  skipHits: { default: 0, min: 0, max: 1_000_000 },
  /** Silent resumes of one conditional continue while conditions do not hold. */
  silentResumes: { default: 1_000, min: 0, max: 100_000 },
} as const;

/** What a condition may name: the core registers, then the CPSR. */
export const REGISTER_NAMES = [...CORE_REGISTERS, 'cpsr'] as const;
type RegisterName = (typeof REGISTER_NAMES)[number];

export const COMPARE_OPS = ['eq', 'ne', 'lt', 'le', 'gt', 'ge'] as const;
type CompareOp = (typeof COMPARE_OPS)[number];

interface RegisterComparison {
  register: RegisterName;
  op: CompareOp;
  value: number;
  /** Optional mask applied to the register first (e.g. 0x1f for the CPSR mode). */
  mask: number;
}

interface MemoryComparison {
  address: number;
  size: 1 | 2 | 4;
  signed: boolean;
  op: CompareOp;
  value: number;
}

export interface BreakCondition {
  registers: RegisterComparison[];
  memory: MemoryComparison[];
  /** Hits where the comparisons hold that are passed over before one stops. */
  skipHits: number;
}

/** Per-breakpoint evaluation record, kept beside the breakpoint for the generation. */
export interface ConditionState {
  condition: BreakCondition;
  /** Hits where every comparison held (skipped ones included). */
  matchedHits: number;
}

export function validateCondition(c: BreakCondition): BreakCondition {
  const n = c.registers.length + c.memory.length;
  if (n > CONDITION_LIMITS.comparisons.max) {
    throw new ReMcpError(
      'limit-exceeded',
      `at most ${CONDITION_LIMITS.comparisons.max} comparisons per condition (got ${n})`,
    );
  }
  if (n === 0 && c.skipHits === 0) {
    throw new ReMcpError('invalid-argument', 'a condition needs a comparison or skipHits > 0 (or clear it)');
  }
  for (const m of c.memory) {
    if (m.address % m.size !== 0) {
      throw new ReMcpError(
        'invalid-argument',
        `memory comparison at ${formatAddress(m.address)} is not ${m.size}-byte aligned`,
      );
    }
    const lo = m.signed ? -(2 ** (8 * m.size - 1)) : 0;
    const hi = m.signed ? 2 ** (8 * m.size - 1) - 1 : 2 ** (8 * m.size) - 1;
    if (m.value < lo || m.value > hi) {
      throw new ReMcpError(
        'invalid-argument',
        `value ${m.value} does not fit a ${m.signed ? 'signed' : 'unsigned'} ${8 * m.size}-bit comparison`,
      );
    }
  }
  return c;
}

function registerValue(regs: DecodedRegisters, name: RegisterName): number {
  switch (name) {
    case 'sp':
      return regs.r[13]!;
    case 'lr':
      return regs.r[14]!;
    case 'pc':
      return regs.r[15]!;
    case 'cpsr':
      return regs.cpsr;
    default:
      return regs.r[Number(name.slice(1))]!;
  }
}

export function compare(a: number, op: CompareOp, b: number): boolean {
  switch (op) {
    case 'eq':
      return a === b;
    case 'ne':
      return a !== b;
    case 'lt':
      return a < b;
    case 'le':
      return a <= b;
    case 'gt':
      return a > b;
    case 'ge':
      return a >= b;
  }
}

export function decodeValue(bytes: Uint8Array, size: 1 | 2 | 4, signed: boolean): number {
  return signed ? int(bytes, 0, size) : uint(bytes, 0, size);
}

/** True when every comparison holds (registers compared unsigned, after their mask). */
export async function conditionHolds(
  c: BreakCondition,
  regs: DecodedRegisters,
  read: (address: number, length: number) => Promise<Uint8Array>,
): Promise<boolean> {
  for (const r of c.registers) {
    const v = (registerValue(regs, r.register) & r.mask) >>> 0;
    if (!compare(v, r.op, r.value >>> 0)) return false;
  }
  for (const m of c.memory) {
    const v = decodeValue(await read(m.address, m.size), m.size, m.signed);
    if (!compare(v, m.op, m.value)) return false;
  }
  return true;
}

export function describeCondition(c: BreakCondition): string {
  const parts = [
    ...c.registers.map(
      (r) =>
        `${r.register}${r.mask !== 0xffff_ffff ? `&${formatAddress(r.mask)}` : ''} ${r.op} ${formatAddress(r.value >>> 0)}`,
    ),
    ...c.memory.map(
      (m) => `[${formatAddress(m.address)}]:${m.signed ? 's' : 'u'}${8 * m.size} ${m.op} ${m.value}`,
    ),
  ];
  if (c.skipHits > 0) parts.push(`skip ${c.skipHits}`);
  return parts.join(' && ');
}
