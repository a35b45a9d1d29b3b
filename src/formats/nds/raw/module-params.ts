// ARM9 module params (nine u32 ending in two magic words) and the 12-byte "nitrocode" footer that
// follows the ARM9 in the ROM and points at them. Both are parsed as stored; validation is separate.
// The writers are the readers' inverses; they write the magic words as the format defines them (a
// record whose magic was wrong is not reproduced: the rebuild never writes an invalid record).
import { putU32, u32 } from '../../le.js';

export const NITROCODE = 0xdec00621;
export const NITROCODE_SWAPPED = 0x2106c0de;
export const MODULE_PARAMS_SIZE = 36;
export const NITROCODE_FOOTER_SIZE = 12;
export const AUTOLOAD_ENTRY_SIZE = 12;

export interface RawModuleParams {
  autoloadListStart: number;
  autoloadListEnd: number;
  autoloadDataStart: number;
  bssStart: number;
  bssEnd: number;
  /** RAM address of the end of the BLZ-compressed image; 0 when the ARM9 is not compressed. */
  compressedStaticEnd: number;
  sdkVersion: number;
  magicOk: boolean;
}

interface RawNitrocodeFooter {
  magicOk: boolean;
  moduleParamsOffset: number;
  overlaySignaturesOffset: number;
}

interface RawAutoloadEntry {
  ramAddress: number;
  codeSize: number;
  bssSize: number;
}

export function parseRawModuleParams(bytes: Uint8Array): RawModuleParams {
  return {
    autoloadListStart: u32(bytes, 0),
    autoloadListEnd: u32(bytes, 4),
    autoloadDataStart: u32(bytes, 8),
    bssStart: u32(bytes, 12),
    bssEnd: u32(bytes, 16),
    compressedStaticEnd: u32(bytes, 20),
    sdkVersion: u32(bytes, 24),
    magicOk: u32(bytes, 28) === NITROCODE && u32(bytes, 32) === NITROCODE_SWAPPED,
  };
}

export function parseRawNitrocodeFooter(bytes: Uint8Array): RawNitrocodeFooter {
  return {
    magicOk: u32(bytes, 0) === NITROCODE,
    moduleParamsOffset: u32(bytes, 4),
    overlaySignaturesOffset: u32(bytes, 8),
  };
}

export function parseRawAutoloadList(bytes: Uint8Array): RawAutoloadEntry[] {
  const count = Math.floor(bytes.length / AUTOLOAD_ENTRY_SIZE);
  const entries: RawAutoloadEntry[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const at = i * AUTOLOAD_ENTRY_SIZE;
    entries[i] = { ramAddress: u32(bytes, at), codeSize: u32(bytes, at + 4), bssSize: u32(bytes, at + 8) };
  }
  return entries;
}

export function writeRawModuleParams(p: RawModuleParams): Uint8Array {
  const out = new Uint8Array(MODULE_PARAMS_SIZE);
  putU32(out, 0, p.autoloadListStart);
  putU32(out, 4, p.autoloadListEnd);
  putU32(out, 8, p.autoloadDataStart);
  putU32(out, 12, p.bssStart);
  putU32(out, 16, p.bssEnd);
  putU32(out, 20, p.compressedStaticEnd);
  putU32(out, 24, p.sdkVersion);
  putU32(out, 28, NITROCODE);
  putU32(out, 32, NITROCODE_SWAPPED);
  return out;
}

export function writeRawNitrocodeFooter(f: RawNitrocodeFooter): Uint8Array {
  const out = new Uint8Array(NITROCODE_FOOTER_SIZE);
  putU32(out, 0, NITROCODE);
  putU32(out, 4, f.moduleParamsOffset);
  putU32(out, 8, f.overlaySignaturesOffset);
  return out;
}
