// The instruction templates of the ARM decoder (decoder.ts): how Capstone's answer for one encoding
// at one address gives the answer at every other address, kept per processor in bounded tables, and
// the families of encodings (direct branches, 16-bit Thumb operand forms) whose one learned member
// answers for all the others. Pure: the decoder asks Capstone, this module derives.
import type { Processor } from '../core/vocabulary.js';
import type { ArmMode, DecodedInstruction } from './types.js';

// Instruction templates. What Capstone and classify() say about an encoding depends on its bytes,
// the mode and the processor, and on its address only through the PC: a direct target and a
// PC-relative address are the address plus a constant (Thumb literal loads, ADR and BLX label use
// Align(PC, 4), so Thumb templates are kept per address bit 1), and operand text that names such an
// address. A template holds the answer at one address and the constant; an answer whose text names
// an address other than through those fields is kept as not portable (Capstone decodes it again
// elsewhere). The derivation is checked against Capstone at many addresses in the tests.

export interface TextAddress {
  field: 'target' | 'pc-relative';
  form: 'hex' | 'capstone';
}

export interface Template {
  /** Where Capstone decoded it. */
  base: number;
  size: number;
  refusal: 'architecture' | 'undecodable' | null;
  ins: DecodedInstruction | null;
  /** The operand text ends in the target or PC-relative address, as an immediate. */
  textAddress: TextAddress | null;
  /** Whether the answer at another address follows by adding the distance. */
  portable: boolean;
}

/** Templates per table before it starts over (bounded memory: a few MB at most). */
export const MAX_TEMPLATES = 1 << 17;

interface TemplateTables {
  arm: Map<number, Template>;
  /** By halfword, and address bit 1 as bit 16 (every 16-bit Thumb encoding: bounded). */
  thumb16: Template[];
  /** By word, per address bit 1. */
  thumb32: [Map<number, Template>, Map<number, Template>];
  /** One learned member of each branch family (see branchFamily), by familyKey. */
  families: Map<number, Template>;
  /** One learned member of each 16-bit Thumb operand family (see thumbOperandFamily), by its key. */
  operandFamilies: Map<number, Template>;
}

const tables: Partial<Record<Processor, TemplateTables>> = {};

export function templatesFor(processor: Processor): TemplateTables {
  let t = tables[processor];
  if (!t) {
    t = {
      arm: new Map(),
      thumb16: new Array<Template>(0x20000),
      thumb32: [new Map(), new Map()],
      families: new Map(),
      operandFamilies: new Map(),
    };
    tables[processor] = t;
  }
  return t;
}

export const TARGET_TEXT: TextAddress = { field: 'target', form: 'capstone' };
export const PC_RELATIVE_TEXT: TextAddress = { field: 'pc-relative', form: 'capstone' };
export const PC_RELATIVE_HEX_TEXT: TextAddress = { field: 'pc-relative', form: 'hex' };

export const refused = (at: number, size: number, refusal: 'architecture' | 'undecodable'): Template => ({
  base: at,
  size,
  refusal,
  ins: null,
  textAddress: null,
  portable: true,
});

/** An immediate as Capstone prints one: decimal up to 9, hexadecimal above. */
export const immediate = (value: number): string => (value > 9 ? `#0x${value.toString(16)}` : `#${value}`);

export function instantiate(t: Template, at: number): DecodedInstruction {
  const src = t.ins!;
  if (at === t.base) return copy(src, at, src.target, src.pcRelative, src.operands);
  const delta = at - t.base;
  const target = src.target === undefined ? undefined : (src.target + delta) >>> 0;
  const pcRelative =
    src.pcRelative === undefined
      ? undefined
      : { kind: src.pcRelative.kind, address: (src.pcRelative.address + delta) >>> 0 };
  let operands = src.operands;
  if (t.textAddress !== null) {
    const value = t.textAddress.field === 'target' ? target! : pcRelative!.address;
    const text = t.textAddress.form === 'hex' ? `#0x${value.toString(16)}` : immediate(value);
    operands = `${src.operands.slice(0, src.operands.lastIndexOf('#'))}${text}`;
  }
  return copy(src, at, target, pcRelative, operands);
}

/** A fresh instruction object with the fields in decode order (absent facts stay absent). */
function copy(
  src: DecodedInstruction,
  address: number,
  target: number | undefined,
  pcRelative: DecodedInstruction['pcRelative'],
  operands: string,
): DecodedInstruction {
  // Every field present (absent ones undefined): one shape for every instruction the templates make,
  // so code reading them stays monomorphic. JSON and the output schemas treat undefined as absent.
  const out: DecodedInstruction = {
    address,
    size: src.size,
    bytes: src.bytes,
    mnemonic: src.mnemonic,
    operands,
    condition: src.condition,
    flow: src.flow,
    target,
    targetMode: src.targetMode,
    pcRelative: pcRelative === undefined ? undefined : { kind: pcRelative.kind, address: pcRelative.address },
    readsPc: src.readsPc,
    writesPc: src.writesPc,
  };
  return out;
}

