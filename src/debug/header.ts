// The few NDS header fields the debugger needs before launch: each CPU's entry point and the RAM range
// its main binary is loaded to (which seeds the breakpoint allowlist). Pure; the full canonical model
// lives in src/formats/nds/, this only reads four 32-bit little-endian words per CPU.
import { ReMcpError } from '../core/errors.js';

export const NDS_HEADER_BYTES = 0x200;

export interface CpuImage {
  entry: number;
  ramAddress: number;
  size: number;
}

export interface DebugHeader {
  gameTitle: string;
  gameCode: string;
  arm9: CpuImage;
  arm7: CpuImage;
}

function u32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  let out = '';
  for (let i = at; i < at + length && bytes[i] !== 0; i++) {
    const c = bytes[i]!;
    out += c >= 0x20 && c < 0x7f ? String.fromCharCode(c) : '?';
  }
  return out;
}

function image(bytes: Uint8Array, base: number, cpu: string): CpuImage {
  const img = { entry: u32(bytes, base), ramAddress: u32(bytes, base + 4), size: u32(bytes, base + 8) };
  if (img.size === 0) throw new ReMcpError('invalid-rom', `the header gives the ${cpu} binary a size of 0`);
  if (img.ramAddress + img.size > 0x1_0000_0000) {
    throw new ReMcpError('invalid-rom', `the ${cpu} load range runs past the 32-bit address space`);
  }
  return img;
}

/** Reads ARM9 (0x24/0x28/0x2C) and ARM7 (0x34/0x38/0x3C) entry, RAM address and size. */
export function readDebugHeader(bytes: Uint8Array): DebugHeader {
  if (bytes.length < NDS_HEADER_BYTES) {
    throw new ReMcpError('invalid-rom', `an NDS ROM is at least ${NDS_HEADER_BYTES} bytes (header)`);
  }
  return {
    gameTitle: ascii(bytes, 0, 12),
    gameCode: ascii(bytes, 0x0c, 4),
    arm9: image(bytes, 0x24, 'ARM9'),
    arm7: image(bytes, 0x34, 'ARM7'),
  };
}
