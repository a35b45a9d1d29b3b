// DeSmuME test kit: the live-debug ROM built from the real compiled ARM programs, and the process
// accounting every DeSmuME suite uses in its teardown (no emulator may outlive a test run).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARM_KIT_BUILD_DIR, type ArmProgram, armSymbol, loadArmProgram } from '../arm/index.js';
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

export interface OverlayTargetRom {
  path: string;
  arm9: ArmProgram;
  /** The two overlays' runtime images (the ROM's overlay files hold exactly these bytes). */
  overlays: { a: Uint8Array; b: Uint8Array };
  /** The ITCM autoload block's bytes (the ROM's autoload entry 0, run at symbols.itcmTick). */
  itcm: Uint8Array;
  /** Where the builder stored the ITCM block's bytes in the ROM; null when the ARM9 is compressed. */
  itcmRomOffset: number | null;
  /** Overlay IDs in the ROM's ARM9 overlay table. */
  ids: { a: number; b: number };
  /** Run-time addresses from the ARM kit manifest. */
  symbols: {
    mainLoop: number;
    copy: number;
    thumbTick: number;
    aEntry: number;
    /** Overlay A's helper: the same address as bWorker (the shared range). */
    aHelper: number;
    bWorker: number;
    bEntry: number;
    /** The ARM function of the ITCM autoload block (0x01ff8000), called from the main loop. */
    itcmTick: number;
  };
}

/**
 * Writes an NDS ROM whose ARM9 is `arm9-overlays` and whose ARM9 overlay table declares its two
 * overlay images (A: ID 0 at 0x02200000, B: ID 1 at 0x02200080, overlapping) with their bytes as
 * overlay files. `variant` changes one title byte only: a same-layout ROM with another SHA-256.
 * `compressB` stores overlay B BLZ-compressed (its static bytes are then the decoded image).
 * `overlayTable: false` leaves the overlays out of the ROM (the program still loads them itself): code
 * then runs in overlay RAM that no static component describes. The ARM9's module params (in the
 * program's reserved hole) declare the ITCM block as autoload entry 0, stored uncompressed unless
 * `compressArm9` stores the whole ARM9 BLZ-compressed (static analysis only: direct boot runs no
 * crt0 to decode it, so such a ROM does not run).
 */
export function writeOverlayTargetRom(
  path: string,
  variant = 0,
  options: { overlayTable?: boolean; compressB?: boolean; compressArm9?: boolean } = {},
): OverlayTargetRom {
  const arm9 = loadArmProgram('arm9-overlays');
  const arm7 = loadArmProgram('arm7-idle');
  const a = new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, 'arm9-overlays.ovl-a.bin')));
  const b = new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, 'arm9-overlays.ovl-b.bin')));
  const itcm = new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, 'arm9-overlays.itcm.bin')));
  const sym = (name: string) => armSymbol(arm9, name).address;
  const layout = writeRomFile(
    {
      title: `REMCPOVL${variant}`,
      gameCode: 'RMOV',
      arm9: {
        code: arm9.bytes,
        ramAddress: arm9.loadAddress,
        entry: arm9.entry,
        moduleParams: {
          offset: sym('ovl_module_params') - arm9.loadAddress,
          autoloads: [{ ramAddress: sym('ovl_itcm_tick'), data: itcm, bssSize: 0x20 }],
        },
        compress: options.compressArm9 === true,
      },
      arm7: { code: arm7.bytes, ramAddress: arm7.loadAddress, entry: arm7.entry },
      arm9Overlays:
        options.overlayTable === false
          ? []
          : [
              { id: 0, ramAddress: sym('ovl_a_entry'), data: a },
              { id: 1, ramAddress: sym('ovl_b_worker'), data: b, compress: options.compressB === true },
            ],
    },
    path,
  );
  return {
    path,
    arm9,
    overlays: { a, b },
    itcm,
    itcmRomOffset: layout.autoloads[0]!.romOffset,
    ids: { a: 0, b: 1 },
    symbols: {
      mainLoop: sym('ovl_main_loop'),
      copy: sym('ovl_copy'),
      thumbTick: sym('ovl_thumb_tick'),
      aEntry: sym('ovl_a_entry'),
      aHelper: sym('ovl_a_helper'),
      bWorker: sym('ovl_b_worker'),
      bEntry: sym('ovl_b_entry'),
      itcmTick: sym('ovl_itcm_tick'),
    },
  };
}

