// ROMs built from the kit's realistic programs (real compiled code, committed in the repository), for
// tests that need a real program but no corpus: one valid, one with a broken header field.
import { type ArmRealisticProgram, loadArmProgram, loadProgramTruth } from './arm/index.js';
import { buildRom } from './rom-builder.js';

/**
 * A ROM of two of the kit's realistic programs: each binary loaded at its lowest load address and
 * entered at its ELF entry point (the bootstub after the secure area on arm9-calico, the load address
 * on the others).
 */
export function kitRomBytes(
  arm9: ArmRealisticProgram & `arm9-${string}`,
  arm7: ArmRealisticProgram & `arm7-${string}`,
): Uint8Array {
  const a9 = loadProgramTruth(arm9);
  const a7 = loadProgramTruth(arm7);
  return buildRom({
    arm9: { code: a9.bytes, ramAddress: a9.loadAddress, entry: a9.entry },
    arm7: { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.entry },
  }).bytes;
}

/** A ROM whose ARM9 and ARM7 are the kit's realistic programs, each entered at its load address. */
export function programRomBytes(): Uint8Array {
  return kitRomBytes('arm9-program', 'arm7-program');
}

/** programRomBytes with the ARM9 ROM offset pointing past the file: refused as invalid-rom (that field). */
export function invalidProgramRomBytes(): Uint8Array {
  const bytes = programRomBytes().slice();
  new DataView(bytes.buffer).setUint32(0x20, 0xfff00000, true);
  return bytes;
}

/** A ROM whose ARM9 is the kit's idioms fixture (arm9-idioms) and ARM7 the idle loop. */
export function idiomsRomBytes(): Uint8Array {
  const p = loadArmProgram('arm9-idioms');
  const a7 = loadArmProgram('arm7-idle');
  return buildRom({
    arm9: { code: p.bytes, ramAddress: p.loadAddress, entry: p.entry },
    arm7: { code: a7.bytes, ramAddress: a7.loadAddress, entry: a7.entry },
  }).bytes;
}
