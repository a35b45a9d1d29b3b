import { z } from 'zod/v4';
import {
  addressArg,
  addressOut,
  addressRangeOut,
  BOUNDED_STATUSES,
  formatRange,
  formatAddress as hex,
  limitArg,
} from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { keptScans } from '../../roms/kept-scans.js';
import { SCAN_TRUNCATIONS } from '../../search/scan.js';
import { SEARCH_LIMITS, searchRom } from '../../search/search.js';
import { SCOPE_LIMITS } from '../../search/search-scope.js';
import { copiesFor, runsAtFields, runsAtSchema } from '../shared/copied.js';
import { ownerRuntime, ownerRuntimeSchema, romNames } from '../shared/names.js';
import { READ_ONLY, romArg, withToolRom } from '../shared/rom.js';
import { componentSelectorSchema, patternSchema } from '../shared/search-inputs.js';

const L = SEARCH_LIMITS;

const ownerSchema = z.object({
  kind: z.string(),
  start: addressOut,
  end: addressOut,
  processor: z.string().optional(),
  overlayId: z.number().int().optional(),
  fileId: z.number().int().optional(),
  path: z.string().nullable().optional(),
  field: z.string().optional(),
  tableIndex: z.number().int().optional(),
  autoloadIndex: z.number().int().optional(),
  compressed: z.boolean().optional(),
  ...ownerRuntimeSchema,
  ...runsAtSchema,
});

export const ndsSearchPattern = defineTool({
  name: 'nds_search_pattern',
  title: 'Search ROM bytes for a pattern',
  profiles: ['static'],
  description: {
    purpose: 'Every occurrence of a byte signature, integer or string.',
    useWhen:
      'constants or strings as bytes; nds_find_xrefs for code references; nds_resolve_rom_offset on a hit.',
    behaviour: 'compressed overlays searched as stored; overlapping hits kept.',
    limits: `${L.patternBytes.max}-byte pattern; ${L.discoveredMatches.max} matches; ${SCOPE_LIMITS.selectors.max} selectors.`,
  },
  input: z.object({
    rom: romArg,
    pattern: patternSchema,
    scope: z
      .discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('whole-rom') }),
        z.strictObject({
          kind: z.literal('components'),
          components: z.array(componentSelectorSchema).min(1).max(SCOPE_LIMITS.selectors.max),
        }),
      ])
      .describe('whole-rom hits may cross structures.'),
    offset: limitArg(L.offset).describe('Matches skipped.'),
    limit: limitArg(L.pageSize).describe('Page size.'),
    maxScanBytes: limitArg(L.maxScanBytes),
    startRomOffset: addressArg("A truncated result's resumeRomOffset (same pattern and scope)").optional(),
    contextBytes: limitArg(L.contextBytes).describe('Bytes each side of a hit.'),
  }),
  output: z.object({
    pattern: z.object({
      kind: z.string(),
      length: z.number().int(),
      canonical: z.string(),
      alignment: z.number().int(),
    }),
    scope: z.object({ kind: z.string(), components: z.array(z.string()), scopeBytes: z.number().int() }),
    status: z.enum(BOUNDED_STATUSES),
    truncationReasons: z.array(z.enum(SCAN_TRUNCATIONS)),
    scannedBytes: z.number().int(),
    discoveredMatches: z.number().int(),
    offset: z.number().int(),
    returned: z.number().int(),
    nextOffset: z.number().int().nullable(),
    resumeRomOffset: addressOut
      .nullable()
      .describe(
        'Truncated scan: pass as startRomOffset (same pattern and scope) to continue; null when complete.',
      ),
    matches: z.array(
      z.object({
        index: z.number().int(),
        romOffset: addressOut,
        owners: z.array(ownerSchema),
        bytes: z.string().optional(),
        context: z
          .object({
            before: z.string(),
            after: z.string(),
            clippedTo: addressRangeOut,
          })
          .optional(),
      }),
    ),
  }),
  annotations: READ_ONLY,
  limits: { ...L, selectors: SCOPE_LIMITS.selectors },
  needs: { pattern: { kind: 'ascii', text: 'x' } },
  async handler(args, ctx) {
    return withToolRom(
      ctx,
      args.rom,
      async (rom, store) => {
        const names = await romNames(ctx, rom);
        // Every read goes through the ROM handle withToolRom opened and proved to be the checked file.
        const result = await searchRom(
          rom.model,
          {
            romSize: rom.identity.size,
            readChunk: (into, position) => rom.readChunk(into, position),
            readBytes: (offset, length) => rom.readBytes(offset, length),
            signal: ctx.signal,
            onProgress: (done, total) => ctx.progress({ progress: done, total, message: 'scanning' }),
            // A later page of a search already made reads its kept hits.
            scans: keptScans(ctx.services, rom),
          },
          {
            pattern: args.pattern,
            scope: args.scope,
            offset: args.offset,
            limit: args.limit,
            maxScanBytes: args.maxScanBytes,
            contextBytes: args.contextBytes,
            ...(args.startRomOffset !== undefined ? { startRomOffset: args.startRomOffset } : {}),
          },
        );
        // Hits in a main executable's bytes the start-up copies elsewhere: where they run too.
        const copies = await copiesFor(
          ctx,
          store,
          rom,
          result.matches.flatMap((m) =>
            m.owners.flatMap((o) =>
              o.kind === 'main' && (o.processor === 'arm9' || o.processor === 'arm7') ? [o.processor] : [],
            ),
          ),
        );
        const matches = result.matches.map(({ romOffset, owners, context, ...m }) => ({
          ...m,
          romOffset: hex(romOffset),
          owners: owners.map(({ start, end, runtimeAddress, ...o }) => ({
            ...o,
            start: hex(start),
            end: hex(end),
            ...ownerRuntime(names, o, runtimeAddress),
            ...(o.kind === 'main'
              ? runsAtFields(copies, names, o.processor as 'arm9' | 'arm7', runtimeAddress)
              : {}),
          })),
          ...(context ? { context: { ...context, clippedTo: formatRange(context.clippedTo) } } : {}),
        }));
        const head = matches
          .slice(0, 5)
          .map(
            (m) =>
              `${m.romOffset} ${m.owners.map((o) => `${o.kind}${'runsAt' in o && o.runsAt ? ` (runs at ${o.runsAt})` : ''}`).join('+')}`,
          );
        const more = result.matches.length > 5 ? ` ...` : '';
        const why = result.truncationReasons.length ? ` (${result.truncationReasons.join(', ')})` : '';
        return {
          structured: {
            ...result,
            resumeRomOffset: result.resumeRomOffset === null ? null : hex(result.resumeRomOffset),
            matches,
          },
          text:
            `${rom.path}: ${result.pattern.kind} ${result.pattern.length} bytes, ${result.status}${why}; ` +
            `${result.discoveredMatches} matches in ${result.scannedBytes} scanned bytes; ` +
            `page ${result.offset}+${result.returned}${result.nextOffset !== null ? `, next ${result.nextOffset}` : ''}` +
            (head.length ? `\n${head.join('\n')}${more}` : ''),
        };
      },
      null,
    );
  },
});
