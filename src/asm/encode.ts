// The encodings ual.ts writes itself, for the UAL forms armips cannot express or gets wrong: ARM
// LDRH/STRH/LDRSB/LDRSH/LDRD/STRD other than pre-indexed by an added offset without writeback
// (armips lacks writeback, subtracted registers and most post-indexed forms, and a negative LDRD
// offset), SMLAL<x><y> (armips sets the x bit of SMLALBB), a transfer with
// the offset `#-0` (U clear: armips writes U set), a data-processing or MSR immediate with its
// rotation given (`#4, #2`: the same value with other rotations is another encoding, with another
// carry), MRC to PC (`apsr_nzcv`), BX PC, STR post-indexed by a subtracted register (armips reads
// `-rm` there as a label), a register-offset transfer indexed by PC, and SVC (armips' SWI moves a
// small number to bits 16..23). Only operands that are plain registers and plain numbers are
// encoded here; anything else (a label, an expression) is left to armips. Pure.
import type { Processor } from '../core/vocabulary.js';

/** An ARM instruction word. */
export interface Encoded {
  value: number;
}

interface ArmParts {
  base: string;
  suffix: string;
  cond: string;
}

/** Condition suffixes and their codes ('' is always). */
export const CONDITION_CODES: Readonly<Record<string, number>> = {
  eq: 0,
  ne: 1,
  cs: 2,
  hs: 2,
  cc: 3,
  lo: 3,
  mi: 4,
  pl: 5,
  vs: 6,
  vc: 7,
  hi: 8,
  ls: 9,
  ge: 10,
  lt: 11,
  gt: 12,
  le: 13,
  al: 14,
  '': 14,
};

const reg = (text: string | undefined): number | null => {
  if (text === undefined) return null;
  const t = text.trim().toLowerCase();
  if (t === 'sp') return 13;
  if (t === 'lr') return 14;
  if (t === 'pc') return 15;
  const m = /^r(\d{1,2})$/.exec(t);
  return m && Number(m[1]) <= 15 ? Number(m[1]) : null;
};

/** A plain number (`#` optional, sign, hex or decimal) as { negative, magnitude }, or null. */
function number(text: string | undefined): { negative: boolean; magnitude: number } | null {
  if (text === undefined) return null;
  const m = /^#?\s*([+-]?)\s*(0x[0-9a-f]{1,8}|\d{1,10})$/i.exec(text.trim());
  if (!m) return null;
  const magnitude = Number(m[2]!.toLowerCase().startsWith('0x') ? Number.parseInt(m[2]!, 16) : m[2]);
  if (!Number.isSafeInteger(magnitude) || magnitude > 0xffffffff) return null;
  return { negative: m[1] === '-', magnitude };
}

/** A register operand with an optional sign (`-r2`, `+r2`, `r2`). */
function signedReg(text: string): { negative: boolean; reg: number } | null {
  const m = /^([+-]?)\s*(\w+)$/.exec(text.trim());
  if (!m) return null;
  const r = reg(m[2]);
  return r === null ? null : { negative: m[1] === '-', reg: r };
}

interface Address {
  base: number;
  /** Pre-indexed (P), with writeback (W). */
  pre: boolean;
  writeback: boolean;
  offset:
    | { kind: 'imm'; negative: boolean; magnitude: number }
    | { kind: 'reg'; negative: boolean; reg: number };
}

/** `[rn]`, `[rn, off]`, `[rn, off]!` or `[rn]`, `off` (operands after the transfer register). */
function address(operands: string[]): Address | null {
  const first = operands[0]?.trim();
  if (first === undefined || operands.length > 2) return null;
  const m = /^\[([^\]]*)\](!?)$/.exec(first);
  if (!m) return null;
  const inside = m[1]!.split(',').map((s) => s.trim());
  const base = reg(inside[0]);
  if (base === null || inside.length > 2) return null;
  const offsetOf = (text: string | undefined): Address['offset'] | null => {
    if (text === undefined) return { kind: 'imm', negative: false, magnitude: 0 };
    const n = number(text);
    if (n) return { kind: 'imm', ...n };
    const r = signedReg(text);
    return r ? { kind: 'reg', ...r } : null;
  };
  if (operands.length === 2) {
    if (inside.length !== 1 || m[2] === '!') return null;
    const offset = offsetOf(operands[1]);
    return offset ? { base, pre: false, writeback: false, offset } : null;
  }
  const offset = offsetOf(inside[1]);
  return offset ? { base, pre: true, writeback: m[2] === '!', offset } : null;
}

