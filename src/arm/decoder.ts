// The narrow decoder interface the rest of re-mcp uses: decode one bounded window of ARM or Thumb
// code for one DS processor. Capstone is loaded on first call, never at import time, so the server
// starts without paying for its WASM.
import { ReMcpError } from '../core/errors.js';
import type { Processor } from '../core/vocabulary.js';
import { capstoneEngine } from './capstone.js';
import { baseMnemonic, classify, missingArchitecture, violatesFixedBits } from './classify.js';
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
 */
export async function decodeWindow(
  bytes: Uint8Array,
  address: number,
  mode: ArmMode,
  processor: Processor,
  maxInstructions: number,
): Promise<DecodeWindowResult> {
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
  const engine = await capstoneEngine();
  const instructions: DecodedInstruction[] = [];
  let rejected: { reason: 'architecture' | 'undecodable'; address: number } | null = null;
  const run = engine.run(mode, bytes, address, maxInstructions, (raw) => {
    const offset = raw.address - address;
    const own = bytes.subarray(offset, offset + raw.size);
    // UDF is permanently undefined, and wrong fixed bits are UNPREDICTABLE: not instructions.
    if (baseMnemonic(raw) === 'udf' || violatesFixedBits(raw, mode, own)) {
      rejected = { reason: 'undecodable', address: raw.address };
      return false;
    }
    if (missingArchitecture(raw, mode, processor, own) !== null) {
      rejected = { reason: 'architecture', address: raw.address };
      return false;
    }
    instructions.push(classify(raw, mode, own));
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
    (mode === 'thumb' && left < 4 && isThumb32Prefix(bytes[run.consumed] | (bytes[run.consumed + 1] << 8)));
  return { instructions, stop: { reason: truncated ? 'truncated-instruction' : 'undecodable', address: at } };
}

export type { ArmMode, DecodedInstruction, DecodeWindowResult } from './types.js';
