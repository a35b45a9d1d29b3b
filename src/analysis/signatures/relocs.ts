// What an ARM ELF relocation does to the bytes it applies to, for a signature: which of them vary from
// one link to another (masked), and how the place names its target (a branch, an address word, a
// PC-relative word). And the few instruction encodings a signature reads without a disassembler: the
// branches whose immediate names another place (B, BL, BLX, Thumb's BL pair) and their targets. Pure.
import type { ArmMode } from '../../arm/types.js';
import { u16, u32 } from '../../formats/le.js';
import type { RefKind } from './types.js';

interface RelocEffect {
  /** Bytes from the place that vary (from its first byte). Zero: nothing changes (R_ARM_NONE, V4BX). */
  bytes: number;
  /** How the place names its target, or null when it names nothing a signature follows. */
  kind: RefKind | null;
  /** Code mode of the instruction (calls), for reading the addend. */
  mode: ArmMode | null;
}

const CALL_ARM: RelocEffect = { bytes: 4, kind: 'call', mode: 'arm' };
const CALL_THUMB: RelocEffect = { bytes: 4, kind: 'call', mode: 'thumb' };
const WORD: RelocEffect = { bytes: 4, kind: 'word', mode: null };
const PCREL: RelocEffect = { bytes: 4, kind: 'pcrel', mode: null };
const NOTHING: RelocEffect = { bytes: 0, kind: null, mode: null };
const opaque = (bytes: number): RelocEffect => ({ bytes, kind: null, mode: null });

/**
 * The effect of each relocation type (ELF for the ARM Architecture). A call's whole instruction is
 * masked: the linker turns BL into BLX (and back) as the target's mode requires. Types not listed vary
 * their whole word, naming nothing followed.
 */
const EFFECTS: Readonly<Record<number, RelocEffect>> = {
  0: NOTHING, // R_ARM_NONE
  1: CALL_ARM, // R_ARM_PC24
  2: WORD, // R_ARM_ABS32
  3: PCREL, // R_ARM_REL32
  4: opaque(2), // R_ARM_LDR_PC_G0
  5: opaque(2), // R_ARM_ABS16
  6: opaque(2), // R_ARM_ABS12
  7: opaque(2), // R_ARM_THM_ABS5
  8: opaque(1), // R_ARM_ABS8
  10: CALL_THUMB, // R_ARM_THM_CALL
  11: opaque(1), // R_ARM_THM_PC8
  28: CALL_ARM, // R_ARM_CALL
  29: CALL_ARM, // R_ARM_JUMP24
  30: CALL_THUMB, // R_ARM_THM_JUMP24
  38: WORD, // R_ARM_TARGET1 (an absolute word on this platform)
  40: NOTHING, // R_ARM_V4BX (marks a BX for an optional rewrite the toolchain did not ask for)
  42: opaque(4), // R_ARM_PREL31 (unwinding tables)
  102: opaque(2), // R_ARM_THM_JUMP11
  103: opaque(1), // R_ARM_THM_JUMP8
};

export function relocEffect(type: number): RelocEffect {
  return EFFECTS[type] ?? opaque(4);
}

/** A branch that names a place by its immediate. */
interface DirectBranch {
  /** Bytes of the instruction (ARM 4; Thumb 2, or 4 for the BL/BLX pair). */
  size: number;
  /** With link (BL, BLX). */
  link: boolean;
  /** Conditional (never for calls here: a conditional BL is still a call). */
  conditional: boolean;
  target: number;
  /** The mode at the target (BLX switches). */
  targetMode: ArmMode;
}

const sign = (v: number, bits: number) => (v << (32 - bits)) >> (32 - bits);

/** The direct branch at `o` of `bytes` (run at `address`), or null. */
export function directBranchAt(
  bytes: Uint8Array,
  o: number,
  address: number,
  mode: ArmMode,
): DirectBranch | null {
  if (mode === 'arm') {
    if (o + 4 > bytes.length) return null;
    const w = u32(bytes, o);
    const cond = w >>> 28;
    if ((w & 0x0e000000) !== 0x0a000000) return null;
    const offset = sign(w & 0xffffff, 24) * 4;
    if (cond === 0xf) {
      // BLX label: H bit adds a halfword; always Thumb at the target.
      const target = (address + 8 + offset + ((w >>> 24) & 1) * 2) >>> 0;
      return { size: 4, link: true, conditional: false, target, targetMode: 'thumb' };
    }
    const link = (w & 0x01000000) !== 0;
    return {
      size: 4,
      link,
      conditional: cond !== 0xe,
      target: (address + 8 + offset) >>> 0,
      targetMode: 'arm',
    };
  }
  if (o + 2 > bytes.length) return null;
  const h = u16(bytes, o);
  if ((h & 0xf000) === 0xd000 && (h & 0x0e00) !== 0x0e00)
    return {
      size: 2,
      link: false,
      conditional: true,
      target: (address + 4 + sign(h & 0xff, 8) * 2) >>> 0,
      targetMode: 'thumb',
    };
  if ((h & 0xf800) === 0xe000)
    return {
      size: 2,
      link: false,
      conditional: false,
      target: (address + 4 + sign(h & 0x7ff, 11) * 2) >>> 0,
      targetMode: 'thumb',
    };
  if ((h & 0xf800) === 0xf000 && o + 4 <= bytes.length) {
    const l = u16(bytes, o + 2);
    const blx = (l & 0xf800) === 0xe800;
    if ((l & 0xf800) !== 0xf800 && !blx) return null;
    const offset = (sign(h & 0x7ff, 11) << 12) | ((l & 0x7ff) << 1);
    let target = (address + 4 + offset) >>> 0;
    if (blx) target = (target & ~3) >>> 0;
    return { size: 4, link: true, conditional: false, target, targetMode: blx ? 'arm' : 'thumb' };
  }
  return null;
}