/** One statement as the encoders take it; `word` makes an encoding from the bits below the condition. */
interface Statement {
  parts: ArmParts;
  operands: string[];
  processor: Processor;
  word: (bits: number) => Encoded;
}

/** The ARM encoding of a statement in this module's scope, or null (left to armips). */
export function encodeArm(parts: ArmParts, operands: string[], processor: Processor): Encoded | null {
  const cond = CONDITION_CODES[parts.cond];
  if (cond === undefined) return null;
  const word = (bits: number): Encoded => ({ value: ((cond << 28) | bits) >>> 0 });
  const statement: Statement = { parts, operands, processor, word };
  for (const family of ARM_FAMILIES) {
    const encoded = family(statement);
    if (encoded !== undefined) return encoded;
  }
  return null;
}

// The families of ARM statements encoded here, tried in order: each answers an encoding or null (the
// statement is its own, left to armips), or undefined when the statement is not of the family.

/** Extra loads and stores (addressing mode 3). */
function extraLoadStore({ parts, operands, processor, word }: Statement): Encoded | null | undefined {
  const { base, suffix } = parts;
  if ((base === 'ldr' || base === 'str') && ['h', 'sb', 'sh', 'd'].includes(suffix)) {
    if (suffix === 'd' && processor === 'arm7') return null; // ARMv5TE: armips refuses it on the ARM7
    const load = base === 'ldr';
    let rest = operands.slice(1);
    const rt = reg(operands[0]);
    if (rt === null) return null;
    if (suffix === 'd') {
      // Rt2 is written in UAL and must be Rt + 1; ual.ts checks it and drops it before armips.
      if (reg(rest[0]) !== rt + 1) return null;
      rest = rest.slice(1);
    }
    const a = address(rest);
    if (a === null) return null;
    // What armips writes right itself stays its own: pre-indexed, no writeback, an offset added.
    if (a.pre && !a.writeback && !a.offset.negative) return null;
    const sh = suffix === 'h' ? 0b01 : suffix === 'sb' ? 0b10 : suffix === 'sh' ? 0b11 : load ? 0b10 : 0b11;
    const l = suffix === 'd' ? 0 : load ? 1 : 0;
    let bits = (a.pre ? 1 << 24 : 0) | (a.writeback ? 1 << 21 : 0) | (l << 20) | (a.base << 16) | (rt << 12);
    bits |= 0x90 | (sh << 5);
    if (a.offset.kind === 'imm') {
      if (a.offset.magnitude > 0xff) return null;
      bits |= (1 << 22) | ((a.offset.magnitude & 0xf0) << 4) | (a.offset.magnitude & 0xf);
    } else bits |= a.offset.reg;
    if (!a.offset.negative) bits |= 1 << 23;
    return word(bits);
  }
  return undefined;
}

/**
 * LDR/STR{B}{T} with a register offset, when armips would not take it: PC as the index (armips
 * has no r15 there), or STR post-indexed by a subtracted register (armips reads `-rm` as a label).
 */
function registerOffsetLoadStore({ parts, operands, word }: Statement): Encoded | null | undefined {
  const { base, suffix } = parts;
  if ((base === 'ldr' || base === 'str') && ['', 'b', 't', 'bt'].includes(suffix)) {
    const rt = reg(operands[0]);
    const a = shiftedAddress(operands.slice(1));
    if (
      rt !== null &&
      a !== null &&
      (a.index === 15 || (base === 'str' && suffix === '' && !a.pre && a.negative))
    ) {
      const translated = suffix.includes('t');
      if (translated && a.pre) return null;
      const bits =
        (3 << 25) |
        (a.pre ? 1 << 24 : 0) |
        (a.negative ? 0 : 1 << 23) |
        (suffix.includes('b') ? 1 << 22 : 0) |
        (a.writeback || translated ? 1 << 21 : 0) |
        (base === 'ldr' ? 1 << 20 : 0) |
        (a.base << 16) |
        (rt << 12) |
        a.shift |
        a.index;
      return word(bits);
    }
  }
  return undefined;
}

