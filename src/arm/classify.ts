// Pure classification of one decoded instruction: control flow, proven direct targets and modes,
// PC-relative addresses, and the architecture gate. Works on Capstone-independent data (RawInstruction
// holds register and group names), so every rule here can be tested on hand-made inputs too.
import type { Processor } from '../core/vocabulary.js';
import { u16, u32 } from '../formats/le.js';
import { ACCESS_READ, ACCESS_WRITE, type RawInstruction, type RawOperand } from './capstone.js';
import type { ArmMode, DecodedInstruction, FlowKind, PcRelative } from './types.js';

// Architecture gate. Capstone's feature groups alone are not enough: it decodes every ARMv8-A32 /
// Thumb-2 encoding and leaves many v6 instructions untagged (LDREX, STREX, CPS, SRS, RFE, SETEND,
// UADD8, SSAT, SDIV...), while tagging v4 MUL/UMULL with Rd == Rm as "v6" (only the relaxed operand
// rule is v6). So the gate is an allow-list of the mnemonics each architecture defines, plus a deny
// on groups that can only mean a later architecture or an absent extension.
const split = (words: string): string[] => words.trim().split(/\s+/);
const withFlags = (words: string): string[] => split(words).flatMap((m) => [m, `${m}s`]);
const ARM_V4T = new Set([
  ...withFlags(
    'and eor sub rsb add adc sbc rsc orr mov bic mvn lsl lsr asr ror rrx mul mla umull umlal smull smlal',
  ),
  ...split('tst teq cmp cmn b bl bx ldr str ldrb strb ldrh strh ldrsb ldrsh ldrt strt ldrbt strbt'),
  ...split(
    'ldm ldmib ldmda ldmdb stm stmib stmda stmdb push pop swp swpb mrs msr svc cdp ldc ldcl stc stcl mcr mrc',
  ),
  'adr',
]);
const ARM_V5T = split('blx clz bkpt cdp2 ldc2 ldc2l stc2 stc2l mcr2 mrc2');
const ARM_V5TE = split(
  'ldrd strd pld mcrr mrrc qadd qsub qdadd qdsub smlabb smlabt smlatb smlatt smlawb smlawt ' +
    'smulbb smulbt smultb smultt smulwb smulwt smlalbb smlalbt smlaltb smlaltt',
);
const ARM_V5TE_ALL = new Set([...ARM_V4T, ...ARM_V5T, ...ARM_V5TE]);
const THUMB_V4T = new Set([
  ...withFlags('lsl lsr asr add sub mov and eor adc sbc ror neg rsb orr mul bic mvn'),
  ...split('cmp tst cmn bx ldr str strh strb ldrsb ldrh ldrb ldrsh adr push pop stm ldm b bl svc'),
]);
const THUMB_V5T = new Set([...THUMB_V4T, 'blx', 'bkpt']);
// Groups that never belong to an ARMv5TE/ARMv4T instruction ('v6' is handled by the allow-list).
const LATER_GROUPS = new Set(
  split(
    'v6t2 v7 v8 v6m thumb2 mclass crypto databarrier divide fparmv8 multpro neon T2EXTRACTPACK THUMB2DSP ' +
      'TRUSTZONE vfp2 vfp3 vfp4 fpvmlx crc dpvfp virtualization',
  ),
);

const COPROCESSOR = /^(cdp|ldc|stc|mcr|mrc|mcrr|mrrc)/;
// First letters of the COPROCESSOR prefixes: other mnemonics skip the expression.
const COPROCESSOR_FIRST = new Set(['c', 'l', 's', 'm']);

/** The mnemonic without its condition suffix (Capstone prints UAL: the condition comes last). */
function baseMnemonic(raw: Pick<RawInstruction, 'mnemonic' | 'condition'>): string {
  const m = raw.mnemonic;
  return raw.condition && m.endsWith(raw.condition) ? m.slice(0, -raw.condition.length) : m;
}

/**
 * Why the processor cannot execute this instruction (base mnemonic `base`): 'armv5t', 'armv5te',
 * 'armv6+', 'thumb2' or the offending Capstone group, or null when it can. ARM9 = ARMv5TE, ARM7 = ARMv4T.
 */
