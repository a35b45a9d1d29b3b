// The narrow decoder interface the rest of re-mcp uses: decode one bounded window of ARM or Thumb
// code for one DS processor. Capstone is loaded on first call, never at import time, so the server
// starts without paying for its WASM.
import { ReMcpError } from '../core/errors.js';
import type { Processor } from '../core/vocabulary.js';
import { i32, u16 } from '../formats/le.js';
import { type CapstoneEngine, capstoneEngine, capstoneEngineIfLoaded, firstThumbIt } from './capstone.js';
import { classify, hex, refusalOf } from './classify.js';
import type { ArmMode, DecodedInstruction, DecodeWindowResult } from './types.js';

/** Hard ceiling per call, far above every tool limit: keeps a single call's work bounded. */
export const MAX_WINDOW_INSTRUCTIONS = 65_536;

// 32-bit Thumb encodings start with a halfword whose top five bits are 11101, 11110 or 11111.
const isThumb32Prefix = (halfword: number): boolean => halfword >>> 11 >= 0b11101;

/**
 * Decodes sequentially from `address` (the address of bytes[0]) in `mode`, for `processor`, up to
 * `maxInstructions` or the end of `bytes`. Never skips bytes: the first instruction Capstone refuses
 * (`undecodable`), that needs a later architecture than the processor's (`architecture`: ARMv6+,
 * Thumb-2, BLX/CLZ/... on the ARM7), or that the bytes end inside (`truncated-instruction`) ends the
 * window and is reported with its address; the instructions before it are returned.
 *
 * Each distinct encoding goes through Capstone once per process (see InstructionTemplates): the
 * answer for the same bytes elsewhere is derived from it, exactly.
 */
export async function decodeWindow(
  bytes: Uint8Array,
  address: number,
  mode: ArmMode,
  processor: Processor,
  maxInstructions: number,
): Promise<DecodeWindowResult> {
  checkWindow(bytes, address, mode, processor, maxInstructions);
  return decodeRange(bytes, 0, bytes.length, address, mode, processor, maxInstructions);
}

/**
 * Starts loading Capstone without waiting for it, for a caller about to decode after other work (the
 * WebAssembly compiles meanwhile). A failure here is not reported: the first decode that needs the
 * engine loads it again and reports its own.
 */
export function prepareDecoder(): void {
  capstoneEngine().catch(() => undefined);
}

/**
 * Loads Capstone (once per process; a failure is reported and the next call tries again). Once it has
 * resolved, decodeRangeNow answers without waiting.
 */
export async function loadDecoder(): Promise<void> {
  await capstoneEngine();
}

/**
 * decodeWindow over bytes[start, end) (bytes[start] at `address`) without a view of them: for callers
 * that decode many short runs of one large buffer and have checked the arguments themselves
 * (`start` <= `end` <= bytes.length, `address` aligned for `mode`, `max` within MAX_WINDOW_INSTRUCTIONS).
 * `untilFlow`: stop after the first instruction that writes PC (a caller that ends a basic block
 * there makes no instructions it will not look at).
 */
export async function decodeRange(
  bytes: Uint8Array,
  start: number,
  end: number,
  address: number,
  mode: ArmMode,
  processor: Processor,
  max: number,
  untilFlow = false,
): Promise<DecodeWindowResult> {
  const engine = capstoneEngineIfLoaded() ?? (await capstoneEngine());
  return decodeWith(engine, bytes, start, end, address, mode, processor, max, untilFlow);
}

/**
 * decodeRange without waiting, for a caller that has awaited loadDecoder (a whole-program walk decodes
 * 10^5 short runs: none of them needs to wait). An encoding not seen yet is learned on the spot.
 */
export function decodeRangeNow(...range: Parameters<typeof decodeRange>): DecodeWindowResult {
  const engine = capstoneEngineIfLoaded();
  if (engine === undefined)
    throw new ReMcpError('internal-error', 'the ARM decoder is not loaded yet (loadDecoder first)');
  return decodeWith(engine, ...range);
}

