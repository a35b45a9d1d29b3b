// nds_free_space: where new data of a given size can go, each place with its proof (src/rebuild/free-space.ts).
import { z } from 'zod/v4';
import { EVIDENCE_IDS } from '../../analysis/evidence/index.js';
import { getProgramMaps, MAP_LIMITS } from '../../analysis/program-map/service.js';
import { TIERS } from '../../analysis/program-map/types.js';
import {
  BOUNDED_STATUSES,
  formatAddress,
  formatOptionalAddress,
  limitArg,
  PROCESSORS,
} from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { LARGEST_CARTRIDGE, modelSpace, provenPadding, SPACE_KINDS } from '../../rebuild/free-space.js';
import { processorArg, romArg, withToolRom } from '../shared/rom.js';

const SPACE_LIMITS = {
  bytes: { default: 4, min: 1, max: LARGEST_CARTRIDGE, unit: 'bytes needed' },
  maxCandidates: { default: 32, min: 1, max: 256, unit: 'places listed' },
} as const;

export const ndsFreeSpace = defineTool({
  name: 'nds_free_space',
  title: 'Where new data can go',
  profiles: ['build'],
  description: {
    purpose: 'Places for new bytes with their proof: a NitroFS file, an overlay BSS, padding proven unused.',
    useWhen: 'a replacement is longer than what it replaces (patches are same-size).',
    behaviour:
      'read-only; never offers zeros that only look free; BSS is the rebuild rule, proven false; padding from the map (built at first use).',
    limits: `${SPACE_LIMITS.maxCandidates.max} places; map ${MAP_LIMITS.maxCodeBytes.default / 2 ** 20} MiB, ${MAP_LIMITS.maxSeconds.default} s.`,
  },
  input: z.object({
    rom: romArg,
    processor: processorArg,
    bytes: limitArg(SPACE_LIMITS.bytes, 'Size needed'),
    maxCandidates: limitArg(SPACE_LIMITS.maxCandidates),
  }),
  output: z.object({
    needed: z.number().int(),
    candidates: z.array(
      z.object({
        kind: z.enum(SPACE_KINDS),
        bytes: z.number().int(),
        fits: z.boolean(),
        proven: z.boolean(),
        processor: z.enum(PROCESSORS).nullable(),
        overlayId: z.number().int().nullable(),
        start: z.string().nullable(),
        end: z.string().nullable(),
        romOffset: z.string().nullable(),
        proof: z.string(),
      }),
    ),
    map: z
      .object({ status: z.enum(BOUNDED_STATUSES), tier: z.enum(TIERS), definitive: z.boolean() })
      .describe(
        'The map at the proven tier (the only one a place may be proven free at); nds_program_map reports its default tier',
      ),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: {
    ...SPACE_LIMITS,
    mapCodeBytes: {
      default: MAP_LIMITS.maxCodeBytes.default,
      max: MAP_LIMITS.maxCodeBytes.default,
      unit: 'bytes of code the map classifies',
    },
    mapSeconds: {
      default: MAP_LIMITS.maxSeconds.default,
      max: MAP_LIMITS.maxSeconds.default,
      unit: 'seconds',
    },
  },
  async handler(args, ctx) {
    return withToolRom(
      ctx,
      args.rom,
      async (rom, store) => {
        const map = await getProgramMaps(ctx.services).map(store, rom, {
          processor: args.processor,
          evidence: EVIDENCE_IDS,
          maxCodeBytes: MAP_LIMITS.maxCodeBytes.default,
          maxSeconds: MAP_LIMITS.maxSeconds.default,
          signal: ctx.signal,
        });
        const all = [
          ...modelSpace(rom.model, rom.identity.size),
          ...provenPadding(map, 1, 100_000).sort((a, b) => b.bytes - a.bytes),
        ];
        // What fits first (proven before not), then the largest of the rest.
        const ranked = all
          .map((c) => ({ ...c, fits: c.bytes >= args.bytes }))
          .sort(
            (a, b) =>
              Number(b.fits) - Number(a.fits) || Number(b.proven) - Number(a.proven) || b.bytes - a.bytes,
          )
          .slice(0, args.maxCandidates);
        const coverage = map.coverage('proven');
        const fitting = ranked.filter((c) => c.fits && c.proven).length;
        return {
          structured: {
            needed: args.bytes,
            candidates: ranked.map((c) => ({
              kind: c.kind,
              bytes: c.bytes,
              fits: c.fits,
              proven: c.proven,
              processor: c.processor,
              overlayId: c.overlayId,
              start: c.start === null ? null : formatAddress(c.start),
              end: c.end === null ? null : formatAddress(c.end),
              romOffset: formatOptionalAddress(c.romOffset),
              proof: c.proof,
            })),
            map: { status: map.status, tier: 'proven' as const, definitive: coverage.definitive },
          },
          text: `${args.bytes} bytes: ${fitting} proven place(s) fit; largest proven padding in ${args.processor} code: ${Math.max(0, ...all.filter((c) => c.kind === 'proven-padding').map((c) => c.bytes))} bytes; the map is ${coverage.definitive ? '' : 'not '}definitive at the proven tier`,
        };
      },
      null,
    );
  },
});
