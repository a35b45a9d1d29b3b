// The `constant-register-call` evidence class (a deliberate, narrow extension of the strict proof
// model): inside ONE basic block, `LDR Rn, [PC, #imm]` (a literal-pool load) or `ADR Rn` / `ADD|SUB
// Rn, PC, #imm` defines Rn, no later instruction of the block mentions Rn before the transfer, and
// `BLX Rn`, `BX Rn` or `MOV LR, PC; BX Rn` consumes it. The loaded word comes from the block's own
// canonical code span (file-backed or validated decoded bytes, never BSS). The mode at the target is
// bit 0 of the value, which is what BX/BLX do with it. Pure: no I/O.
import type { CodeSpan } from '../../arm/cfg.js';
import type { ArmMode, DecodedInstruction } from '../../arm/types.js';
import { u32 } from '../../formats/le.js';

export const CONSTANT_CALL_VIAS = ['blx', 'bx', 'mov-lr-pc-bx'] as const;
export type ConstantCallVia = (typeof CONSTANT_CALL_VIAS)[number];

interface ConstantRegisterCall {
  /** Address of the BLX/BX instruction. */
  at: number;
  via: ConstantCallVia;
  register: string;
  /** Address of the defining LDR/ADR/ADD instruction. */
  definedAt: number;
  /** Literal slot the value was loaded from (absent for ADR / ADD|SUB PC). */
  slot?: number;
  /** The raw 32-bit value in the register. */
  value: number;
  target: number;
  targetMode: ArmMode;
  condition?: string;
}

const GENERAL = /^r([0-9]|1[0-2])$|^(sb|sl|fp|ip)$/;

const baseOf = (ins: DecodedInstruction): string =>
  ins.condition && ins.mnemonic.endsWith(ins.condition)
    ? ins.mnemonic.slice(0, -ins.condition.length)
    : ins.mnemonic;

/** True when the operand text names `reg`, or holds a register range that might include it. */
function mentions(operands: string, reg: string): boolean {
  if (new RegExp(`(^|[^a-z0-9])${reg}([^a-z0-9]|$)`).test(operands)) return true;
  return /\{[^}]*-[^}]*\}/.test(operands); // a range in a register list: do not try to expand it
}

/** Reads the little-endian word at `address` from `span`; null when not wholly inside or unaligned. */
export function wordAt(span: CodeSpan, address: number): number | null {
  const o = address - span.start;
  if (address % 4 !== 0 || o < 0 || o + 4 > span.bytes.length) return null;
  return u32(span.bytes, o);
}

/** The constant-register calls of one basic block (its instructions in order, decoded from `span`). */
export function constantRegisterCalls(
  instructions: readonly DecodedInstruction[],
  span: CodeSpan,
): ConstantRegisterCall[] {
  const out: ConstantRegisterCall[] = [];
  for (let i = 0; i < instructions.length; i++) {
    const ins = instructions[i]!;
    const base = baseOf(ins);
    let via: ConstantCallVia;
    if (ins.flow === 'call-indirect' && base === 'blx') via = 'blx';
    else if (ins.flow === 'branch-indirect' && base === 'bx') via = 'bx';
    else continue;
    const reg = ins.operands.trim();
    if (!GENERAL.test(reg)) continue;
    let j = i - 1;
    if (via === 'bx' && j >= 0) {
      const prev = instructions[j]!;
      if (baseOf(prev) === 'mov' && !prev.condition && prev.operands.replace(/\s/g, '') === 'lr,pc') {
        via = 'mov-lr-pc-bx';
        j--;
      }
    }
    for (; j >= 0; j--) {
      const d = instructions[j]!;
      // Any control transfer in between (a call clobbers registers) ends the search.
      if (d.flow !== undefined) break;
      if (!mentions(d.operands, reg)) continue;
      // The first mention going backwards must be the definition itself, unconditional.
      const first = d.operands.split(',')[0]!.trim();
      if (first !== reg || d.condition || !d.pcRelative) break;
      let value: number | null = null;
      let slot: number | undefined;
      if (d.pcRelative.kind === 'literal-pool' && baseOf(d) === 'ldr') {
        slot = d.pcRelative.address;
        value = wordAt(span, slot);
      } else if (d.pcRelative.kind === 'pc-relative-address') value = d.pcRelative.address;
      if (value === null) break;
      const targetMode: ArmMode = (value & 1) === 1 ? 'thumb' : 'arm';
      const call: ConstantRegisterCall = {
        at: ins.address,
        via,
        register: reg,
        definedAt: d.address,
        value,
        target: targetMode === 'thumb' ? value - 1 : value,
        targetMode,
      };
      if (slot !== undefined) call.slot = slot;
      if (ins.condition) call.condition = ins.condition;
      out.push(call);
      break;
    }
  }
  return out;
}
