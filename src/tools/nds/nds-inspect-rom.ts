import { z } from 'zod/v4';
import { inline } from '../../core/text-safety.js';
import {
  addressOut,
  addressRangeOut,
  formatOptionalAddress,
  formatRange,
  formatAddress as hex,
} from '../../core/vocabulary.js';
import { type NdsRomModel, PARAMS_STATUSES, ROM_LIMITS, type RuntimeRange } from '../../formats/nds/index.js';
import { defineTool } from '../../mcp/tool.js';
import { READ_ONLY, romArg, withToolRom } from '../shared/rom.js';

const crcSchema = z.object({ stored: z.number().int(), computed: z.number().int(), ok: z.boolean() });
const mainSchema = z.object({
  romOffset: addressOut,
  size: z.number().int(),
  entry: addressOut,
  ramAddress: addressOut,
  runtime: addressRangeOut,
  fileBackedRuntime: addressRangeOut,
  compressed: z.boolean(),
  decodedSize: z.number().int().nullable(),
  entryInside: z.boolean(),
});
const runtimeRangeSchema = z.object({
  component: z.string(),
  overlayId: z.number().int().nullable(),
  autoloadIndex: z.number().int().nullable(),
  kind: z.string(),
  start: addressOut,
  end: addressOut,
  romOffset: addressOut.nullable(),
});
const processorRangesSchema = z.object({
  ranges: z.array(runtimeRangeSchema),
  overlayEnvelope: addressRangeOut.nullable(),
});
const dsiRegionSchema = z
  .object({
    romOffset: addressOut,
    ramAddress: addressOut,
    size: z.number().int(),
    insideFile: z.boolean(),
  })
  .nullable();

function main(exe: NdsRomModel['arm9']) {
  return {
    romOffset: hex(exe.romOffset),
    size: exe.size,
    entry: hex(exe.entryAddress),
    ramAddress: hex(exe.ramAddress),
    runtime: formatRange(exe.runtime),
    fileBackedRuntime: formatRange(exe.fileBackedRuntime),
    compressed: exe.compressed,
    decodedSize: exe.decodedSize,
    entryInside: exe.entryInside,
  };
}

/** Main/autoload/DSi ranges in full; overlays summarized by their envelope (nds_list_overlays has them all). */
function summarizeRanges(ranges: RuntimeRange[]) {
  const out = ranges
    .filter((r) => r.component !== 'overlay')
    .map(({ processor: _p, start, end, romOffset, ...rest }) => ({
      ...rest,
      start: hex(start),
      end: hex(end),
      romOffset: formatOptionalAddress(romOffset),
    }));
  const overlays = ranges.filter((r) => r.component === 'overlay');
  let overlayEnvelope: { start: number; end: number } | null = null;
  for (const r of overlays) {
    overlayEnvelope = overlayEnvelope
      ? { start: Math.min(overlayEnvelope.start, r.start), end: Math.max(overlayEnvelope.end, r.end) }
      : { start: r.start, end: r.end };
  }
  return { ranges: out, overlayEnvelope: overlayEnvelope && formatRange(overlayEnvelope) };
}