/** decodeRange's work with a loaded engine (its arguments as decodeRange takes them). */
function decodeWith(
  engine: CapstoneEngine,
  ...[bytes, start, end, address, mode, processor, max, untilFlow = false]: Parameters<typeof decodeRange>
): DecodeWindowResult {
  const instructions: DecodedInstruction[] = [];
  let offset = start;
  for (;;) {
    const r = scan(bytes, offset, end, address - start, mode, processor, max, instructions, untilFlow);
    if (typeof r !== 'number') return r;
    // An encoding not seen yet at `r`: Capstone once, then on from it.
    learn(engine, bytes, r, address - start + r, mode, processor);
    offset = r;
  }
}

/**
 * Decodes from bytes[offset] (at address base + offset) until `max` instructions in `out`, `end`, a
 * refusal or (`untilFlow`) the first instruction that writes PC, included: the result; or the offset
 * of an encoding without a template (instructions before it are in `out`).
 */
function scan(
  bytes: Uint8Array,
  offset: number,
  end: number,
  base: number,
  mode: ArmMode,
  processor: Processor,
  max: number,
  out: DecodedInstruction[],
  untilFlow: boolean,
): DecodeWindowResult | number {
  const templates = templatesFor(processor);
  while (out.length < max && offset < end) {
    const at = base + offset;
    const left = end - offset;
    let t: Template | undefined;
    if (mode === 'arm') {
      if (left < 4) return { instructions: out, stop: { reason: 'truncated-instruction', address: at } };
      t = templates.arm.get(i32(bytes, offset));
    } else {
      if (left < 2) return { instructions: out, stop: { reason: 'truncated-instruction', address: at } };
      const half = u16(bytes, offset);
      if (isThumb32Prefix(half)) {
        if (left < 4) return { instructions: out, stop: { reason: 'truncated-instruction', address: at } };
        t = templates.thumb32[(at & 2) >>> 1]!.get(i32(bytes, offset));
      } else {
        // Thumb-2 IT (0xBFxy, y != 0; 0xBFx0 are hints): never handed to Capstone, see capstone.ts.
        if ((half & 0xff00) === 0xbf00 && (half & 0x0f) !== 0)
          return { instructions: out, stop: { reason: 'architecture', address: at } };
        t = templates.thumb16[half | ((at & 2) << 15)];
      }
    }
    if (t === undefined || (!t.portable && t.base !== at)) return offset;
    if (t.refusal !== null) return { instructions: out, stop: { reason: t.refusal, address: at } };
    out.push(instantiate(t, at));
    offset += t.size;
    if (untilFlow && t.ins!.flow !== undefined) break;
  }
  return { instructions: out, stop: null };
}