function architectureGap(
  raw: RawInstruction,
  base: string,
  mode: ArmMode,
  processor: Processor,
  bytes?: Uint8Array,
): string | null {
  for (const group of raw.groups) if (LATER_GROUPS.has(group)) return group;
  if (COPROCESSOR_FIRST.has(base[0]) && COPROCESSOR.test(base)) {
    // The DS has no coprocessor but CP15 (ARM946E-S system control, ARM9 only) and CP14 (debug
    // comms), both reached only through MCR/MRC. Anything else raises Undefined Instruction on the
    // chip, whatever a disassembler calls it (FPA 'ldf', Maverick 'cfldr', generic 'cdp'...).
    const cp = raw.operands[0]?.type === 'imm' ? raw.operands[0].imm : -1;
    const reachable =
      (base === 'mcr' || base === 'mrc') && (cp === 14 || (cp === 15 && processor === 'arm9'));
    if (!reachable) return `coprocessor p${cp}`;
  }
  if (mode === 'thumb') {
    if (raw.size === 4 && base !== 'bl' && base !== 'blx') return 'thumb2';
    // ARMv4T/v5 BL/BLX is a prefix halfword followed by the suffix 11111 (BL) or 11101 (BLX). Any
    // other second halfword makes it Thumb-2's BL/BLX (J1/J2 bits), whose target the DS never computes.
    if (raw.size === 4 && bytes !== undefined && bytes.length === 4) {
      const suffix = u16(bytes, 2) >>> 11;
      if (suffix !== (base === 'bl' ? 0b11111 : 0b11101)) return 'thumb2';
    }
    if (THUMB_V4T.has(base)) return null;
    if (THUMB_V5T.has(base)) return processor === 'arm9' ? null : 'armv5t';
    return 'armv6+';
  }
  if (ARM_V4T.has(base)) return null;
  if (ARM_V5TE_ALL.has(base))
    return processor === 'arm9' ? null : ARM_V5T.includes(base) ? 'armv5t' : 'armv5te';
  return 'armv6+';
}

const PC_WRITEBACK = /\[pc\b[^\]]*\]!/;

/**
 * Why an instruction Capstone decoded is no instruction of `processor`: 'undecodable' for UDF (permanently
 * undefined) and wrong fixed bits (UNPREDICTABLE), 'architecture' for a later architecture's; null when
 * it is one. `bytes` are the instruction's own.
 */
export function refusalOf(
  raw: RawInstruction,
  mode: ArmMode,
  processor: Processor,
  bytes: Uint8Array,
): 'architecture' | 'undecodable' | null {
  const base = baseMnemonic(raw);
  if (base === 'udf' || wrongFixedBits(raw, base, mode, bytes)) return 'undecodable';
  if (architectureGap(raw, base, mode, processor, bytes) !== null) return 'architecture';
  return null;
}

/**
 * Encodings Capstone accepts although fixed (should-be-one / should-be-zero) bits are wrong, which
 * makes them UNPREDICTABLE: reported as undecodable rather than given a confident meaning (`base`: the
 * base mnemonic of `raw`).
 */
