import { z } from 'zod/v4';
import {
  formatOptionalAddress as at,
  BOUNDED_STATUSES,
  formatAddress as hex,
  limitArg,
  PROCESSORS,
  type Processor,
} from '../../core/vocabulary.js';
import { listStrings, STRING_AREAS, STRING_LIST_LIMITS } from '../../extract/string-list.js';
import { defineTool } from '../../mcp/tool.js';
import { STRING_ENCODINGS } from '../../search/strings.js';
import { copiesFor, runsAtFields, runsAtSchema } from '../shared/copied.js';
import { nameField, romNames } from '../shared/names.js';
import { READ_ONLY, romArg, withToolRom } from '../shared/rom.js';

const L = STRING_LIST_LIMITS;
const hexOut = z.string();

export const ndsListStrings = defineTool({
  name: 'nds_list_strings',
  title: 'List the strings of a ROM',
  profiles: ['static'],
  description: {
    purpose: 'Text (ASCII, Shift-JIS, UTF-16LE) in arm9/arm7 code (main, overlays) and NitroFS files.',
    useWhen: 'messages, names, paths; references: true adds the code or table using each.',
    behaviour: 'compressed code read decoded (romOffset null); non-ASCII runs end in a NUL.',
    limits: `${L.limit.max} a page; ${L.maxScanBytes.max / 2 ** 20} MiB scanned; runs cut at ${L.runBytes.max / 1024} KiB, text at ${L.textChars.max} characters; ${L.refsPerString.max} refs each.`,
  },
  input: z.object({
    rom: romArg,
    in: z.enum(STRING_AREAS).default('all'),
    encodings: z.array(z.enum(STRING_ENCODINGS)).min(1).max(3).optional().describe('Default all.'),
    minLength: limitArg(L.minLength),
    contains: z.string().min(1).max(256).optional().describe('Case-insensitive.'),
    references: z.boolean().default(false),
    offset: limitArg(L.offset),
    limit: limitArg(L.limit),
  }),
  output: z.object({
    status: z.enum(BOUNDED_STATUSES),
    totalBytes: z.number().int(),
    scannedBytes: z.number().int(),
    unscanned: z.array(z.object({ component: z.string(), bytes: z.number().int(), reason: z.string() })),
    matching: z.number().int().describe('Strings that match, all pages'),
    nextOffset: z.number().int().nullable(),
    strings: z.array(
      z.object({
        component: z.string(),
        processor: z.enum(PROCESSORS).nullable(),
        overlayId: z.number().int().nullable(),
        offset: z.number().int().describe('In the component'),
        romOffset: hexOut.nullable(),
        address: hexOut.nullable(),
        name: z.string().optional().describe('The stored name of address (nds_symbols)'),
        ...runsAtSchema,
        encoding: z.enum(STRING_ENCODINGS),
        chars: z.number().int(),
        bytes: z.number().int(),
        terminated: z.boolean(),
        cut: z.boolean(),
        text: z.string(),
        textCut: z.boolean(),
        refs: z
          .array(
            z.object({
              from: hexOut,
              kind: z.string(),
              tier: z.string(),
              component: z.string(),
              function: z.string().nullable(),
              functionName: z.string().optional(),
              table: hexOut.nullable(),
              loadedBy: z.array(hexOut),
            }),
          )
          .nullable(),
        refCount: z.number().int().nullable(),
        ambiguous: z.boolean(),
      }),
    ),
    referenceCoverage: z.array(
      z.object({
        processor: z.string(),
        definitive: z.boolean(),
        notDefinitive: z.array(z.string()),
        codeBytes: z.number().int(),
        executableBytes: z.number().int(),
      }),
    ),
    notes: z.array(z.string()),
  }),
  annotations: READ_ONLY,
  limits: L,
  async handler(args, ctx) {
    return withToolRom(ctx, args.rom, async (rom, store) => {
      const r = await listStrings(ctx.services, store, rom, {
        area: args.in,
        encodings: args.encodings ?? [...STRING_ENCODINGS],
        minLength: args.minLength,
        contains: args.contains ?? null,
        offset: args.offset,
        limit: args.limit,
        maxScanBytes: L.maxScanBytes.max,
        references: args.references,
        signal: ctx.signal,
        onProgress: (progress, total, message) =>
          ctx.progress({ progress, ...(total !== undefined ? { total } : {}), message }),
      });
      const names = await romNames(ctx, rom);
      const named = (
        key: 'name' | 'functionName',
        p: Processor | null,
        a: number | undefined,
        ov: number | null,
      ) => (p === null ? {} : nameField(key, names, p, a, ov));
      // Strings in a main executable's bytes the start-up copies elsewhere: where they are read from.
      const copies = await copiesFor(
        ctx,
        store,
        rom,
        r.strings.flatMap((s) => (s.overlayId === null && s.processor !== null ? [s.processor] : [])),
      );
      const strings = r.strings.map((s) => ({
        ...s,
        romOffset: at(s.romOffset),
        address: at(s.address),
        ...named('name', s.processor, s.address ?? undefined, s.overlayId),
        ...(s.overlayId === null ? runsAtFields(copies, names, s.processor, s.address) : {}),
        refs:
          s.refs === null
            ? null
            : s.refs.map((x) => ({
                ...x,
                from: hex(x.from),
                function: x.function === null ? null : `${hex(x.function.address)} ${x.function.mode}`,
                ...named('functionName', s.processor, x.function?.address, s.overlayId),
                table: at(x.table),
                loadedBy: x.loadedBy.map(hex),
              })),
      }));
      const next = args.offset + strings.length;
      return {
        structured: { ...r, nextOffset: next < r.matching ? next : null, strings },
        text: `${r.matching} matching string(s) in ${r.scannedBytes} of ${r.totalBytes} bytes (${r.status}); ${strings.length} from #${args.offset}${next < r.matching ? `, next offset ${next}` : ''}`,
      };
    });
  },
});