/** Decodes the encoding at bytes[offset] (at `at`, all its bytes present) with Capstone and keeps its template. */
function learn(
  engine: CapstoneEngine,
  bytes: Uint8Array,
  offset: number,
  at: number,
  mode: ArmMode,
  processor: Processor,
): void {
  const templates = templatesFor(processor);
  const half = u16(bytes, offset);
  const size = mode === 'arm' || isThumb32Prefix(half) ? 4 : 2;
  const enc = size === 2 ? half : i32(bytes, offset) >>> 0;
  const family = branchFamily(enc, mode, size);
  const operandFamily = family === null && mode === 'thumb' && size === 2 ? thumbOperandFamily(half) : null;
  const text = family !== null || operandFamily !== null ? hex(bytes.subarray(offset, offset + size)) : '';
  const t =
    (family !== null ? fromFamily(templates, family, text, at, mode, size) : null) ??
    (operandFamily !== null ? fromOperandFamily(templates, operandFamily, text, at) : null) ??
    decodeOne(engine, bytes.subarray(offset, offset + size), at, mode, processor);
  if (family !== null && t.base === at) keepFamily(templates, family, t, text, mode, size);
  if (operandFamily !== null && t.base === at) keepOperandFamily(templates, operandFamily, t, text);
  if (size === 2) {
    templates.thumb16[half | ((at & 2) << 15)] = t;
    return;
  }
  const table = mode === 'arm' ? templates.arm : templates.thumb32[(at & 2) >>> 1]!;
  if (table.size >= MAX_TEMPLATES) table.clear();
  table.set(enc | 0, t);
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
function branchFamily(enc: number, mode: ArmMode, size: number): BranchFamily | null {
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
function keepFamily(
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
function fromFamily(
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
function thumbOperandFamily(h: number): OperandFamily | null {
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
function keepOperandFamily(
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
function fromOperandFamily(
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

/** The same answer as decodeWindow, straight from Capstone (no templates): the reference in tests. */
export async function decodeWindowDirect(
  ...[bytes, address, mode, processor, maxInstructions]: Parameters<typeof decodeWindow>
): Promise<DecodeWindowResult> {
  checkWindow(bytes, address, mode, processor, maxInstructions);
  const engine = await capstoneEngine();
  const instructions: DecodedInstruction[] = [];
  let rejected: { reason: 'architecture' | 'undecodable'; address: number } | null = null;
  const run = engine.run(mode, bytes, address, maxInstructions, (raw) => {
    const offset = raw.address - address;
    const refusal = refusalOf(raw, mode, processor, bytes.subarray(offset, offset + raw.size));
    if (refusal !== null) {
      rejected = { reason: refusal, address: raw.address };
      return false;
    }
    instructions.push(classify(raw, mode, bytes.subarray(offset, offset + raw.size)));
    return true;
  });
  if (rejected !== null) return { instructions, stop: rejected };
  if (!run.failed) {
    // Ran out of instructions or bytes. Trailing bytes too short for any instruction are a cut.
    const left = bytes.length - run.consumed;
    const minimum = mode === 'arm' ? 4 : 2;
    if (instructions.length < maxInstructions && left > 0 && left < minimum) {
      return { instructions, stop: { reason: 'truncated-instruction', address: address + run.consumed } };
    }
    return { instructions, stop: null };
  }
  const at = address + run.consumed;
  if (run.itBlock) return { instructions, stop: { reason: 'architecture', address: at } };
  const left = bytes.length - run.consumed;
  const truncated =
    left < (mode === 'arm' ? 4 : 2) ||
    (mode === 'thumb' && left < 4 && isThumb32Prefix(u16(bytes, run.consumed)));
  return { instructions, stop: { reason: truncated ? 'truncated-instruction' : 'undecodable', address: at } };
}

function checkWindow(
  bytes: Uint8Array,
  address: number,
  mode: ArmMode,
  processor: Processor,
  maxInstructions: number,
): void {
  if (mode !== 'arm' && mode !== 'thumb')
    throw new ReMcpError('invalid-argument', `unknown mode ${String(mode)}`);
  if (processor !== 'arm9' && processor !== 'arm7') {
    throw new ReMcpError('invalid-argument', `unknown processor ${String(processor)}`);
  }
  if (!Number.isInteger(address) || address < 0 || address + bytes.length > 0x1_0000_0000) {
    throw new ReMcpError('invalid-argument', 'the window must lie inside the 32-bit address space');
  }
  const alignment = mode === 'arm' ? 4 : 2;
  if (address % alignment !== 0) {
    throw new ReMcpError(
      'invalid-argument',
      `${mode} code must start ${alignment}-byte aligned; 0x${address.toString(16)} is not (never rounded)`,
    );
  }
  if (
    !Number.isInteger(maxInstructions) ||
    maxInstructions < 0 ||
    maxInstructions > MAX_WINDOW_INSTRUCTIONS
  ) {
    throw new ReMcpError(
      'invalid-argument',
      `maxInstructions must be an integer in 0..${MAX_WINDOW_INSTRUCTIONS}`,
    );
  }
}

// Instruction templates. What Capstone and classify() say about an encoding depends on its bytes,
// the mode and the processor, and on its address only through the PC: a direct target and a
// PC-relative address are the address plus a constant (Thumb literal loads, ADR and BLX label use
// Align(PC, 4), so Thumb templates are kept per address bit 1), and operand text that names such an
// address. A template holds the answer at one address and the constant; an answer whose text names
// an address other than through those fields is kept as not portable (Capstone decodes it again
// elsewhere). The derivation is checked against Capstone at many addresses in the tests.

interface TextAddress {
  field: 'target' | 'pc-relative';
  form: 'hex' | 'capstone';
}

interface Template {
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
const MAX_TEMPLATES = 1 << 17;

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

function templatesFor(processor: Processor): TemplateTables {
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

/**
 * The template of the encoding `own` (one instruction's bytes by the length rule) at `at`: the answer of
 * decodeWindowDirect(own, at, mode, processor, 1), taken from one engine.first().
 */
function decodeOne(
  engine: CapstoneEngine,
  own: Uint8Array,
  at: number,
  mode: ArmMode,
  processor: Processor,
): Template {
  checkWindow(own, at, mode, processor, 1);
  // A Thumb IT halfword (refused before Capstone, as in run()) or Capstone's refusal: full bytes were
  // given, so a truncation cannot happen here.
  if (mode === 'thumb' && firstThumbIt(own, 0, own.length) === 0)
    return refused(at, own.length, 'architecture');
  const raw = engine.first(mode, own, at);
  if (raw === null) return refused(at, own.length, 'undecodable');
  const bytes = raw.size === own.length ? own : own.subarray(0, raw.size);
  const refusal = refusalOf(raw, mode, processor, bytes);
  if (refusal !== null) return refused(at, own.length, refusal);
  const ins = classify(raw, mode, bytes);
  // Capstone's own immediates, but classify() prints the Thumb ADR address always in hexadecimal.
  const { target, pcRelative, operands } = ins;
  const adr = mode === 'thumb' && pcRelative?.kind === 'pc-relative-address';
  const textAddress: TextAddress | null =
    target !== undefined && operands.endsWith(immediate(target))
      ? TARGET_TEXT
      : pcRelative !== undefined &&
          operands.endsWith(adr ? `#0x${pcRelative.address.toString(16)}` : immediate(pcRelative.address))
        ? adr
          ? PC_RELATIVE_HEX_TEXT
          : PC_RELATIVE_TEXT
        : null;
  // Any other hexadecimal number in the text is checked to be no address: a portable answer may not
  // print the address it was decoded at in a form the derivation does not rewrite.
  const rest = textAddress === null ? operands : operands.slice(0, operands.lastIndexOf('#'));
  const mentions =
    (target !== undefined && target > 0xffff && rest.includes(target.toString(16))) ||
    (pcRelative !== undefined &&
      pcRelative.address > 0xffff &&
      rest.includes(pcRelative.address.toString(16)));
  return { base: at, size: ins.size, refusal: null, ins, textAddress, portable: !mentions };
}

const TARGET_TEXT: TextAddress = { field: 'target', form: 'capstone' };
const PC_RELATIVE_TEXT: TextAddress = { field: 'pc-relative', form: 'capstone' };
const PC_RELATIVE_HEX_TEXT: TextAddress = { field: 'pc-relative', form: 'hex' };

const refused = (at: number, size: number, refusal: 'architecture' | 'undecodable'): Template => ({
  base: at,
  size,
  refusal,
  ins: null,
  textAddress: null,
  portable: true,
});

/** An immediate as Capstone prints one: decimal up to 9, hexadecimal above. */
const immediate = (value: number): string => (value > 9 ? `#0x${value.toString(16)}` : `#${value}`);

function instantiate(t: Template, at: number): DecodedInstruction {
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

export type { ArmMode, DecodedInstruction, DecodeWindowResult } from './types.js';