// Branch families. The direct branches (ARM B/BL/BLX label, Thumb B/Bcc, the Thumb BL/BLX pair) are
// a third of the distinct encodings of real code (every call site has its own offset), and all
// encodings of one family differ only in the offset: the same mnemonic, condition, flow and target
// mode, and operand text that is the target alone. One member of a family learned from Capstone (and
// checked to be exactly that: its target is the one computed here, its text the target alone) gives
// every other member's answer; a member whose target would wrap around the address space, or is
// printed in decimal (below 10), is learned from Capstone. The derivation is checked against Capstone
// over whole families in the tests.

interface BranchFamily {
  /** The bits every member shares (with the mode and size: the family). */
  key: number;
  /** The target at `at` (a plain number: may lie outside 0..2^32 when it would wrap). */
  target(at: number): number;
}

const signed = (v: number, bits: number): number => (v << (32 - bits)) >> (32 - bits);

/** The branch family of an encoding, or null when it is none. */
export function branchFamily(enc: number, mode: ArmMode, size: number): BranchFamily | null {
  if (mode === 'arm') {
    if (((enc >>> 25) & 7) !== 0b101) return null;
    const off = signed(enc & 0xffffff, 24) * 4;
    // BLX label (condition 1111): the H bit adds a halfword.
    const h = enc >>> 28 === 0xf ? ((enc >>> 24) & 1) * 2 : 0;
    return { key: enc >>> 24, target: (at) => at + 8 + off + h };
  }
  if (size === 2) {
    if (enc >>> 11 === 0b11100) {
      const off = signed(enc & 0x7ff, 11) * 2;
      return { key: 0x100 | (enc >>> 11), target: (at) => at + 4 + off };
    }
    const cond = (enc >>> 8) & 0xf;
    if (enc >>> 12 === 0b1101 && cond < 0xe) {
      const off = signed(enc & 0xff, 8) * 2;
      return { key: enc >>> 8, target: (at) => at + 4 + off };
    }
    return null;
  }
  // The ARMv4T/v5 pair: prefix 11110 (offset bits 22..12), suffix 11111 (BL) or 11101 (BLX, whose
  // target is word-aligned; an odd BLX suffix is left to Capstone).
  const first = enc & 0xffff;
  const second = enc >>> 16;
  const suffix = second >>> 11;
  if (first >>> 11 !== 0b11110 || (suffix !== 0b11111 && suffix !== 0b11101)) return null;
  if (suffix === 0b11101 && (second & 1) !== 0) return null;
  const off = signed(first & 0x7ff, 11) * 4096 + (second & 0x7ff) * 2;
  return suffix === 0b11111
    ? { key: 0x1f, target: (at) => at + 4 + off }
    : { key: 0x1d, target: (at) => Math.floor((at + 4 + off) / 4) * 4 };
}

const familyKey = (mode: ArmMode, size: number, key: number): number =>
  (mode === 'arm' ? 0 : size === 2 ? 0x1000 : 0x2000) | key;

/** A target the family answers for: no wrap-around, printed in hexadecimal (see immediate()). */
const familyTarget = (t: number): boolean => t > 9 && t <= 0xffffffff;

/** Keeps a template Capstone gave for a family member when it is exactly what the family says. */
export function keepFamily(
  tables: TemplateTables,
  family: BranchFamily,
  t: Template,
  bytesText: string,
  mode: ArmMode,
  size: number,
): void {
  const k = familyKey(mode, size, family.key);
  if (tables.families.has(k) || t.refusal !== null || t.ins === null) return;
  const target = family.target(t.base);
  const ins = t.ins;
  if (
    !familyTarget(target) ||
    ins.target !== target ||
    ins.pcRelative !== undefined ||
    t.textAddress !== TARGET_TEXT ||
    ins.operands !== immediate(target) ||
    !t.portable ||
    ins.bytes !== bytesText
  )
    return;
  tables.families.set(k, t);
}

/** The template at `at` of the family member whose bytes are `bytesText`, from its family's learned member; null when there is none. */
export function fromFamily(
  tables: TemplateTables,
  family: BranchFamily,
  bytesText: string,
  at: number,
  mode: ArmMode,
  size: number,
): Template | null {
  const known = tables.families.get(familyKey(mode, size, family.key));
  if (known === undefined) return null;
  const target = family.target(at);
  if (!familyTarget(target)) return null;
  const src = known.ins!;
  return {
    base: at,
    size: known.size,
    refusal: null,
    ins: { ...copy(src, at, target, undefined, immediate(target)), bytes: bytesText },
    textAddress: TARGET_TEXT,
    portable: true,
  };
}

// Operand families. Most other 16-bit Thumb encodings a program meets for the first time are low-register
// loads, stores, moves, compares and arithmetic: within one family (the same format and opcode bits)
// members differ only in register numbers and an immediate, which Capstone prints by a fixed rule, and
// nothing in them depends on the address (no PC, no flow). One member learned from Capstone, kept only
// when its text is exactly the family's text for it and it carries no address, gives every other
// member's answer: the same mnemonic and facts, the family's operand text and its own bytes. Forms
// whose text breaks the pattern (LSL #0 is MOVS, LSR/ASR #0 shift by 32) are families of their own.
// Checked against Capstone for every member of every family, met first in any order, in the tests.

