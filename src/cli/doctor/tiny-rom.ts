// The doctor's built-in ROM: the smallest NDS image the parser, the search and DeSmuME accept,
// built in memory so a self-check needs no file from the user. Layout as ndstool writes it: a
// 0x4000-byte header area, the ARM9 at 0x4000, the ARM7, an FNT with one root directory holding one
// file, the FAT, then that file. Both programs are an endless `b .` after a marker word, so DeSmuME
// can run it for as long as the check needs. Everything the checks expect is exported with it.
import { crc16Modbus } from '../../formats/crc16.js';
import { putU16, putU32 } from '../../formats/le.js';

export const TINY_ROM = {
  title: 'RE-MCP DOCTR',
  gameCode: 'RDOC',
  arm9: { ramAddress: 0x02000000, entry: 0x02000000, romOffset: 0x4000 },
  arm7: { ramAddress: 0x02380000, entry: 0x02380000 },
  /** A word found exactly once in the image: the first word of the ARM9 program. */
  marker: 0xe1a0_0000, // mov r0, r0 (the ARM no-op), stored little-endian
  fileName: 'doctor.txt',
  fileText: 'written by re-mcp doctor\n',
} as const;

const LOOP = 0xeaff_fffe; // b . (ARM): branch to itself
const ALIGN = 0x200;
const align = (n: number) => Math.ceil(n / ALIGN) * ALIGN;

function program(marker: number): Uint8Array {
  const out = new Uint8Array(8);
  putU32(out, 0, marker);
  putU32(out, 4, LOOP);
  return out;
}

export function buildTinyRom(): Uint8Array {
  const arm9 = program(TINY_ROM.marker);
  // The ARM7's first word is another no-op encoding (mov r1, r1), so the marker stays unique.
  const arm7 = program(0xe1a0_1001);
  const name = new TextEncoder().encode(TINY_ROM.fileName);
  const data = new TextEncoder().encode(TINY_ROM.fileText);
  // FNT: one main-table entry (sub-table at 8, first file ID 0, one directory), then the root's
  // sub-table: a file entry (length, name) and the end byte.
  const fnt = new Uint8Array(8 + 1 + name.length + 1);
  const arm9At = TINY_ROM.arm9.romOffset;
  const arm7At = align(arm9At + arm9.length);
  const fntAt = align(arm7At + arm7.length);
  const fatAt = align(fntAt + fnt.length);
  const fileAt = align(fatAt + 8);
  const size = fileAt + data.length;
  const rom = new Uint8Array(align(size));
  const u32 = (at: number, v: number) => putU32(rom, at, v);
  putU32(fnt, 0, 8);
  putU16(fnt, 4, 0);
  putU16(fnt, 6, 1);
  fnt[8] = name.length;
  fnt.set(name, 9);

  const ascii = (text: string, at: number) => rom.set(new TextEncoder().encode(text), at);
  ascii(TINY_ROM.title, 0x00);
  ascii(TINY_ROM.gameCode, 0x0c);
  ascii('01', 0x10);
  let capacity = 0;
  while (0x20000 * 2 ** capacity < rom.length) capacity++;
  rom[0x14] = capacity;
  for (const [i, v] of [arm9At, TINY_ROM.arm9.entry, TINY_ROM.arm9.ramAddress, arm9.length].entries())
    u32(0x20 + i * 4, v);
  for (const [i, v] of [arm7At, TINY_ROM.arm7.entry, TINY_ROM.arm7.ramAddress, arm7.length].entries())
    u32(0x30 + i * 4, v);
  u32(0x40, fntAt);
  u32(0x44, fnt.length);
  u32(0x48, fatAt);
  u32(0x4c, 8);
  u32(0x80, size);
  u32(0x84, 0x4000);
  putU16(rom, 0x15c, crc16Modbus(rom.subarray(0xc0, 0x15c)));
  putU16(rom, 0x15e, crc16Modbus(rom.subarray(0, 0x15e)));

  rom.set(arm9, arm9At);
  rom.set(arm7, arm7At);
  rom.set(fnt, fntAt);
  u32(fatAt, fileAt);
  u32(fatAt + 4, fileAt + data.length);
  rom.set(data, fileAt);
  return rom.subarray(0, size);
}