export const ndsInspectRom = defineTool({
  name: 'nds_inspect_rom',
  title: 'Inspect an NDS ROM',
  profiles: ['static'],
  description: {
    purpose: 'Identity, header and CRCs, ARM9/ARM7, tables, module params, size anomalies, counts.',
    useWhen: 'first, on any ROM; then nds_list_files, nds_list_overlays, nds_resolve_*.',
    behaviour: 'reads header and tables only.',
    limits: '61,440 files; 4,096 overlays per table; 16 MiB FNT; 1024-character paths.',
  },
  input: z.object({ rom: romArg }),
  output: z.object({
    rom: z.string(),
    sha256: z.string(),
    size: z.number().int(),
    header: z.object({
      title: z.string(),
      titleHex: z.string(),
      gameCode: z.string(),
      makerCode: z.string(),
      unitCode: z.number().int(),
      deviceCapacity: z.number().int(),
      capacityBytes: z.number().int().nullable(),
      romVersion: z.number().int(),
      headerSize: z.number().int(),
      bannerOffset: addressOut,
      secureAreaCrc: z.number().int(),
      arm9ParamsOffsetField: z.number().int(),
      headerCrc: crcSchema,
      logoCrc: crcSchema.extend({ nintendoLogo: z.boolean() }),
    }),
    arm9: mainSchema,
    arm7: mainSchema,
    tables: z.object({
      fnt: addressRangeOut,
      fat: addressRangeOut,
      arm9OverlayTable: addressRangeOut,
      arm7OverlayTable: addressRangeOut,
      banner: addressRangeOut.nullable(),
    }),
    sizes: z.object({
      physical: z.number().int(),
      declaredUsed: z.number().int(),
      declaredEnd: z.number().int(),
      shortBy: z.number().int(),
      appended: addressRangeOut.nullable(),
    }),
    moduleParams: z.object({
      status: z.enum(PARAMS_STATUSES),
      note: z.string().nullable(),
      offsetInArm9: z.number().int().nullable(),
      bss: addressRangeOut.nullable(),
      compressedStaticEnd: addressOut.nullable(),
      sdkVersion: z.number().int().nullable(),
      autoloadListStart: addressOut.nullable(),
      autoloadListEnd: addressOut.nullable(),
      autoloadDataStart: addressOut.nullable(),
    }),
    nitrocodeFooter: z
      .object({
        status: z.enum(PARAMS_STATUSES),
        romOffset: addressOut,
        moduleParamsOffset: z.number().int().nullable(),
        overlaySignaturesOffset: z.number().int().nullable(),
      })
      .nullable(),
    autoloads: z
      .array(
        z.object({
          index: z.number().int(),
          ramAddress: addressOut,
          codeSize: z.number().int(),
          bssSize: z.number().int(),
          romOffset: addressOut.nullable(),
        }),
      )
      .nullable(),
    dsi: z
      .object({
        arm9i: dsiRegionSchema,
        arm7i: dsiRegionSchema,
        totalUsedSize: z.number().int(),
        titleId: z.string(),
      })
      .nullable(),
    counts: z.object({
      files: z.number().int(),
      namedFiles: z.number().int(),
      unnamedFiles: z.number().int(),
      directories: z.number().int(),
      arm9Overlays: z.number().int(),
      arm7Overlays: z.number().int(),
    }),
    runtimeRanges: z.object({
      arm9: processorRangesSchema,
      arm7: processorRangesSchema,
    }),
    issues: z.array(z.string()),
  }),
  annotations: READ_ONLY,
  limits: {
    fatEntries: { max: 0xf000, unit: 'FAT entries (file IDs below the 0xF000 directory IDs)' },
    overlaysPerTable: { max: ROM_LIMITS.maxOverlaysPerTable, unit: 'overlays per processor table' },
    fntBytes: { max: ROM_LIMITS.maxFntBytes, unit: 'bytes of file name table' },
    pathLength: { max: ROM_LIMITS.maxPathLength, unit: 'characters per NitroFS path' },
  },
  async handler(args, ctx) {
    return withToolRom(ctx, args.rom, (rom) => {
      const m = rom.model;
      const named = m.files.filter((f) => f.path !== null).length;
      const dsiRegion = (r: NonNullable<NdsRomModel['dsi']>['arm9i']) =>
        r && {
          romOffset: hex(r.romOffset),
          ramAddress: hex(r.ramAddress),
          size: r.size,
          insideFile: r.insideFile,
        };
      const mp = m.moduleParams;
      const structured = {
        rom: rom.path,
        sha256: rom.identity.sha256,
        size: rom.identity.size,
        header: {
          title: m.header.title,
          titleHex: m.header.titleHex,
          gameCode: m.header.gameCode,
          makerCode: m.header.makerCode,
          unitCode: m.header.unitCode,
          deviceCapacity: m.header.deviceCapacity,
          capacityBytes: m.header.capacityBytes,
          romVersion: m.header.romVersion,
          headerSize: m.header.headerSize,
          bannerOffset: hex(m.header.bannerOffset),
          secureAreaCrc: m.header.secureAreaCrc,
          arm9ParamsOffsetField: m.header.arm9ParamsOffsetField,
          headerCrc: m.header.headerCrc,
          logoCrc: m.header.logoCrc,
        },
        arm9: main(m.arm9),
        arm7: main(m.arm7),
        tables: {
          fnt: formatRange(m.header.fnt),
          fat: formatRange(m.header.fat),
          arm9OverlayTable: formatRange(m.header.arm9OverlayTable),
          arm7OverlayTable: formatRange(m.header.arm7OverlayTable),
          banner: m.banner && formatRange(m.banner),
        },
        sizes: { ...m.size, appended: m.size.appended && formatRange(m.size.appended) },
        // In the output schema's order: a result in it needs no copy to be checked (exact-output.ts).
        moduleParams: {
          status: mp.status,
          note: mp.note,
          offsetInArm9: mp.offsetInArm9,
          bss: mp.bss && formatRange(mp.bss),
          compressedStaticEnd: formatOptionalAddress(mp.compressedStaticEnd),
          sdkVersion: mp.sdkVersion,
          autoloadListStart: formatOptionalAddress(mp.autoloadListStart),
          autoloadListEnd: formatOptionalAddress(mp.autoloadListEnd),
          autoloadDataStart: formatOptionalAddress(mp.autoloadDataStart),
        },
        nitrocodeFooter: m.nitrocodeFooter && {
          ...m.nitrocodeFooter,
          romOffset: hex(m.nitrocodeFooter.romOffset),
        },
        autoloads:
          m.autoloads === null
            ? null
            : m.autoloads.map((a) => ({
                ...a,
                ramAddress: hex(a.ramAddress),
                romOffset: formatOptionalAddress(a.romOffset),
              })),
        dsi: m.dsi && {
          arm9i: dsiRegion(m.dsi.arm9i),
          arm7i: dsiRegion(m.dsi.arm7i),
          totalUsedSize: m.dsi.totalUsedSize,
          titleId: m.dsi.titleId,
        },
        counts: {
          files: m.files.length,
          namedFiles: named,
          unnamedFiles: m.files.length - named,
          directories: m.directories.length,
          arm9Overlays: m.overlays.arm9.length,
          arm7Overlays: m.overlays.arm7.length,
        },
        runtimeRanges: {
          arm9: summarizeRanges(m.runtimeRanges.arm9),
          arm7: summarizeRanges(m.runtimeRanges.arm7),
        },
        issues: m.issues,
      };
      const code = `${m.header.gameCode.replace(/[^\x20-\x7e]/g, '.')}/${m.header.makerCode.replace(/[^\x20-\x7e]/g, '.')}`;
      const text =
        `${rom.path}: ${rom.identity.size} bytes, sha256 ${rom.identity.sha256}\n` +
        `"${inline(m.header.title)}" ${inline(code)} unit ${m.header.unitCode}; ARM9 ${hex(m.arm9.romOffset)}+${m.arm9.size} @ ${hex(m.arm9.ramAddress)}${m.arm9.compressed ? ' (BLZ)' : ''}, ARM7 ${hex(m.arm7.romOffset)}+${m.arm7.size} @ ${hex(m.arm7.ramAddress)}\n` +
        `${m.files.length} files (${named} named), ${m.overlays.arm9.length}+${m.overlays.arm7.length} overlays; header CRC ${m.header.headerCrc.ok ? 'ok' : 'BAD'}` +
        (m.issues.length ? `; ${m.issues.length} issue(s)` : '');
      return { structured, text };
    });
  },
});
