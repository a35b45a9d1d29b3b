// Shared synthetic ROM specs for the NDS model tests (builder inputs; expectations come from the
// builder's layout).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARM_KIT_BUILD_DIR } from '../../kit/arm/index.js';
import type { RomSpec } from '../../kit/rom-builder.js';

// Real compiled code (the kit's realistic programs, committed in the repository).
export const code9 = new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, 'arm9-program.bin')));
export const code7 = new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, 'arm7-program.bin')));
export const OV = 0x02200000;
export const ITCM = 0x01ff8000;
export const DTCM = 0x027e0000;

export const fullSpec: RomSpec = {
  arm9: {
    code: code9.subarray(0, 0x6000),
    moduleParams: {
      autoloads: [
        { ramAddress: ITCM, data: code9.subarray(0x100, 0x300), bssSize: 0x40 },
        { ramAddress: DTCM, data: code9.subarray(0x300, 0x380), bssSize: 0x200 },
      ],
    },
  },
  arm7: { code: code7.subarray(0, 0x3000), ramAddress: 0x037f8000 },
  files: [
    { path: 'data/level/one.bin', data: { length: 3000, seed: 1 } },
    { path: 'data/empty.bin', data: new Uint8Array(0) },
    { path: 'readme.txt', data: new TextEncoder().encode('hello') },
    { path: 'alias.txt', sameAs: 'readme.txt' },
    { path: 'data/level/two.bin', data: { length: 10, seed: 2 } },
    { path: null, data: { length: 77, seed: 3 } },
    { path: null, data: new Uint8Array(0) },
  ],
  arm9Overlays: [
    { id: 0, ramAddress: OV, data: code9.subarray(0x1000, 0x2000), bssSize: 0x3000 },
    { id: 1, ramAddress: OV, data: code9.subarray(0x2000, 0x4000), compress: true, bssSize: 0x10 },
    { id: 2, ramAddress: OV + 0x10000, data: code9.subarray(0x4000, 0x4100), ramSize: 0x180 },
  ],
  arm7Overlays: [
    { id: 0, ramAddress: 0x03800000, data: code7.subarray(0, 0x400) },
    { id: 1, ramAddress: 0x03800200, data: code7.subarray(0x400, 0x600), bssSize: 0x20 },
  ],
  usedPadding: 0x200,
};
