// The committed test ROMs and the memory layout their programs produce (see gba-test.s and
// build-roms.mjs; rebuild with `node test/kit/retroarch/build-roms.mjs`).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

export const GBA_ROM = join(here, 'gba-test.gba');
export const NES_ROM = join(here, 'nes-test.nes');
/** The DS input program's ARM9 code (ds-input.s), loaded and entered at 0x02000000. */
export const DS_INPUT_ARM9 = join(here, 'ds-input.arm9.bin');

export const GBA = {
  marker: { address: 0x0200_0000, text: 'RE-MCP GBA TEST\0' },
  /** u32 LE, +1 per emulated frame. */
  frameCounter: 0x0200_0010,
  /** u16 LE: KEYINPUT as read in the last frame (a clear bit is a pressed button: A 0, B 1, SELECT 2, START 3, RIGHT 4, LEFT 5, UP 6, DOWN 7, R 8, L 9). */
  keyinput: 0x0200_0014,
  /** u32 LE: frames in which A was seen pressed; frames in which any button was. */
  framesWithA: 0x0200_0018,
  framesWithAny: 0x0200_001c,
  /** 2 KiB, byte i = (i * 7 + 3) & 0xFF, never written by the program after boot. */
  scratch: { address: 0x0200_0100, length: 2048, byte: (i: number) => (i * 7 + 3) & 0xff },
  /** Free EWRAM the program never touches. */
  free: 0x0201_0000,
  romBase: 0x0800_0000,
  ewramEnd: 0x0204_0000,
} as const;

export const NES = {
  marker: { address: 0x0300, text: 'RE-MCP-N' },
  /** u16 LE, +1 per NMI (one per frame). */
  frameCounter: 0x0010,
  /** Controller 1 as read in the last NMI: bit 7 A, 6 B, 5 SELECT, 4 START, 3 UP, 2 DOWN, 1 LEFT, 0 RIGHT. */
  pad: 0x0012,
  scratch: { address: 0x0400, length: 256, byte: (i: number) => i ^ 0x5a },
  ramSize: 0x800,
} as const;