/**
 * The addend a REL call relocation keeps in its instruction: the branch offset from the place plus the
 * pipeline's bias, so that `symbol + addend` is where the branch goes (0 for a call to the symbol).
 */
export function callAddend(bytes: Uint8Array, o: number, mode: ArmMode): number {
  const b = directBranchAt(bytes, o, 0, mode);
  return b === null ? 0 : b.target | 0;
}

/** The address of the word a PC-relative LDR at `o` (run at `address`) loads, or null. */
export function literalLoadAt(bytes: Uint8Array, o: number, address: number, mode: ArmMode): number | null {
  if (mode === 'arm') {
    if (o + 4 > bytes.length) return null;
    const w = u32(bytes, o);
    // LDR Rt, [PC, #+/-imm12] (P=1, W=0, B=0, L=1, Rn=PC).
    if ((w & 0x0f7f0000) !== 0x051f0000 || w >>> 28 === 0xf) return null;
    const imm = w & 0xfff;
    return (address + 8 + ((w & 0x00800000) !== 0 ? imm : -imm)) >>> 0;
  }
  if (o + 2 > bytes.length) return null;
  const h = u16(bytes, o);
  if ((h & 0xf800) !== 0x4800) return null;
  // Thumb LDR Rt, [PC, #imm8*4]: from the word-aligned PC.
  return (((address + 4) & ~3) + (h & 0xff) * 4) >>> 0;
}

/**
 * Whether `bytes` (code in `mode`) start as a stub a linker writes between caller and callee: Thumb
 * `bx pc` then `nop` or `b .-2` (on to ARM code), ARM `ldr ip, [pc]; bx ip` or `ldr pc, [pc, #-4]`
 * (a word to go to).
 */
export function isLinkerStub(bytes: Uint8Array, mode: ArmMode): boolean {
  if (mode === 'thumb') {
    // bx pc, then nop or a branch back to it (never run: the bx leaves for ARM).
    const w0 = bytes.length >= 4 ? u32(bytes, 0) : 0;
    return w0 === 0x46c04778 || w0 === 0xe7fd4778;
  }
  if (bytes.length < 8) return false;
  const w0 = u32(bytes, 0);
  return (w0 === 0xe59fc000 && u32(bytes, 4) === 0xe12fff1c) || w0 === 0xe51ff004;
}

/**
 * The mode of the instruction at `at` of a function whose bytes begin `bytes`: ARM after the `bx pc`
 * of a Thumb linker stub (its branch on is ARM code), else the function's own.
 */
export function refBranchMode(bytes: Uint8Array, mode: ArmMode, at: number): ArmMode {
  return mode === 'thumb' && at >= 4 && bytes.length >= 2 && u16(bytes, 0) === 0x4778 ? 'arm' : mode;
}

/** Where a linker stub goes: the field that says it (a branch or an address word) and its target. */
interface StubReach {
  /** Offset of the field in the stub. */
  at: number;
  kind: 'call' | 'word';
  /** The address it goes to (a word keeps its Thumb bit). */
  target: number;
}

/**
 * Where the linker stub at `o` of `bytes` (at `address`, isLinkerStub) goes: after a Thumb stub's
 * `bx pc; nop`, an ARM `b` or `ldr pc, [pc, #-4]; .word x`; an ARM stub's `ldr ip, [pc]; bx ip;
 * .word x` or `ldr pc, [pc, #-4]; .word x`. Null when the bytes end first or hold another form.
 */
export function stubReach(bytes: Uint8Array, o: number, address: number, mode: ArmMode): StubReach | null {
  const arm = mode === 'thumb' ? 4 : 0;
  if (o + arm + 4 > bytes.length) return null;
  const branch = directBranchAt(bytes, o + arm, address + arm, 'arm');
  if (branch !== null) {
    if (branch.link || branch.conditional) return null;
    return { at: arm, kind: 'call', target: branch.target };
  }
  const at = arm + (u32(bytes, o + arm) === 0xe51ff004 ? 4 : 8);
  if (o + at + 4 > bytes.length) return null;
  return { at, kind: 'word', target: u32(bytes, o + at) };
}
