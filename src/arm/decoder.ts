// The narrow decoder interface the rest of re-mcp uses: decode one bounded window of ARM or Thumb
// code for one DS processor. Capstone is loaded on first call, never at import time, so the server
// starts without paying for its WASM.
import { ReMcpError } from '../core/errors.js';
import type { Processor } from '../core/vocabulary.js';
import { i32, u16 } from '../formats/le.js';
import { type CapstoneEngine, capstoneEngine, capstoneEngineIfLoaded, firstThumbIt } from './capstone.js';
import { classify, hex, refusalOf } from './classify.js';
import {
  branchFamily,
  fromFamily,
  fromOperandFamily,
  immediate,
  instantiate,
  keepFamily,
  keepOperandFamily,
  MAX_TEMPLATES,
  PC_RELATIVE_HEX_TEXT,
  PC_RELATIVE_TEXT,
  refused,
  TARGET_TEXT,
  type Template,
  type TextAddress,
  templatesFor,
  thumbOperandFamily,
} from './decoder-templates.js';
import type { ArmMode, DecodedInstruction, DecodeWindowResult } from './types.js';

/** Hard ceiling per call, far above every tool limit: keeps a single call's work bounded. */
const MAX_WINDOW_INSTRUCTIONS = 65_536;

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
async function decodeRange(
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
export function decodeRangeNow(
  bytes: Uint8Array,
  start: number,
  end: number,
  address: number,
  mode: ArmMode,
  processor: Processor,
  max: number,
  untilFlow = false,
): DecodeWindowResult {
  const engine = capstoneEngineIfLoaded();
  if (engine === undefined)
    throw new ReMcpError('internal-error', 'the ARM decoder is not loaded yet (loadDecoder first)');
  return decodeWith(engine, bytes, start, end, address, mode, processor, max, untilFlow);
}

/**
 * decodeRange's work with a loaded engine (its arguments as decodeRange takes them). Plain parameters,
 * not a rest list: a map decodes 10^5 runs, and destructuring makes objects per call until optimized.
 */
function decodeWith(
  engine: CapstoneEngine,
  bytes: Uint8Array,
  start: number,
  end: number,
  address: number,
  mode: ArmMode,
  processor: Processor,
  max: number,
  untilFlow: boolean,
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