function wrongFixedBits(raw: RawInstruction, base: string, mode: ArmMode, bytes: Uint8Array): boolean {
  if (mode === 'thumb') {
    // BX/BLX Rm (010001 11 H Rm SBZ): bits 2..0 should be zero.
    if (bytes.length !== 2) return false;
    const h = u16(bytes, 0);
    return (h & 0xff00) === 0x4700 && (h & 0x7) !== 0;
  }
  if (bytes.length !== 4) return false;
  const w = u32(bytes, 0);
  // Writeback into PC as the base register is UNPREDICTABLE.
  if (raw.opStr.includes('[pc') && PC_WRITEBACK.test(raw.opStr)) return true;
  const sbz = (shift: number): boolean => ((w >>> shift) & 0xf) !== 0;
  const sbo = (shift: number): boolean => ((w >>> shift) & 0xf) !== 0xf;
  switch (base) {
    case 'mrs': // Rn field SBO, bits 11..0 SBZ
      return sbo(16) || (w & 0xfff) !== 0;
    case 'msr': // bits 15..12 SBO; register form: bits 11..4 SBZ
      return sbo(12) || ((w & 0x02000000) === 0 && (w & 0xff0) !== 0);
    case 'bx':
    case 'blx': // register forms: bits 19..8 SBO
      return (w & 0x0e000000) === 0 && ((w >>> 8) & 0xfff) !== 0xfff;
    case 'clz': // bits 19..16 and 11..8 SBO
      return sbo(16) || sbo(8);
    case 'swp':
    case 'swpb':
    case 'qadd':
    case 'qsub':
    case 'qdadd':
    case 'qdsub': // bits 11..8 SBZ
      return sbz(8);
    case 'mul':
    case 'muls':
    case 'smulbb':
    case 'smulbt':
    case 'smultb':
    case 'smultt':
    case 'smulwb':
    case 'smulwt': // bits 15..12 SBZ
      return sbz(12);
    case 'ldrh':
    case 'strh':
    case 'ldrsh':
    case 'ldrsb':
    case 'ldrd':
    case 'strd': // register-offset forms (bit 22 clear): bits 11..8 SBZ
      return (w & 0x0e400000) === 0 && sbz(8);
    default:
      return false;
  }
}

const HEX_BYTE = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));

/** Bytes as lowercase hex in memory order (DecodedInstruction.bytes). */
export const hex = (bytes: Uint8Array): string => {
  let out = '';
  for (let i = 0; i < bytes.length; i++) out += HEX_BYTE[bytes[i]!];
  return out;
};

const isReg = (op: RawOperand | undefined, reg: string): boolean => op?.type === 'reg' && op.reg === reg;

/** The value an instruction reads as PC: ARM +8; Thumb +4, word-aligned for PC-relative data. */
function pcBase(address: number, mode: ArmMode): number {
  return mode === 'arm' ? address + 8 : (address + 4) & ~3;
}

function writesPc(raw: RawInstruction): boolean {
  if (raw.groups.includes('jump') || raw.groups.includes('call')) return true;
  if (raw.regsWrite.includes('pc')) return true;
  return raw.operands.some((op) => op.type === 'reg' && op.reg === 'pc' && (op.access & ACCESS_WRITE) !== 0);
}

function readsPc(raw: RawInstruction): boolean {
  return raw.operands.some(
    (op) =>
      (op.type === 'reg' && op.reg === 'pc' && (op.access & ACCESS_READ) !== 0) ||
      (op.type === 'mem' && (op.base === 'pc' || op.index === 'pc')),
  );
}

const DIRECT = new Set(['b', 'bl', 'blx']);

function isReturn(raw: RawInstruction): boolean {
  const [first, second, third] = raw.operands;
  const m = raw.mnemonic;
  // BX LR (any condition: the mnemonic carries none, the condition is separate)
  if (m.startsWith('bx') && isReg(first, 'lr')) return true;
  // MOV PC, LR / MOVS PC, LR (exception return)
  if (m.startsWith('mov') && isReg(first, 'pc') && isReg(second, 'lr') && !third) return true;
  // SUBS PC, LR, #imm (exception return)
  if (m.startsWith('sub') && isReg(first, 'pc') && isReg(second, 'lr') && third?.type === 'imm') return true;
  // POP {..., pc} (covers LDMFD SP!, {...} and LDR PC, [SP], #4 as Capstone prints them)
  if (m.startsWith('pop')) return true;
  // LDM SP, {..., pc} without writeback
  if (m.startsWith('ldm') && isReg(first, 'sp')) return true;
  return false;
}

function flowOf(
  raw: RawInstruction,
  base: string,
  mode: ArmMode,
): Pick<DecodedInstruction, 'flow' | 'target' | 'targetMode'> {
  const call = raw.groups.includes('call');
  const [first] = raw.operands;
  if (DIRECT.has(base) && raw.operands.length === 1 && first.type === 'imm') {
    const switches = base === 'blx';
    const targetMode: ArmMode = switches ? (mode === 'arm' ? 'thumb' : 'arm') : mode;
    return { flow: call || base !== 'b' ? 'call' : 'branch', target: first.imm >>> 0, targetMode };
  }
  let flow: FlowKind;
  if (call) flow = 'call-indirect';
  else if (isReturn(raw)) flow = 'return';
  else flow = 'branch-indirect';
  return { flow };
}

