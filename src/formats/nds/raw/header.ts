// Byte-exact reader and writer of the NDS cartridge header (0x000..0x1FF) and, for DSi-aware unit
// codes, the extended header fields (0x180..0x23F). Values are reported as stored; judging them is the
// model's job. The writer puts every field the reader decodes back at its offset, over a base copy of
// the header bytes: the fields the reader does not decode (card control, logo, reserved, debug) are
// carried from the base unchanged. CRCs are written as given; sealHeaderCrcs recomputes them after an
// edit.
import { crc16Modbus } from '../../crc16.js';
import { putU16, putU32, u16, u32 } from '../../le.js';

export const HEADER_BASE_SIZE = 0x200;
/** The DSi extended fields read here end at 0x240 (title ID at 0x230). */
export const DSI_HEADER_READ_END = 0x240;
const LOGO_START = 0xc0;
const LOGO_END = 0x15c;
const HEADER_CRC_END = 0x15e;
/** CRC-16 of the genuine Nintendo logo bitmap. */
export const NINTENDO_LOGO_CRC = 0xcf56;

export interface RawProgramEntry {
  romOffset: number;
  entryAddress: number;
  ramAddress: number;
  size: number;
}

export interface RawTableRegion {
  offset: number;
  size: number;
}

export interface RawDsiHeader {
  arm9i: RawProgramEntry;
  arm7i: RawProgramEntry;
  /** 0x1D4: ARM7 RAM address of the SD/MMC device list (stored in the ARM7i entry slot). */
  arm7iDeviceListAddress: number;
  digestNtrRegion: RawTableRegion;
  digestTwlRegion: RawTableRegion;
  bannerSize: number;
  /** 0x210: total used ROM size including the DSi area. */
  totalUsedSize: number;
  /** 0x220 / 0x228: the two modcrypt (AES-CTR) areas as ROM offset + size; size 0 = unused. */
  modcryptAreas: [RawTableRegion, RawTableRegion];
  titleIdLow: number;
  titleIdHigh: number;
}

export interface RawHeader {
  titleBytes: Uint8Array;
  gameCode: string;
  makerCode: string;
  unitCode: number;
  encryptionSeedSelect: number;
  deviceCapacity: number;
  romVersion: number;
  autostart: number;
  arm9: RawProgramEntry;
  arm7: RawProgramEntry;
  fnt: RawTableRegion;
  fat: RawTableRegion;
  arm9OverlayTable: RawTableRegion;
  arm7OverlayTable: RawTableRegion;
  bannerOffset: number;
  secureAreaCrc: number;
  arm9AutoloadHook: number;
  arm7AutoloadHook: number;
  usedRomSize: number;
  headerSize: number;
  /** 0x88: stored value only; devkitARM writes junk here, so it is never used to locate anything. */
  arm9ParamsOffsetField: number;
  logoCrcStored: number;
  logoCrcComputed: number;
  headerCrcStored: number;
  headerCrcComputed: number;
  dsi: RawDsiHeader | null;
}

function program(bytes: Uint8Array, at: number): RawProgramEntry {
  return {
    romOffset: u32(bytes, at),
    entryAddress: u32(bytes, at + 4),
    ramAddress: u32(bytes, at + 8),
    size: u32(bytes, at + 12),
  };
}

function region(bytes: Uint8Array, at: number): RawTableRegion {
  return { offset: u32(bytes, at), size: u32(bytes, at + 4) };
}

/** Codes are kept byte-exact as Latin-1 so any byte value survives (homebrew often has zeros). */
export function latin1(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]!);
  return text;
}

/** Unit codes 2 (NDS+DSi) and 3 (DSi only) carry the extended header. */
function isDsiUnitCode(unitCode: number): boolean {
  return unitCode === 2 || unitCode === 3;
}

/**
 * Parses the header from `bytes` (at least 0x200 bytes; 0x240 when the DSi fields should be read).
 * The DSi block is read only when the unit code asks for it and the bytes are there.
 */
