// The listings of a ROM's contents: nds_list_files (the FAT entries with their NitroFS paths) and
// nds_list_overlays (the overlay records, with their runtime ranges and overlaps).
import { z } from 'zod/v4';
import { overlayOverlaps } from '../../analysis/overlay-overlaps.js';
import {
  addressOut,
  addressRangeOut,
  formatRange,
  formatAddress as hex,
  limitArg,
  PROCESSORS,
  pageOut,
  paginate,
} from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { READ_ONLY, romArg, withToolRom } from '../shared/rom.js';

// nds_list_files: FAT entries, one page a call.
const LIST_FILES_LIMITS = {
  limit: { default: 100, max: 1000, min: 1, unit: 'files per page' },
  offset: { default: 0, max: 0xf000, min: 0, unit: 'file index' },
} as const;

export const ndsListFiles = defineTool({
  name: 'nds_list_files',
  title: 'List NitroFS files',
  profiles: ['static'],
  description: {
    purpose: 'FAT entries with NitroFS paths, ROM ranges and overlay use.',
    useWhen:
      'finding a file or what a FAT entry is (overlay files: path null); nds_list_overlays for runtime ranges.',
    behaviour: 'file-ID order.',
    limits: 'one page per call.',
  },
  input: z.object({
    rom: romArg,
    offset: limitArg(LIST_FILES_LIMITS.offset).describe('Entries skipped.'),
    limit: limitArg(LIST_FILES_LIMITS.limit).describe('Page size.'),
    pathPrefix: z.string().max(1024).optional().describe('Case-sensitive; unnamed entries never match.'),
  }),
  output: z.object({
    ...pageOut,
    directories: z.number().int(),
    files: z.array(
      z.object({
        id: z.number().int(),
        path: z.string().nullable(),
        start: addressOut,
        end: addressOut,
        size: z.number().int(),
        overlays: z.array(z.object({ processor: z.enum(PROCESSORS), id: z.number().int() })).optional(),
      }),
    ),
  }),
  annotations: READ_ONLY,
  limits: LIST_FILES_LIMITS,
  async handler(args, ctx) {
    return withToolRom(ctx, args.rom, (rom) => {
      const prefix = args.pathPrefix;
      const all =
        prefix === undefined ? rom.model.files : rom.model.files.filter((f) => f.path?.startsWith(prefix));
      const { items: page, ...pageInfo } = paginate(all, args.offset, args.limit);
      const next = args.offset + page.length;
      const files = page.map((f) => ({
        id: f.fileId,
        path: f.path,
        start: hex(f.start),
        end: hex(f.end),
        size: f.end - f.start,
        ...(f.overlays.length > 0 ? { overlays: f.overlays } : {}),
      }));
      const unnamed = page.filter((f) => f.path === null).length;
      return {
        structured: {
          ...pageInfo,
          directories: rom.model.directories.length,
          files,
        },
        text:
          page.length === 0
            ? `${rom.path}: no entries at offset ${args.offset} (${all.length} in all)`
            : `${rom.path}: entries ${args.offset}..${next - 1} of ${all.length} (${unnamed} unnamed on this page)`,
      };
    });
  },
});

// nds_list_overlays: the ARM9 then the ARM7 overlay table.
const LIST_OVERLAYS_LIMITS = {
  limit: { default: 200, max: 1000, min: 1, unit: 'overlays per page' },
  offset: { default: 0, max: 8192, min: 0, unit: 'overlay index' },
  overlapsListed: { max: 16, unit: 'overlapping overlay IDs per overlay' },
} as const;

const overlaySchema = z.object({
  processor: z.enum(PROCESSORS),
  id: z.number().int(),
  fileId: z.number().int(),
  file: addressRangeOut,
  ramAddress: addressOut,
  ramSize: z.number().int(),
  bssSize: z.number().int(),
  initialized: addressRangeOut,
  bss: addressRangeOut,
  fileBacked: addressRangeOut.nullable(),
  staticInit: addressRangeOut,
  compressed: z.boolean(),
  compressedSize: z.number().int(),
  flags: z.number().int(),
  verifyHash: z.boolean(),
  overlapCount: z.number().int(),
  overlapsWith: z.array(z.number().int()),
});

export const ndsListOverlays = defineTool({
  name: 'nds_list_overlays',
  title: 'List ARM9/ARM7 overlays',
  profiles: ['static'],
  description: {
    purpose: 'Overlay records: file, runtime ranges, compression, overlaps.',
    useWhen: 'which overlays share RAM; nds_resolve_runtime_address for one address.',
    behaviour: 'ARM9 then ARM7, table order; fileBacked null when compressed.',
    limits: `${LIST_OVERLAYS_LIMITS.overlapsListed.max} overlapping IDs listed per overlay (overlapCount exact).`,
  },
  input: z.object({
    rom: romArg,
    processor: z.enum(PROCESSORS).optional().describe('Default both.'),
    offset: limitArg(LIST_OVERLAYS_LIMITS.offset).describe('Records skipped.'),
    limit: limitArg(LIST_OVERLAYS_LIMITS.limit).describe('Page size.'),
  }),
  output: z.object({
    ...pageOut,
    overlays: z.array(overlaySchema),
  }),
  annotations: READ_ONLY,
  limits: LIST_OVERLAYS_LIMITS,
  async handler(args, ctx) {
    return withToolRom(ctx, args.rom, (rom) => {
      const processors = args.processor ? [args.processor] : PROCESSORS;
      const all: z.input<typeof overlaySchema>[] = [];
      for (const p of processors) {
        const overlaps = overlayOverlaps(rom.model.overlays[p], LIST_OVERLAYS_LIMITS.overlapsListed.max);
        for (const o of rom.model.overlays[p]) {
          const ov = overlaps.get(o)!;
          all.push({
            processor: o.processor,
            id: o.id,
            fileId: o.fileId,
            file: formatRange(o.file),
            ramAddress: hex(o.ramAddress),
            ramSize: o.ramSize,
            bssSize: o.bssSize,
            initialized: formatRange(o.initialized),
            bss: formatRange(o.bss),
            fileBacked: o.fileBacked && formatRange(o.fileBacked),
            staticInit: formatRange(o.staticInit),
            compressed: o.compressed,
            compressedSize: o.compressedSize,
            flags: o.flags,
            verifyHash: o.verifyHash,
            overlapCount: ov.count,
            overlapsWith: ov.ids,
          });
        }
      }
      const { items: page, ...pageInfo } = paginate(all, args.offset, args.limit);
      const compressed = all.filter((o) => o.compressed).length;
      return {
        structured: {
          ...pageInfo,
          overlays: page,
        },
        text: `${rom.path}: ${all.length} overlays (${compressed} compressed); showing ${page.length} from ${args.offset}`,
      };
    });
  },
});
