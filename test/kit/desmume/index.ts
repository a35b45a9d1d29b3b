// DeSmuME test kit: the live-debug ROM built from the real compiled ARM programs, and the process
// accounting every DeSmuME suite uses in its teardown (no emulator may outlive a test run).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ArmProgram, armSymbol, loadArmProgram } from '../arm/index.js';
import { writeRomFile } from '../rom-builder.js';

export const DESMUME_CLI = '/usr/games/desmume-cli';

export interface DebugTargetRom {
  path: string;
  arm9: ArmProgram;
  arm7: ArmProgram;
  /** Run-time addresses from the ARM kit manifest. */
  symbols: {
    start: number;
    debugLoop: number;
    armIncrement: number;
    thumbIncrement: number;
    /** Thumb: push {lr}; bl debug_thumb_increment (a BL pair at +2); pop {pc}. */
    thumbCaller: number;
    /** ARM `mov r0, r0` that _start overwrites in RAM with `mov r1, r1` (never executed). */
    patchSite: number;
    counterArm: number;
    counterThumb: number;
    arm7Loop: number;
  };
}

/** Writes an NDS ROM whose ARM9 is `arm9-debug-target` and ARM7 is `arm7-idle` to `path`. */
export function writeDebugTargetRom(path: string): DebugTargetRom {
  const arm9 = loadArmProgram('arm9-debug-target');
  const arm7 = loadArmProgram('arm7-idle');
  writeRomFile(
    {
      title: 'REMCPDEBUG',
      gameCode: 'RMDT',
      arm9: { code: arm9.bytes, ramAddress: arm9.loadAddress, entry: arm9.entry },
      arm7: { code: arm7.bytes, ramAddress: arm7.loadAddress, entry: arm7.entry },
    },
    path,
  );
  return {
    path,
    arm9,
    arm7,
    symbols: {
      start: armSymbol(arm9, '_start').address,
      debugLoop: armSymbol(arm9, 'debug_loop').address,
      armIncrement: armSymbol(arm9, 'debug_arm_increment').address,
      thumbIncrement: armSymbol(arm9, 'debug_thumb_increment').address,
      thumbCaller: armSymbol(arm9, 'debug_thumb_caller').address,
      patchSite: armSymbol(arm9, 'debug_patch_site').address,
      counterArm: armSymbol(arm9, 'counter_arm').address,
      counterThumb: armSymbol(arm9, 'counter_thumb').address,
      arm7Loop: armSymbol(arm7, 'arm7_idle_loop').address,
    },
  };
}

/** Pids of live DeSmuME processes whose command line mentions `marker` (e.g. a test's temp dir). */
export function desmumeProcesses(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(join('/proc', entry, 'cmdline'), 'utf8').split('\0');
      const stat = readFileSync(join('/proc', entry, 'stat'), 'utf8');
      if (/\) Z /.test(stat)) continue; // a zombie is dead already, waiting to be reaped
      if (cmdline.some((a) => a.includes('desmume')) && cmdline.some((a) => a.includes(marker))) {
        found.push(Number(entry));
      }
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

/** SIGKILLs whatever `desmumeProcesses(marker)` finds: the last line of defence in a teardown. */
export function killDesmumeProcesses(marker: string): number[] {
  const pids = desmumeProcesses(marker);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  return pids;
}
