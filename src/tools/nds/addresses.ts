// The address tools, one per direction: nds_resolve_runtime_address (every static owner of a RAM
// address) and nds_resolve_rom_offset (every structure owning one ROM byte, and where it runs).
import { z } from 'zod/v4';
import { describeCopy, type RunMapping, storedOfRun } from '../../analysis/run-address.js';
import { ReMcpError } from '../../core/errors.js';
import {
  addressArg,
  addressOut,
  addressRangeOut,
  formatOptionalAddress,
  formatRange,
  formatAddress as hex,
  nameOrAddressArg,
  PROCESSORS,
} from '../../core/vocabulary.js';
import {
  RESOLUTION_STATUSES,
  RUNTIME_COMPONENTS,
  RUNTIME_RANGE_KINDS,
  type RuntimeResolution,
  resolveRomOffset,
  resolveRuntimeAddress,
} from '../../formats/nds/index.js';
import { defineTool, type ToolContext } from '../../mcp/tool.js';
import type { RomHandle, RomStore } from '../../roms/rom-store.js';
import { copiesFor, runsAtFields, runsAtSchema, startupCopies } from '../shared/copied.js';
import { nameField, ownerRuntime, ownerRuntimeSchema, romArgNames, romNames } from '../shared/names.js';
import { overlayIdArg, processorArg, READ_ONLY, romArg, withToolRom } from '../shared/rom.js';

// nds_resolve_runtime_address: Resolve a runtime address.
export const ndsResolveRuntimeAddress = defineTool({
  name: 'nds_resolve_runtime_address',
  title: 'Resolve a runtime address',
  profiles: ['static'],
  description: {
    purpose: 'Every static owner of a RAM address: main executable, autoload block or overlay.',
    useWhen: 'where RAM contents come from; nds_resolve_rom_offset for the reverse.',
    behaviour: 'overlapping overlays: ambiguous, all listed; romOffset null for BSS and decoded bytes.',
    limits: 'one address per call.',
  },
  input: z.object({
    rom: romArg,
    processor: processorArg,
    address: nameOrAddressArg(),
    overlayId: overlayIdArg('Filters candidates (main kept); not a loaded flag.'),
  }),
  output: z.object({
    processor: z.enum(PROCESSORS),
    address: addressOut,
    status: z.enum(RESOLUTION_STATUSES),
    excludedByOverlayId: z.number().int(),
    candidates: z.array(
      z.object({
        component: z.enum(RUNTIME_COMPONENTS),
        overlayId: z.number().int().nullable(),
        autoloadIndex: z.number().int().nullable(),
        region: z.enum(RUNTIME_RANGE_KINDS),
        range: addressRangeOut,
        romOffset: addressOut.nullable(),
        fileId: z.number().int().nullable(),
        compressed: z.boolean(),
        name: z.string().optional().describe('The stored name of the address here (nds_symbols)'),
      }),
    ),
    copied: z
      .object({
        storedAt: addressOut,
        storedName: z.string().optional(),
        copy: z.string().describe('The start-up copy (evidence)'),
      })
      .nullable()
      .describe('A start-up copy runs here (ITCM...), owning the address after start-up'),
  }),
  annotations: READ_ONLY,
  names: romArgNames,
  async handler(args, ctx) {
    return withToolRom(ctx, args.rom, async (rom, store) => {
      const r = resolveRuntimeAddress(rom.model, args.processor, args.address, args.overlayId);
      // Independent reads of the workspace (the ROM's names, its kept start-up copies): at once.
      const [names, copied] = await Promise.all([romNames(ctx, rom), copiedOwner(ctx, store, rom, r)]);
      const first = r.candidates[0];
      const where =
        r.candidates.length === 1 && first
          ? ` in ${first.component}${first.overlayId === null ? '' : ` ${first.overlayId}`} (${first.region}${first.romOffset === null ? '' : `, ROM ${hex(first.romOffset)}`})`
          : r.candidates.length > 1
            ? `: ${r.candidates.length} candidates`
            : '';
      const excluded =
        r.excludedByOverlayId > 0
          ? ` (${r.excludedByOverlayId} candidate(s) of other overlays excluded by overlayId ${args.overlayId})`
          : '';
      return {
        // In the output schema's order: a result in it needs no copy to be checked (exact-output.ts).
        structured: {
          processor: r.processor,
          address: hex(r.address),
          status: r.status,
          excludedByOverlayId: r.excludedByOverlayId,
          candidates: r.candidates.map((c) => ({
            ...c,
            range: formatRange(c.range),
            romOffset: formatOptionalAddress(c.romOffset),
            ...nameField(
              'name',
              names,
              args.processor,
              r.address,
              c.component === 'overlay' ? c.overlayId : null,
            ),
          })),
          copied: copied && {
            storedAt: hex(copied.stored),
            ...nameField('storedName', names, args.processor, copied.stored),
            copy: describeCopy(copied.copy),
          },
        },
        text: `${args.processor} ${hex(r.address)}: ${r.status}${where}${excluded}${
          copied
            ? `; runs bytes the start-up copies from ${hex(copied.stored)} (${describeCopy(copied.copy)})`
            : ''
        }`,
      };
    });
  },
});

/**
 * Where a start-up copy runs at the resolved address over nothing or over the main program (the
 * copy owns it once start-up is over): where its bytes are stored, with the copy; null elsewhere.
 */
async function copiedOwner(
  ctx: ToolContext,
  store: RomStore,
  rom: RomHandle,
  r: RuntimeResolution,
): Promise<RunMapping | null> {
  const overMain = r.status === 'resolved' && r.candidates[0]?.component === 'main';
  if (r.status !== 'unmapped' && !overMain) return null;
  return storedOfRun(await startupCopies(ctx, store, rom, r.processor), r.address);
}

// nds_resolve_rom_offset: Resolve a ROM offset.
export const ndsResolveRomOffset = defineTool({
  name: 'nds_resolve_rom_offset',
  title: 'Resolve a ROM offset',
  profiles: ['static'],
  description: {
    purpose: 'Every structure owning one ROM byte, from header fields to files.',
    useWhen: 'what a search hit or offset belongs to; nds_resolve_runtime_address for RAM.',
    behaviour:
      'runtime address only where mapped one-to-one; runsAt: copied by start-up (ITCM); unowned: range is the whole gap.',
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
        ...ownerRuntimeSchema,
        ...runsAtSchema,
      }),
    ),
  }),
  annotations: READ_ONLY,
  async handler(args, ctx) {
    return withToolRom(ctx, args.rom, async (rom, store) => {
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
      // A main executable's bytes the start-up copies elsewhere: where they run, beside where stored.
      const copies = await copiesFor(
        ctx,
        store,
        rom,
        owners.flatMap((o) => (o.kind === 'main' && o.processor ? [o.processor] : [])),
      );
      const runs = owners.map((o) =>
        o.kind === 'main' ? runsAtFields(copies, names, o.processor, o.runtimeAddress) : {},
      );
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
          owners: owners.map(({ range, runtimeAddress, ...o }, i) => ({
            ...o,
            range: formatRange(range),
            ...ownerRuntime(names, o, runtimeAddress),
            ...runs[i],
          })),
        },
        text: `${hex(args.offset)}: ${summary}${runs
          .flatMap((r) =>
            r.runsAt
              ? [`; runs at ${r.runsAt}${r.runsAtName ? ` (${r.runsAtName})` : ''} after start-up copies it`]
              : [],
          )
          .join('')}`,
      };
    });
  },
});
