// Mutation fuzzing of the NDS model: real ROM headers, and builder ROMs whose FAT, FNT, overlay
// tables, module params and compressed ARM9 give the parser something to chew on. Each case mutates
// a few bytes in place (restored afterwards, so a case costs no copy), parses, and exercises the
// address map on the result. Every case must end as a model or a ReMcpError; anything else fails.
import { readFileSync } from 'node:fs';
import { isReMcpError } from '../../../src/core/errors.js';
import {
  bufferSource,
  type NdsRomModel,
  parseNdsRom,
  resolveRomOffset,
  resolveRuntimeAddress,
} from '../../../src/formats/nds/index.js';
import { programRomBytes } from '../../kit/program-rom.js';
import { rng } from '../../kit/rng.js';
import { buildRom, type RomLayout } from '../../kit/rom-builder.js';
import { fixHeaderCrcs } from '../../kit/rom-builder-parts.js';
import { INVALID_SHARED_ROM, sharedRomNames, sharedRomPath } from '../../kit/shared-data.js';
import { code9, fullSpec } from './specs.js';

export interface Target {
  name: string;
  bytes: Uint8Array;
  /** Regions worth mutating: [start, end). */
  regions: Array<[number, number]>;
}

function builderTargets(): Target[] {
  const out: Target[] = [];
  const specs = [
    fullSpec,
    { ...fullSpec, arm9: { ...fullSpec.arm9, code: code9.subarray(0, 0x8000), compress: true } },
  ];
  for (const [i, spec] of specs.entries()) {
    const { bytes, layout } = buildRom(spec);
    out.push({ name: `builder-${i}`, bytes, regions: tableRegions(layout) });
  }
  return out;
}

function tableRegions(l: RomLayout): Array<[number, number]> {
  const r: Array<[number, number]> = [
    [0, 0x200],
    [l.fnt.start, l.fnt.end],
    [l.fat.start, l.fat.end],
    [l.arm9OverlayTable.start, l.arm9OverlayTable.end],
    [l.arm7OverlayTable.start, l.arm7OverlayTable.end],
  ];
  if (l.footerOffset !== null) r.push([l.footerOffset, l.footerOffset + 12]);
  if (l.paramsOffset !== null)
    r.push([l.arm9.rom.start + l.paramsOffset, l.arm9.rom.start + l.paramsOffset + 36]);
  // The end of the stored ARM9 holds the BLZ footer of a compressed ARM9.
  r.push([l.arm9.rom.end - 16, l.arm9.rom.end]);
  return r.filter(([s, e]) => e > s);
}

export function fuzzTargets(): Target[] {
  const real = sharedRomNames()
    .filter((n) => n !== INVALID_SHARED_ROM)
    .map((name) => {
      const bytes = new Uint8Array(readFileSync(sharedRomPath(name)));
      return { name, bytes, regions: [[0, 0x240]] as Array<[number, number]> };
    });
  // Real compiled code that needs no corpus: the kit's realistic programs in a built ROM.
  const kit = {
    name: 'kit-program',
    bytes: programRomBytes(),
    regions: [[0, 0x240]] as Array<[number, number]>,
  };
  return [...real, kit, ...builderTargets()];
}

const INTERESTING = [
  0, 1, 0x200, 0x4000, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffff8, 0xf000, 0xf001, 0xffff,
];

export interface FuzzStats {
  cases: number;
  models: number;
  refusals: Record<string, number>;
  maxCaseMs: number;
}

/** Runs `count` mutation cases; throws on the first case that ends in anything but a model or ReMcpError. */
export function runNdsFuzz(count: number, seed: number, targets = fuzzTargets()): FuzzStats {
  const rand = rng(seed);
  const pick = (n: number) => Math.floor(rand() * n);
  const stats: FuzzStats = { cases: 0, models: 0, refusals: {}, maxCaseMs: 0 };
  for (let c = 0; c < count; c++) {
    const target = targets[pick(targets.length)]!;
    const bytes = target.bytes;
    const saved: Array<[number, number]> = [];
    const set = (at: number, value: number) => {
      if (at < 0 || at >= bytes.length) return;
      saved.push([at, bytes[at]!]);
      bytes[at] = value & 0xff;
    };
    const mutations = 1 + pick(4);
    for (let m = 0; m < mutations; m++) {
      const [start, end] = target.regions[pick(target.regions.length)]!;
      const at = start + pick(end - start);
      switch (pick(4)) {
        case 0:
          set(at, bytes[at]! ^ (1 << pick(8)));
          break;
        case 1:
          set(at, pick(256));
          break;
        default: {
          const word = rand() < 0.5 ? INTERESTING[pick(INTERESTING.length)]! : pick(bytes.length * 2);
          const aligned = at & ~3;
          for (let k = 0; k < 4; k++) set(aligned + k, word >>> (8 * k));
        }
      }
    }
    const headerCopy = bytes.slice(0x15c, 0x160);
    if (rand() < 0.7) fixHeaderCrcs(bytes); // usually keep CRCs right so deeper checks are reached
    const started = performance.now();
    try {
      const model = parseNdsRom(bufferSource(bytes));
      exercise(model, bytes.length, rand);
      stats.models++;
    } catch (error) {
      if (!isReMcpError(error)) {
        throw new Error(`case ${c} (${target.name}, seed ${seed}) threw a non-ReMcpError: ${String(error)}`);
      }
      stats.refusals[error.code] = (stats.refusals[error.code] ?? 0) + 1;
    } finally {
      bytes.set(headerCopy, 0x15c);
      for (let i = saved.length - 1; i >= 0; i--) bytes[saved[i]![0]] = saved[i]![1];
    }
    stats.maxCaseMs = Math.max(stats.maxCaseMs, performance.now() - started);
    stats.cases++;
  }
  return stats;
}

function exercise(model: NdsRomModel, size: number, rand: () => number): void {
  for (let k = 0; k < 4; k++) {
    resolveRomOffset(model, Math.floor(rand() * size));
    const ranges = model.runtimeRanges.arm9;
    const near = ranges.length > 0 ? ranges[Math.floor(rand() * ranges.length)]!.start : 0x02000000;
    resolveRuntimeAddress(model, rand() < 0.5 ? 'arm9' : 'arm7', (near + Math.floor(rand() * 0x100)) >>> 0);
  }
}
