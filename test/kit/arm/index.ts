// Access to the committed ARM test programs (test/kit/arm/build, produced by build.sh). Tests and the
// test ROM builder read programs through here so that addresses always come from the manifest, which
// build.sh derives from the ELF symbols, never from numbers copied into a test.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ARM_KIT_DIR = dirname(fileURLToPath(import.meta.url));
export const ARM_KIT_BUILD_DIR = join(ARM_KIT_DIR, 'build');
export const ARM_KIT_BUILD_SCRIPT = join(ARM_KIT_DIR, 'build.sh');

export const ARM_PROGRAM_NAMES = [
  'arm9-analysis',
  'arm7-analysis',
  'arm9-debug-target',
  'arm9-rebuild-target',
  'arm7-idle',
  'arm9-calls',
  'arm9-overlays',
  'arm9-overlay-loader',
  'arm9-idioms',
] as const;
export type ArmProgramName = (typeof ARM_PROGRAM_NAMES)[number];

/** 'data' marks literal pools, tables and .bss objects: bytes that are not instructions. */
export type ArmSymbolMode = 'arm' | 'thumb' | 'data';

export interface ArmSymbol {
  /** Byte address at run time (Thumb symbols have bit 0 clear here). */
  address: number;
  mode: ArmSymbolMode;
}

export interface ArmRegion {
  start: number;
  /** Exclusive. */
  end: number;
  kind: ArmSymbolMode;
}

export interface ArmProgram {
  name: ArmProgramName;
  processor: 'arm9' | 'arm7';
  architecture: 'armv5te' | 'armv4t';
  /** The raw binary (objcopy -O binary): what a ROM carries, loaded at `loadAddress`. */
  bytes: Uint8Array;
  loadAddress: number;
  /** Always an ARM-mode address. */
  entry: number;
  size: number;
  sha256: string;
  /** Mapping-symbol spans ($a/$t/$d) covering the binary: ground truth for what is ARM, Thumb or data. */
  regions: ArmRegion[];
  symbols: Record<string, ArmSymbol>;
  binPath: string;
  elfPath: string;
}

interface RawProgram {
  processor: 'arm9' | 'arm7';
  architecture: 'armv5te' | 'armv4t';
  bin: string;
  elf: string;
  loadAddress: string;
  entry: string;
  size: number;
  sha256: string;
  regions: { start: string; end: string; kind: ArmSymbolMode }[];
  symbols: Record<string, { address: string; mode: ArmSymbolMode }>;
}

export interface ArmKitManifest {
  toolchain: string;
  programs: Record<ArmProgramName, RawProgram>;
}

export function readArmKitManifest(buildDir: string = ARM_KIT_BUILD_DIR): ArmKitManifest {
  return JSON.parse(readFileSync(join(buildDir, 'manifest.json'), 'utf8')) as ArmKitManifest;
}

const cache = new Map<string, ArmProgram>();