interface OperandFamily {
  /** The format and opcode bits every member shares. */
  key: number;
  /** Capstone's operand text for this member. */
  operands: string;
}

const r = (n: number): string => `r${n & 7}`;
/** `[rN]` or `[rN, #off]`, as Capstone prints a base and an immediate offset. */
const offsetText = (base: string, off: number): string =>
  off === 0 ? `[${base}]` : `[${base}, ${immediate(off)}]`;

/** The operand family of a 16-bit Thumb encoding, or null when it is none (see above). */
export function thumbOperandFamily(h: number): OperandFamily | null {
  const top5 = h >>> 11;
  // Shift by immediate: LSL/LSR/ASR Rd, Rm, #imm5 (LSL #0 prints as MOVS Rd, Rm; LSR/ASR #0 mean 32).
  if (top5 <= 0b00010) {
    const imm = (h >>> 6) & 31;
    if (top5 === 0 && imm === 0) return { key: 0x10, operands: `${r(h)}, ${r(h >>> 3)}` };
    return { key: 0x11 + top5, operands: `${r(h)}, ${r(h >>> 3)}, ${immediate(imm === 0 ? 32 : imm)}` };
  }
  // ADD/SUB Rd, Rn, Rm and ADD/SUB Rd, Rn, #imm3.
  if (top5 === 0b00011) {
    const op = (h >>> 9) & 3;
    const last = op < 2 ? r(h >>> 6) : immediate((h >>> 6) & 7);
    return { key: 0x20 + op, operands: `${r(h)}, ${r(h >>> 3)}, ${last}` };
  }
  // MOV/CMP/ADD/SUB Rd, #imm8.
  if (h >>> 13 === 0b001)
    return { key: 0x30 + (top5 & 3), operands: `${r(h >>> 8)}, ${immediate(h & 0xff)}` };
  // Data processing on low registers (NEG prints as RSBS Rd, Rm, #0; MUL as MULS Rd, Rm, Rd).
  if (h >>> 10 === 0b010000) {
    const op = (h >>> 6) & 15;
    const tail = op === 9 ? ', #0' : op === 13 ? `, ${r(h)}` : '';
    return { key: 0x40 + op, operands: `${r(h)}, ${r(h >>> 3)}${tail}` };
  }
  // Loads and stores with a register offset.
  if (h >>> 12 === 0b0101)
    return { key: 0x50 + ((h >>> 9) & 7), operands: `${r(h)}, [${r(h >>> 3)}, ${r(h >>> 6)}]` };
  // Loads and stores with an immediate offset: words (imm5 * 4), bytes (imm5), halfwords (imm5 * 2).
  if (h >>> 13 === 0b011) {
    const scale = h & 0x1000 ? 1 : 4;
    return {
      key: 0x60 + (top5 & 3),
      operands: `${r(h)}, ${offsetText(r(h >>> 3), ((h >>> 6) & 31) * scale)}`,
    };
  }
  if (h >>> 12 === 0b1000)
    return { key: 0x70 + (top5 & 1), operands: `${r(h)}, ${offsetText(r(h >>> 3), ((h >>> 6) & 31) * 2)}` };
  // SP-relative loads and stores, ADD Rd, SP, #imm8 * 4, and ADD/SUB SP, #imm7 * 4.
  if (h >>> 12 === 0b1001)
    return { key: 0x80 + (top5 & 1), operands: `${r(h >>> 8)}, ${offsetText('sp', (h & 0xff) * 4)}` };
  if (top5 === 0b10101) return { key: 0x90, operands: `${r(h >>> 8)}, sp, ${immediate((h & 0xff) * 4)}` };
  if (h >>> 8 === 0b10110000)
    return { key: 0xa0 + ((h >>> 7) & 1), operands: `sp, ${immediate((h & 0x7f) * 4)}` };
  return null;
}

/** Keeps a template Capstone gave for an operand family member when it is exactly what the family says. */
export function keepOperandFamily(
  tables: TemplateTables,
  family: OperandFamily,
  t: Template,
  bytesText: string,
): void {
  if (tables.operandFamilies.has(family.key) || t.refusal !== null || t.ins === null) return;
  const ins = t.ins;
  if (
    ins.operands !== family.operands ||
    ins.bytes !== bytesText ||
    ins.target !== undefined ||
    ins.pcRelative !== undefined ||
    ins.flow !== undefined ||
    ins.readsPc === true ||
    ins.writesPc === true ||
    t.textAddress !== null ||
    !t.portable
  )
    return;
  tables.operandFamilies.set(family.key, t);
}

/** The template at `at` of the operand family member whose bytes are `bytesText`; null when its family has no learned member. */
export function fromOperandFamily(
  tables: TemplateTables,
  family: OperandFamily,
  bytesText: string,
  at: number,
): Template | null {
  const known = tables.operandFamilies.get(family.key);
  if (known === undefined) return null;
  return {
    base: at,
    size: 2,
    refusal: null,
    ins: { ...copy(known.ins!, at, undefined, undefined, family.operands), bytes: bytesText },
    textAddress: null,
    portable: true,
  };
}
