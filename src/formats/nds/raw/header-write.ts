// Header writer: puts every field parseRawHeader reads back at its offset, over a base copy of the
// header bytes (fields the reader does not decode — card control, logo, reserved, debug — are carried
// from the base unchanged). CRCs are written as given; sealHeaderCrcs recomputes them after an edit.
import { crc16Modbus } from '../../crc16.js';
import type { RawHeader, RawProgramEntry, RawTableRegion } from './header.js';
import { HEADER_BASE_SIZE, HEADER_CRC_END, LOGO_END, LOGO_START } from './header.js';
import { putU16, putU32 } from './le.js';

function program(out: Uint8Array, at: number, p: RawProgramEntry): void {
  putU32(out, at, p.romOffset);
  putU32(out, at + 4, p.entryAddress);
  putU32(out, at + 8, p.ramAddress);
  putU32(out, at + 12, p.size);
}

function region(out: Uint8Array, at: number, r: RawTableRegion): void {
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
  program(out, 0x20, h.arm9);
  program(out, 0x30, h.arm7);
  region(out, 0x40, h.fnt);
  region(out, 0x48, h.fat);
  region(out, 0x50, h.arm9OverlayTable);
  region(out, 0x58, h.arm7OverlayTable);
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
    program(out, 0x1c0, d.arm9i);
    putU32(out, 0x1d0, d.arm7i.romOffset);
    putU32(out, 0x1d4, d.arm7iDeviceListAddress);
    putU32(out, 0x1d8, d.arm7i.ramAddress);
    putU32(out, 0x1dc, d.arm7i.size);
    region(out, 0x1e0, d.digestNtrRegion);
    region(out, 0x1e8, d.digestTwlRegion);
    putU32(out, 0x208, d.bannerSize);
    putU32(out, 0x210, d.totalUsedSize);
    region(out, 0x220, d.modcryptAreas[0]);
    region(out, 0x228, d.modcryptAreas[1]);
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

/** Secure-area CRC-16 (header 0x6C) over ROM 0x4000..0x7FFF. */
export function secureAreaCrc(secureArea: Uint8Array): number {
  return crc16Modbus(secureArea);
}