export function parseRawHeader(bytes: Uint8Array): RawHeader {
  const unitCode = bytes[0x12]!;
  const dsi =
    isDsiUnitCode(unitCode) && bytes.length >= DSI_HEADER_READ_END
      ? {
          arm9i: program(bytes, 0x1c0),
          arm7i: { ...program(bytes, 0x1d0), entryAddress: 0 },
          arm7iDeviceListAddress: u32(bytes, 0x1d4),
          digestNtrRegion: region(bytes, 0x1e0),
          digestTwlRegion: region(bytes, 0x1e8),
          bannerSize: u32(bytes, 0x208),
          totalUsedSize: u32(bytes, 0x210),
          modcryptAreas: [region(bytes, 0x220), region(bytes, 0x228)] as [RawTableRegion, RawTableRegion],
          titleIdLow: u32(bytes, 0x230),
          titleIdHigh: u32(bytes, 0x234),
        }
      : null;
  return {
    titleBytes: bytes.slice(0, 12),
    gameCode: latin1(bytes.subarray(0x0c, 0x10)),
    makerCode: latin1(bytes.subarray(0x10, 0x12)),
    unitCode,
    encryptionSeedSelect: bytes[0x13]!,
    deviceCapacity: bytes[0x14]!,
    romVersion: bytes[0x1e]!,
    autostart: bytes[0x1f]!,
    arm9: program(bytes, 0x20),
    arm7: program(bytes, 0x30),
    fnt: region(bytes, 0x40),
    fat: region(bytes, 0x48),
    arm9OverlayTable: region(bytes, 0x50),
    arm7OverlayTable: region(bytes, 0x58),
    bannerOffset: u32(bytes, 0x68),
    secureAreaCrc: u16(bytes, 0x6c),
    arm9AutoloadHook: u32(bytes, 0x70),
    arm7AutoloadHook: u32(bytes, 0x74),
    usedRomSize: u32(bytes, 0x80),
    headerSize: u32(bytes, 0x84),
    arm9ParamsOffsetField: u32(bytes, 0x88),
    logoCrcStored: u16(bytes, LOGO_END),
    logoCrcComputed: crc16Modbus(bytes.subarray(LOGO_START, LOGO_END)),
    headerCrcStored: u16(bytes, HEADER_CRC_END),
    headerCrcComputed: crc16Modbus(bytes.subarray(0, HEADER_CRC_END)),
    dsi,
  };
}

/** Named byte regions of the header, for ROM-offset classification ([start, end) pairs). */
export const HEADER_FIELD_REGIONS: ReadonlyArray<readonly [number, number, string]> = [
  [0x00, 0x0c, 'title'],
  [0x0c, 0x10, 'gameCode'],
  [0x10, 0x12, 'makerCode'],
  [0x12, 0x13, 'unitCode'],
  [0x13, 0x14, 'encryptionSeedSelect'],
  [0x14, 0x15, 'deviceCapacity'],
  [0x15, 0x1e, 'reserved'],
  [0x1e, 0x1f, 'romVersion'],
  [0x1f, 0x20, 'autostart'],
  // One name per field: the 0x20-0x3F blocks hold four words each, the table regions two.
  [0x20, 0x24, 'arm9RomOffset'],
  [0x24, 0x28, 'arm9EntryAddress'],
  [0x28, 0x2c, 'arm9RamAddress'],
  [0x2c, 0x30, 'arm9Size'],
  [0x30, 0x34, 'arm7RomOffset'],
  [0x34, 0x38, 'arm7EntryAddress'],
  [0x38, 0x3c, 'arm7RamAddress'],
  [0x3c, 0x40, 'arm7Size'],
  [0x40, 0x44, 'fntOffset'],
  [0x44, 0x48, 'fntSize'],
  [0x48, 0x4c, 'fatOffset'],
  [0x4c, 0x50, 'fatSize'],
  [0x50, 0x54, 'arm9OverlayTableOffset'],
  [0x54, 0x58, 'arm9OverlayTableSize'],
  [0x58, 0x5c, 'arm7OverlayTableOffset'],
  [0x5c, 0x60, 'arm7OverlayTableSize'],
  [0x60, 0x64, 'cardControlNormal'],
  [0x64, 0x68, 'cardControlKey1'],
  [0x68, 0x6c, 'bannerOffset'],
  [0x6c, 0x6e, 'secureAreaCrc'],
  [0x6e, 0x70, 'secureAreaDelay'],
  [0x70, 0x78, 'autoloadHooks'],
  [0x78, 0x80, 'secureAreaDisable'],
  [0x80, 0x84, 'usedRomSize'],
  [0x84, 0x88, 'headerSize'],
  [0x88, 0xc0, 'reserved'],
  [0xc0, 0x15c, 'logo'],
  [0x15c, 0x15e, 'logoCrc'],
  [0x15e, 0x160, 'headerCrc'],
  [0x160, 0x180, 'debug'],
  [0x180, 0x200, 'dsiExtended'],
];

