// The DS input program as a whole ROM (its ARM9 from ds-input.s, an idle ARM7), for the tests that run
// it under RetroArch's DS core.
import { readFileSync } from 'node:fs';
import { loadArmProgram } from '../arm/index.js';
import { buildRom } from '../rom-builder.js';
import { DS_INPUT_ARM9 } from './roms.js';

export function dsInputRom(): Uint8Array {
  const idle = loadArmProgram('arm7-idle');
  return buildRom({
    arm9: { code: new Uint8Array(readFileSync(DS_INPUT_ARM9)), ramAddress: 0x02000000, entry: 0x02000000 },
    arm7: { code: idle.bytes, ramAddress: idle.loadAddress, entry: idle.entry },
  }).bytes;
}