/** The three alternative overlay images of `arm9-overlay-loader` (position-independent ARM). */
export interface LoaderOverlayImages {
  /** What the ROM is built with (0x200 bytes). */
  base: Uint8Array;
  /** A larger replacement (0x600 bytes). */
  big: Uint8Array;
  /** A smaller replacement (0x80 bytes). */
  small: Uint8Array;
}

export interface OverlayLoaderRom {
  path: string;
  arm9: ArmProgram;
  images: LoaderOverlayImages;
  /** ARM9 overlay table, in table order: ID 0 stored plain, ID 1 stored BLZ-compressed; both `base`. */
  overlays: Array<{ id: number; ramAddress: number; ramSize: number; bssSize: number; compressed: boolean }>;
  symbols: {
    done: number;
    /** 32-byte result block per table entry (layout in arm9-overlay-loader.s). */
    results: number;
  };
}

/** Loads the overlay images `arm9-overlay-loader` carries (built alone by build.sh). */
export function loaderOverlayImages(): LoaderOverlayImages {
  const read = (v: string) =>
    new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, `arm9-overlay-loader.ovl-${v}.bin`)));
  return { base: read('base'), big: read('big'), small: read('small') };
}

/**
 * Writes an NDS ROM whose ARM9 is `arm9-overlay-loader`: a program that loads every ARM9 overlay the
 * table declares from the cartridge (FAT range, BLZ decoding of compressed ones, BSS zeroing) and
 * calls it. Overlay 0 (plain) runs at 0x02200000, overlay 1 (BLZ-compressed) at 0x02280000; both start
 * as the 0x200-byte `base` image with 0x600 bytes of BSS, so a replacement may grow to 0x800 bytes.
 * The header takes 0x8000 bytes: DeSmuME answers card reads below 0x8000 from the secure area, so
 * the overlay table, the FAT and the files must all lie above it.
 */
export function writeOverlayLoaderRom(path: string): OverlayLoaderRom {
  const arm9 = loadArmProgram('arm9-overlay-loader');
  const arm7 = loadArmProgram('arm7-idle');
  const images = loaderOverlayImages();
  const overlays = [
    { id: 0, ramAddress: 0x02200000, ramSize: images.base.length, bssSize: 0x600, compressed: false },
    { id: 1, ramAddress: 0x02280000, ramSize: images.base.length, bssSize: 0x600, compressed: true },
  ];
  writeRomFile(
    {
      title: 'REMCPOVLLOAD',
      gameCode: 'RMOL',
      headerSize: 0x8000,
      arm9: { code: arm9.bytes, ramAddress: arm9.loadAddress, entry: arm9.entry },
      arm7: { code: arm7.bytes, ramAddress: arm7.loadAddress, entry: arm7.entry },
      arm9Overlays: overlays.map((o) => ({
        id: o.id,
        ramAddress: o.ramAddress,
        data: images.base,
        bssSize: o.bssSize,
        compress: o.compressed,
      })),
    },
    path,
  );
  return {
    path,
    arm9,
    images,
    overlays,
    symbols: {
      done: armSymbol(arm9, 'loader_done').address,
      results: armSymbol(arm9, 'loader_results').address,
    },
  };
}

/** Edge-case overlay images of `arm9-overlay-loader` (position-independent ARM, built alone). */
export interface LoaderEdgeOverlayImages {
  /** 0x800 bytes: exactly the `base` overlay's RAM size plus BSS (its whole runtime range). */
  full: Uint8Array;
  /** 0x400 bytes whose pad is pseudo-random: BLZ coding would not make it smaller. */
  noise: Uint8Array;
}

/** Loads the edge-case overlay images `arm9-overlay-loader` carries (built alone by build.sh). */
export function loaderEdgeOverlayImages(): LoaderEdgeOverlayImages {
  const read = (v: string) =>
    new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, `arm9-overlay-loader.ovl-${v}.bin`)));
  return { full: read('full'), noise: read('noise') };
}