function putProgram(out: Uint8Array, at: number, p: RawProgramEntry): void {
  putU32(out, at, p.romOffset);
  putU32(out, at + 4, p.entryAddress);
  putU32(out, at + 8, p.ramAddress);
  putU32(out, at + 12, p.size);
}

function putRegion(out: Uint8Array, at: number, r: RawTableRegion): void {
  putU32(out, at, r.offset);
  putU32(out, at + 4, r.size);
}

function latin1Into(out: Uint8Array, at: number, text: string, length: number): void {
  for (let i = 0; i < length; i++) out[at + i] = i < text.length ? text.charCodeAt(i) & 0xff : 0;
}

/** A copy of `base` (at least 0x200 bytes) with every decoded field of `h` written back. */
export function writeRawHeader(base: Uint8Array, h: RawHeader): Uint8Array {
  if (base.length < HEADER_BASE_SIZE) throw new RangeError('a header base is at least 0x200 bytes');
  const out = base.slice();
  out.set(h.titleBytes.subarray(0, 12), 0);
  latin1Into(out, 0x0c, h.gameCode, 4);
  latin1Into(out, 0x10, h.makerCode, 2);
  out[0x12] = h.unitCode;
  out[0x13] = h.encryptionSeedSelect;
  out[0x14] = h.deviceCapacity;
  out[0x1e] = h.romVersion;
  out[0x1f] = h.autostart;
  putProgram(out, 0x20, h.arm9);
  putProgram(out, 0x30, h.arm7);
  putRegion(out, 0x40, h.fnt);
  putRegion(out, 0x48, h.fat);
  putRegion(out, 0x50, h.arm9OverlayTable);
  putRegion(out, 0x58, h.arm7OverlayTable);
  putU32(out, 0x68, h.bannerOffset);
  putU16(out, 0x6c, h.secureAreaCrc);
  putU32(out, 0x70, h.arm9AutoloadHook);
  putU32(out, 0x74, h.arm7AutoloadHook);
  putU32(out, 0x80, h.usedRomSize);
  putU32(out, 0x84, h.headerSize);
  putU32(out, 0x88, h.arm9ParamsOffsetField);
  putU16(out, LOGO_END, h.logoCrcStored);
  putU16(out, HEADER_CRC_END, h.headerCrcStored);
  if (h.dsi !== null && out.length >= 0x240) {
    const d = h.dsi;
    putProgram(out, 0x1c0, d.arm9i);
    putU32(out, 0x1d0, d.arm7i.romOffset);
    putU32(out, 0x1d4, d.arm7iDeviceListAddress);
    putU32(out, 0x1d8, d.arm7i.ramAddress);
    putU32(out, 0x1dc, d.arm7i.size);
    putRegion(out, 0x1e0, d.digestNtrRegion);
    putRegion(out, 0x1e8, d.digestTwlRegion);
    putU32(out, 0x208, d.bannerSize);
    putU32(out, 0x210, d.totalUsedSize);
    putRegion(out, 0x220, d.modcryptAreas[0]);
    putRegion(out, 0x228, d.modcryptAreas[1]);
    putU32(out, 0x230, d.titleIdLow);
    putU32(out, 0x234, d.titleIdHigh);
  }
  return out;
}

/** Recomputes the logo and header CRC-16 in place (the header CRC covers the logo CRC, so logo first). */
export function sealHeaderCrcs(header: Uint8Array): void {
  putU16(header, LOGO_END, crc16Modbus(header.subarray(LOGO_START, LOGO_END)));
  putU16(header, HEADER_CRC_END, crc16Modbus(header.subarray(0, HEADER_CRC_END)));
}
