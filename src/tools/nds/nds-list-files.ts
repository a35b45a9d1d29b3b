import { z } from 'zod/v4';
import {
  addressOut,
  formatAddress as hex,
  limitArg,
  PROCESSORS,
  pageOut,
  paginate,
} from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { READ_ONLY, romArg, withToolRom } from '../shared/rom.js';

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