function pcRelativeOf(raw: RawInstruction, m: string, mode: ArmMode): PcRelative | undefined {
  const ops = raw.operands;
  // `m` is without the condition suffix: a conditional ADR/ADD/SUB builds the same address when it executes.
  // LDR-family literal load: [PC, #imm] with no index register. The slot address is the fact; the
  // word stored there is not interpreted.
  if (m.startsWith('ldr')) {
    const mem = ops.find((op) => op.type === 'mem');
    if (mem?.type === 'mem' && mem.base === 'pc' && mem.index === null) {
      return { kind: 'literal-pool', address: (pcBase(raw.address, mode) + mem.disp) >>> 0 };
    }
    return undefined;
  }
  // ADR Rd, #offset (Capstone prints the offset, not the address)
  if (m === 'adr' && ops.length === 2 && ops[1].type === 'imm' && !isReg(ops[0], 'pc')) {
    return { kind: 'pc-relative-address', address: (pcBase(raw.address, mode) + ops[1].imm) >>> 0 };
  }
  // ADD/SUB Rd, PC, #imm (no flag-setting forms: those are not address construction)
  if ((m === 'add' || m === 'sub') && ops.length === 3 && isReg(ops[1], 'pc') && ops[2].type === 'imm') {
    if (isReg(ops[0], 'pc')) return undefined;
    const delta = m === 'add' ? ops[2].imm : -ops[2].imm;
    return { kind: 'pc-relative-address', address: (pcBase(raw.address, mode) + delta) >>> 0 };
  }
  return undefined;
}

// MSR field masks in ARMv7-A's APSR spelling -> the v4T/v5TE CPSR spelling (the same mask bits).
const CPSR_FIELDS: Record<string, string> = {
  apsr_nzcvq: 'cpsr_f',
  apsr_g: 'cpsr_s',
  apsr_nzcvqg: 'cpsr_fs',
};

/**
 * Capstone's operand text, in the words of the DS processors' own manuals:
 * - Thumb ADR: the address it builds (Capstone prints the offset from Align(PC, 4));
 * - the status register is CPSR on ARMv4T/v5TE (Capstone names it with ARMv7-A's APSR).
 */
function operandText(
  raw: RawInstruction,
  base: string,
  mode: ArmMode,
  pcRelative: PcRelative | undefined,
): string {
  if (mode === 'thumb' && base === 'adr' && pcRelative) {
    return `${raw.opStr.split(',')[0]}, #0x${pcRelative.address.toString(16)}`;
  }
  if (base === 'mrs' || base === 'msr') {
    return raw.opStr.replace(/\bapsr(_[a-z]+)?\b/g, (m, fields?: string) =>
      fields === undefined ? 'cpsr' : (CPSR_FIELDS[m] ?? m),
    );
  }
  return raw.opStr;
}

/** Turns Capstone's facts into the compact public form. `bytes` are this instruction's bytes. */
export function classify(raw: RawInstruction, mode: ArmMode, bytes: Uint8Array): DecodedInstruction {
  const base = baseMnemonic(raw);
  const pcRelative = pcRelativeOf(raw, base, mode);
  const out: DecodedInstruction = {
    address: raw.address,
    size: raw.size,
    bytes: hex(bytes),
    mnemonic: raw.mnemonic,
    operands: operandText(raw, base, mode, pcRelative),
  };
  if (raw.condition) out.condition = raw.condition;
  const pcWrite = writesPc(raw);
  if (pcWrite) Object.assign(out, flowOf(raw, base, mode));
  if (pcRelative) out.pcRelative = pcRelative;
  if (pcRelative || readsPc(raw)) out.readsPc = true;
  if (pcWrite) out.writesPc = true;
  return out;
}