export function loadArmProgram(name: ArmProgramName, buildDir: string = ARM_KIT_BUILD_DIR): ArmProgram {
  const key = `${buildDir}\0${name}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const raw = readArmKitManifest(buildDir).programs[name];
  if (!raw) throw new Error(`no ARM kit program named ${name}`);
  const binPath = join(buildDir, raw.bin);
  const bytes = new Uint8Array(readFileSync(binPath));
  if (bytes.length !== raw.size)
    throw new Error(`${raw.bin}: ${bytes.length} bytes, manifest says ${raw.size}`);
  const symbols: Record<string, ArmSymbol> = {};
  for (const [symbol, value] of Object.entries(raw.symbols)) {
    symbols[symbol] = { address: Number.parseInt(value.address, 16), mode: value.mode };
  }
  const program: ArmProgram = {
    name,
    processor: raw.processor,
    architecture: raw.architecture,
    bytes,
    loadAddress: Number.parseInt(raw.loadAddress, 16),
    entry: Number.parseInt(raw.entry, 16),
    size: raw.size,
    sha256: raw.sha256,
    regions: raw.regions.map((r) => ({
      start: Number.parseInt(r.start, 16),
      end: Number.parseInt(r.end, 16),
      kind: r.kind,
    })),
    symbols,
    binPath,
    elfPath: join(buildDir, raw.elf),
  };
  cache.set(key, program);
  return program;
}

/** A symbol that must exist (throws with the program name otherwise, so a renamed label fails loudly). */
export function armSymbol(program: ArmProgram, symbol: string): ArmSymbol {
  const found = program.symbols[symbol];
  if (!found) throw new Error(`${program.name} has no symbol ${symbol}`);
  return found;
}

/** The bytes of [address, address + length) of a program, by run-time address. */
export function armBytesAt(program: ArmProgram, address: number, length: number): Uint8Array {
  const offset = address - program.loadAddress;
  if (offset < 0 || length < 0 || offset + length > program.size) {
    throw new Error(`${program.name}: 0x${address.toString(16)}+${length} is outside the binary`);
  }
  return program.bytes.subarray(offset, offset + length);
}

/**
 * The realistic kit programs, scored against their ELF (truth.mjs wrote `<name>.truth.json`): C and C++
 * at -O2 with newlib and libstdc++. arm9-program and arm7-program copy ITCM / their whole body with
 * constant copies; arm9-calico has the start-up layout of current devkitARM (a bootstub after the secure
 * area copies the crt0, which walks a load list; the main code runs ~16 KiB below its load address);
 * arm7-blocksds that of a BlocksDS ARM7 (a handshake copied to WRAM and called, then the body copied
 * over it); arm9-interp is a conventional layout with a 40 KB interpreter function, tail calls,
 * commands registered by address, late starts, fall-into entries, vtables and long jumps by BL;
 * arm9-revision is a later revision of arm9-program (one function changed, one added with its strings,
 * one file at another optimisation level, the rest moved) for carrying names build to build.
 */
export const ARM_REALISTIC_PROGRAMS = [
  'arm9-program',
  'arm7-program',
  'arm9-calico',
  'arm7-blocksds',
  'arm9-interp',
  'arm9-revision',
] as const;
export type ArmRealisticProgram = (typeof ARM_REALISTIC_PROGRAMS)[number];

export interface TruthFunction {
  address: number;
  mode: 'arm' | 'thumb';
  /** The ELF symbol's size (0 for assembly without `.size`). */
  size: number;
  name: string;
  /** Its extent: the size, or without one up to the next function or the end of its code run. */
  bytes: number;
  /** The data inside the extent (literal pools, switch tables): [offset, length] runs. */
  data: [number, number][];
}

export interface ProgramTruth {
  name: ArmRealisticProgram;
  processor: 'arm9' | 'arm7';
  /** The binary (objcopy -O binary: every section at its load address), loaded at loadAddress. */
  bytes: Uint8Array;
  loadAddress: number;
  /** The ELF entry point: where the header enters the binary (loadAddress except on arm9-calico). */
  entry: number;
  sections: { name: string; vma: number; lma: number; size: number; code: boolean }[];
  /** FUNC symbols at their run address; Thumb addresses with bit 0 clear. */
  functions: TruthFunction[];
  /**
   * Code labels without a FUNC type: assembly labels in a code run (`label`), and BL targets with no
   * symbol in no function (`call-target`: GCC's local `bx rN` call stubs). Name '' when there is none.
   */
  labels: { address: number; mode: 'arm' | 'thumb'; name: string; kind: 'label' | 'call-target' }[];
  /** Every BL/BLX-immediate call instruction and its target, as objdump decodes them. */
  callSites: { at: number; mode: 'arm' | 'thumb'; target: number }[];
  /** Thumb BLs GCC used as long jumps inside one function (branches, not calls). */
  longJumps: { at: number; mode: 'arm' | 'thumb'; target: number }[];
}

/** The rows of a truth file (field order in its `columns`). */
interface RawTruth {
  entry: [string];
  sections: [string, string, string, number, boolean][];
  functions: [string, 'arm' | 'thumb', number, string, number, [number, number][]][];
  labels: [string, 'arm' | 'thumb', string, 'label' | 'call-target'][];
  callSites: [string, 'arm' | 'thumb', string][];
  longJumps: [string, 'arm' | 'thumb', string][];
}

export function loadProgramTruth(name: ArmRealisticProgram, buildDir = ARM_KIT_BUILD_DIR): ProgramTruth {
  const raw = JSON.parse(readFileSync(join(buildDir, `${name}.truth.json`), 'utf8')) as RawTruth;
  const n = (s: string) => Number.parseInt(s, 16);
  const bytes = new Uint8Array(readFileSync(join(buildDir, `${name}.bin`)));
  const sections = raw.sections.map(([sec, vma, lma, size, code]) => ({
    name: sec,
    vma: n(vma),
    lma: n(lma),
    size,
    code,
  }));
  const site = ([at, mode, target]: [string, 'arm' | 'thumb', string]) => ({
    at: n(at),
    mode,
    target: n(target),
  });
  return {
    name,
    processor: name.startsWith('arm9') ? 'arm9' : 'arm7',
    bytes,
    loadAddress: Math.min(...sections.map((s) => s.lma)),
    entry: n(raw.entry[0]),
    sections,
    functions: raw.functions.map(([address, mode, size, fn, extent, data]) => ({
      address: n(address),
      mode,
      size,
      name: fn,
      bytes: extent,
      data,
    })),
    labels: raw.labels.map(([address, mode, label, kind]) => ({
      address: n(address),
      mode,
      name: label,
      kind,
    })),
    callSites: raw.callSites.map(site),
    longJumps: raw.longJumps.map(site),
  };
}

/** A function of a realistic program by name (throws when the program has none). */
export function truthFunction(truth: ProgramTruth, name: string): TruthFunction {
  const f = truth.functions.find((x) => x.name === name);
  if (!f) throw new Error(`${truth.name} has no function ${name}`);
  return f;
}