/** LDR/STR{B}{T} with the offset #-0: U clear. */
function negativeZeroLoadStore({ parts, operands, word }: Statement): Encoded | null | undefined {
  const { base, suffix } = parts;
  if ((base === 'ldr' || base === 'str') && ['', 'b', 't', 'bt'].includes(suffix)) {
    const rt = reg(operands[0]);
    const a = address(operands.slice(1));
    if (
      rt === null ||
      a === null ||
      a.offset.kind !== 'imm' ||
      !a.offset.negative ||
      a.offset.magnitude !== 0
    )
      return null;
    const translated = suffix.includes('t');
    if (translated && a.pre) return null;
    const bits =
      (1 << 26) |
      (a.pre ? 1 << 24 : 0) |
      (suffix.includes('b') ? 1 << 22 : 0) |
      (a.writeback || translated ? 1 << 21 : 0) |
      (base === 'ldr' ? 1 << 20 : 0) |
      (a.base << 16) |
      (rt << 12);
    return word(bits);
  }
  return undefined;
}

/** SMLAL<x><y> RdLo, RdHi, Rm, Rs. */
function smlalxy({ parts, operands, processor, word }: Statement): Encoded | null | undefined {
  const { base } = parts;
  const smlal = /^smlal([bt])([bt])$/.exec(base);
  if (smlal && processor === 'arm9') {
    const [lo, hi, m, s] = operands.map(reg);
    if (operands.length !== 4 || lo == null || hi == null || m == null || s == null) return null;
    const x = smlal[1] === 't' ? 1 : 0;
    const y = smlal[2] === 't' ? 1 : 0;
    return word(0x01400080 | (hi << 16) | (lo << 12) | (s << 8) | (y << 6) | (x << 5) | m);
  }
  return undefined;
}

/** Data processing and MSR with an immediate whose rotation is given: #imm8, #rotation. */
function rotatedImmediate({ parts, operands, word }: Statement): Encoded | null | undefined {
  const { base, suffix } = parts;
  if (operands.length >= 3) {
    const imm = number(operands.at(-2));
    const rotation = number(operands.at(-1));
    if (imm && rotation && !imm.negative && !rotation.negative) {
      if (imm.magnitude > 0xff || rotation.magnitude > 30 || rotation.magnitude % 2 !== 0) return null;
      const operand2 = (1 << 25) | ((rotation.magnitude / 2) << 8) | imm.magnitude;
      const registers = operands.slice(0, -2);
      if (base === 'msr') {
        // Without fields: all four, as armips reads it (ual.ts notes it).
        const field = /^(cpsr|spsr)(?:_([fsxc]+))?$/i.exec(registers[0] ?? '');
        if (registers.length !== 1 || !field) return null;
        let mask = 0;
        for (const f of (field[2] ?? 'fsxc').toLowerCase()) mask |= { f: 8, s: 4, x: 2, c: 1 }[f as 'f']!;
        const r = field[1]!.toLowerCase() === 'spsr' ? 1 << 22 : 0;
        return word(0x0120f000 | operand2 | r | (mask << 16));
      }
      const opcode = DATA_OPCODES[base];
      if (opcode === undefined) return null;
      const regs = registers.map(reg);
      if (regs.some((r) => r === null)) return null;
      const compare = opcode >= 8 && opcode <= 11;
      const move = opcode === 13 || opcode === 15;
      const s = compare || suffix === 's' ? 1 << 20 : 0;
      if (compare && regs.length === 1) return word(operand2 | (opcode << 21) | s | (regs[0]! << 16));
      if (move && regs.length === 1) return word(operand2 | (opcode << 21) | s | (regs[0]! << 12));
      if (!compare && !move && regs.length === 2)
        return word(operand2 | (opcode << 21) | s | (regs[1]! << 16) | (regs[0]! << 12));
      return null;
    }
  }
  return undefined;
}

/**
 * SVC #n: n is the comment field as written (armips' SWI moves a number below 0xff to bits
 * 16..23, where the DS and GBA BIOS read it).
 */
function svc({ parts, operands, word }: Statement): Encoded | null | undefined {
  const { base } = parts;
  if (base === 'svc' && operands.length === 1) {
    const n = number(operands[0]);
    return n && !n.negative && n.magnitude <= 0xffffff ? word(0x0f000000 | n.magnitude) : null;
  }
  return undefined;
}

