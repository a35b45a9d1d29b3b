// Pure call-instruction facts for step-over, step-out and the Thumb BL pair: which instruction at a PC
// is a call, where it returns to, and whether a PC sits between the two halves of a Thumb BL/BLX.
//
// A Thumb BL/BLX with an immediate is two 16-bit instructions: a prefix 11110 (LR = PC + high offset)
// and a suffix 11111 (BL) or 11101 (BLX). The ARM9 executes them as two instructions, so a single step
// from the prefix stops on the suffix, "inside" the call instruction.
import { u16, u32 } from '../formats/le.js';

type CallKind =
  | 'arm-bl'
  | 'arm-blx-immediate'
  | 'arm-blx-register'
  | 'thumb-bl-pair'
  | 'thumb-bl-suffix'
  | 'thumb-blx-register';

export interface CallSite {
  kind: CallKind;
  /** Where execution continues after the call returns. */
  returnAddress: number;
  /** The return lands in the caller's state. */
  returnThumb: boolean;
}

const isThumbBlPrefix = (h: number): boolean => (h & 0xf800) === 0xf000;
const isThumbBlSuffix = (h: number): boolean => (h & 0xf800) === 0xf800 || (h & 0xf800) === 0xe800;

/**
 * The call at `pc`, or null. `bytes` holds memory from `pc` (at least 4 bytes); for Thumb, `before`
 * is the halfword at pc - 2 (null when unknown) so that a stop on a suffix is recognised.
 */
export function callAt(
  pc: number,
  thumb: boolean,
  bytes: Uint8Array,
  before: number | null,
): CallSite | null {
  if (thumb) {
    const h0 = u16(bytes, 0);
    const h1 = u16(bytes, 2);
    if (isThumbBlPrefix(h0) && isThumbBlSuffix(h1)) {
      return { kind: 'thumb-bl-pair', returnAddress: pc + 4, returnThumb: true };
    }
    if (isThumbBlSuffix(h0) && before !== null && isThumbBlPrefix(before)) {
      return { kind: 'thumb-bl-suffix', returnAddress: pc + 2, returnThumb: true };
    }
    if ((h0 & 0xff87) === 0x4780)
      return { kind: 'thumb-blx-register', returnAddress: pc + 2, returnThumb: true };
    return null;
  }
  const w = u32(bytes, 0);
  const cond = w >>> 28;
  if (cond === 0xf && (w & 0x0e00_0000) === 0x0a00_0000) {
    return { kind: 'arm-blx-immediate', returnAddress: pc + 4, returnThumb: false };
  }
  if (cond !== 0xf && (w & 0x0f00_0000) === 0x0b00_0000) {
    return { kind: 'arm-bl', returnAddress: pc + 4, returnThumb: false };
  }
  if (cond !== 0xf && (w & 0x0fff_fff0) === 0x012f_ff30) {
    return { kind: 'arm-blx-register', returnAddress: pc + 4, returnThumb: false };
  }
  return null;
}

/** True when a Thumb PC sits on a BL/BLX suffix right after its prefix (halfwords at pc - 2 and pc). */
export function isMidThumbBlPair(thumb: boolean, before: number | null, at: number): boolean {
  return thumb && before !== null && isThumbBlPrefix(before) && isThumbBlSuffix(at);
}
