// nds_resolve_rom_offset: Resolve a ROM offset.

import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import {
  addressArg,
  addressOut,
  addressRangeOut,
  formatRange,
  formatAddress as hex,
  PROCESSORS,
} from '../../core/vocabulary.js';
import { resolveRomOffset } from '../../formats/nds/index.js';
import { defineTool } from '../../mcp/tool.js';
import { ownerRuntime, romNames } from '../shared/names.js';
import { READ_ONLY, romArg, withToolRom } from '../shared/rom.js';

export const ndsResolveRomOffset = defineTool({
  name: 'nds_resolve_rom_offset',
  title: 'Resolve a ROM offset',
  profiles: ['static'],
  description: {
    purpose: 'Every structure owning one ROM byte, from header fields to files.',
    useWhen: 'what a search hit or offset belongs to; nds_resolve_runtime_address for RAM.',
    behaviour: 'runtime address only where mapped one-to-one; unowned: range is the whole gap.',
    limits: 'one offset per call, inside the file.',
  },
  input: z.object({ rom: romArg, offset: addressArg('ROM offset') }),
  output: z.object({
    offset: addressOut,
    owners: z.array(
      z.object({
        kind: z.string(),
        range: addressRangeOut,
        field: z.string().optional(),
        processor: z.enum(PROCESSORS).optional(),
        overlayId: z.number().int().optional(),
        fileId: z.number().int().optional(),
        path: z.string().nullable().optional(),
        tableIndex: z.number().int().optional(),
        autoloadIndex: z.number().int().optional(),
        compressed: z.boolean().optional(),
        runtimeAddress: addressOut.nullable().optional(),
        runtimeName: z.string().optional().describe('The stored name of runtimeAddress (nds_symbols)'),
      }),
    ),
  }),
  annotations: READ_ONLY,
  async handler(args, ctx) {
    return withToolRom(ctx, args.rom, async (rom) => {
      const names = await romNames(ctx, rom);
      if (args.offset >= rom.identity.size) {
        throw new ReMcpError(
          'invalid-argument',
          `offset ${hex(args.offset)} is past the end of the file (${rom.identity.size} bytes)`,
          {
            offset: args.offset,
            size: rom.identity.size,
          },
        );
      }
      const owners = resolveRomOffset(rom.model, args.offset);
      const summary = owners
        .map((o) =>
          o.kind === 'file'
            ? `file ${o.fileId}${o.path ? ` ${o.path}` : ''}`
            : o.field
              ? `${o.kind}.${o.field}`
              : o.kind,
        )
        .join(', ');
      return {
        structured: {
          offset: hex(args.offset),
          owners: owners.map(({ range, runtimeAddress, ...o }) => ({
            ...o,
            range: formatRange(range),
            ...ownerRuntime(names, o, runtimeAddress),
          })),
        },
        text: `${hex(args.offset)}: ${summary}`,
      };
    });
  },
});