/** BX PC (armips takes no PC there). */
function bxPc({ parts, operands, word }: Statement): Encoded | null | undefined {
  const { base } = parts;
  if (base === 'bx' && operands.length === 1 && reg(operands[0]) === 15) return word(0x012fff1f);
  return undefined;
}

/** MRC/MRC2 to PC (Capstone names the destination apsr_nzcv: the flags are what it sets). */
function mrcToPc({ parts, operands, word }: Statement): Encoded | null | undefined {
  const { base } = parts;
  if ((base === 'mrc' || base === 'mrc2') && operands.length >= 5) {
    const rt = operands[2]!.trim().toLowerCase();
    if (rt !== 'pc' && rt !== 'apsr_nzcv' && rt !== 'r15') return null;
    const cp = /^p(\d{1,2})$/i.exec(operands[0]!.trim());
    const opc1 = number(operands[1]);
    const crn = /^c(\d{1,2})$/i.exec(operands[3]!.trim());
    const crm = /^c(\d{1,2})$/i.exec(operands[4]!.trim());
    const opc2 = operands.length > 5 ? number(operands[5]) : { negative: false, magnitude: 0 };
    if (!cp || !opc1 || !crn || !crm || !opc2 || opc1.negative || opc2.negative || operands.length > 6)
      return null;
    const n = [Number(cp[1]), opc1.magnitude, Number(crn[1]), Number(crm[1]), opc2.magnitude];
    if (n[0]! > 15 || n[1]! > 7 || n[2]! > 15 || n[3]! > 15 || n[4]! > 7) return null;
    const bits =
      0x0e100010 | (n[1]! << 21) | (n[2]! << 16) | (15 << 12) | (n[0]! << 8) | (n[4]! << 5) | n[3]!;
    return base === 'mrc2' ? { value: (0xf0000000 | bits) >>> 0 } : word(bits);
  }
  return undefined;
}

const ARM_FAMILIES = [
  extraLoadStore,
  registerOffsetLoadStore,
  negativeZeroLoadStore,
  smlalxy,
  rotatedImmediate,
  svc,
  bxPc,
  mrcToPc,
] as const;

const SHIFTS: Readonly<Record<string, number>> = { lsl: 0, lsr: 1, asr: 2, ror: 3 };

/**
 * A register-offset address of LDR/STR: `[rn, ±rm{, shift #n}]{!}` or `[rn], ±rm{, shift #n}`, with
 * the shift as its bits (11..4), or null.
 */
function shiftedAddress(operands: string[]): {
  base: number;
  pre: boolean;
  writeback: boolean;
  negative: boolean;
  index: number;
  shift: number;
} | null {
  let inside: string[];
  let pre: boolean;
  let writeback = false;
  const first = /^\[([^\]]*)\](!?)$/.exec(operands[0]?.trim() ?? '');
  if (!first) return null;
  if (operands.length === 1) {
    inside = first[1]!.split(',').map((s) => s.trim());
    pre = true;
    writeback = first[2] === '!';
  } else {
    if (first[1]!.includes(',') || first[2] === '!') return null;
    inside = [first[1]!.trim(), ...operands.slice(1).map((s) => s.trim())];
    pre = false;
  }
  const base = reg(inside[0]);
  const index = signedReg(inside[1] ?? '');
  if (base === null || index === null || inside.length > 3) return null;
  let shift = 0;
  if (inside.length === 3) {
    const s = inside[2]!.toLowerCase();
    if (s === 'rrx') shift = 3 << 5;
    else {
      const m = /^(lsl|lsr|asr|ror)\s+#?\s*(0x[0-9a-f]+|\d+)$/.exec(s);
      if (!m) return null;
      let amount = Number(m[2]);
      const type = SHIFTS[m[1]!]!;
      if (amount === 32 && (type === 1 || type === 2)) amount = 0;
      else if (amount < 1 || amount > 31) return null;
      shift = (amount << 7) | (type << 5);
    }
  }
  return { base, pre, writeback, negative: index.negative, index: index.reg, shift };
}

const DATA_OPCODES: Readonly<Record<string, number>> = {
  and: 0,
  eor: 1,
  sub: 2,
  rsb: 3,
  add: 4,
  adc: 5,
  sbc: 6,
  rsc: 7,
  tst: 8,
  teq: 9,
  cmp: 10,
  cmn: 11,
  orr: 12,
  mov: 13,
  bic: 14,
  mvn: 15,
};
