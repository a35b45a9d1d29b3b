// nds_program_map: builds (or reuses) the whole-program map of one processor and reports what every
// executable byte is, by class and tier, the functions by tier and evidence, the calls it could not
// follow, and the gaps nothing classified; the other analysis tools answer from it with scope
// "program".
import { z } from 'zod/v4';
import { DEFAULT_LOWEST, mapCoverage } from '../../analysis/answers/question.js';
import { EVIDENCE_CLASSES, EVIDENCE_IDS } from '../../analysis/evidence/index.js';
import {
  BYTE_CLASS_NAMES,
  type ByteClassName,
  MAP_TRUNCATIONS,
  TIERS,
} from '../../analysis/program-map/types.js';
import {
  addressOut,
  BOUNDED_STATUSES,
  formatAddress,
  limitArg,
  pageOut,
  paginate,
} from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { processorArg, READ_ONLY, romArg, withToolRom } from '../shared/rom.js';
import {
  componentKindSchema,
  coverageSchema,
  coverageText,
  evidenceArg,
  evidenceListSchema,
  lowestTierArg,
  mapLimitArgs,
  tierSchema,
} from './analysis-terms.js';
import { answerProgress } from './answer-call.js';
import { MAP_LIMITS, mapComponentView, toolMap } from './map-args.js';

const GAP_PAGE = {
  offset: { default: 0, min: 0, max: 10_000_000, unit: 'gaps skipped' },
  limit: { default: 32, min: 0, max: 1024, unit: 'gaps listed' },
} as const;

const tierCounts = z.object(
  Object.fromEntries(TIERS.map((t) => [t, z.number().int()])) as Record<(typeof TIERS)[number], z.ZodNumber>,
);

export const ndsProgramMap = defineTool({
  name: 'nds_program_map',
  title: 'Whole-program map of one processor',
  profiles: ['static'],
  description: {
    purpose:
      'Classifies every byte of every executable component (main, copied, autoload, overlays) by tier.',
    useWhen: 'before whole-program questions; then the analysis tools with scope "program".',
    behaviour:
      'tiers: proven, referenced (addresses in code or data), heuristic (a sweep); kept per ROM and evidence set.',
    limits: 'bytes of code and seconds; cut short: status truncated.',
  },
  input: z.object({
    rom: romArg,
    processor: processorArg,
    evidence: evidenceArg,
    lowestTier: lowestTierArg,
    ...mapLimitArgs,
    offset: limitArg(GAP_PAGE.offset),
    limit: limitArg(GAP_PAGE.limit),
  }),
  output: z.object({
    status: z.enum(BOUNDED_STATUSES),
    truncation: z.array(z.enum(MAP_TRUNCATIONS)),
    millis: z.number().int().describe('Time the map took to build (0: kept from an earlier call)'),
    reused: z.boolean(),
    evidence: z.array(z.object({ id: z.enum(EVIDENCE_IDS), tier: tierSchema, description: z.string() })),
    components: z.array(
      z.object({
        component: componentKindSchema,
        overlayId: z.number().int().nullable(),
        autoloadIndex: z.number().int().optional(),
        start: addressOut,
        end: addressOut,
        bytes: z.number().int(),
        romOffset: addressOut.nullable(),
        derived: z.boolean(),
        copied: z
          .object({
            source: addressOut,
            storedBy: addressOut.describe('The instruction that stored its first byte'),
          })
          .nullable()
          .describe('Copied by the start-up code: from where, by which store'),
        classes: z.object(
          Object.fromEntries(BYTE_CLASS_NAMES.map((n) => [n, z.number().int()])) as Record<
            ByteClassName,
            z.ZodNumber
          >,
        ),
        tiers: tierCounts.extend({ unclassified: z.number().int() }),
      }),
    ),
    unavailable: z.array(
      z.object({
        component: componentKindSchema,
        overlayId: z.number().int().nullable(),
        start: addressOut,
        end: addressOut,
        reason: z.string(),
      }),
    ),
    functions: z.object({
      total: z.number().int(),
      byTier: tierCounts,
      byEvidence: z.array(z.object({ evidence: evidenceListSchema.element, functions: z.number().int() })),
      orphanCode: z.number().int().describe('Code walked that is no function (landing pads)'),
      secondaryEntries: z.number().int().describe('Labels called into another function'),
    }),
    coverage: coverageSchema,
    refused: z.array(z.object({ reason: z.string(), candidates: z.number().int() })),
    gaps: z.object({
      ...pageOut,
      items: z.array(
        z.object({
          component: componentKindSchema,
          overlayId: z.number().int().nullable(),
          start: addressOut,
          end: addressOut,
          bytes: z.number().int(),
        }),
      ),
    }),
  }),
  annotations: READ_ONLY,
  limits: { ...MAP_LIMITS, ...GAP_PAGE },
  async handler(args, ctx) {
    const evidence = [...(args.evidence ?? EVIDENCE_IDS)];
    const progress = answerProgress(ctx, 'map');
    return withToolRom(
      ctx,
      args.rom,
      async (rom, store) => {
        const started = Date.now();
        const map = await toolMap(ctx, store, rom, args.processor, evidence, args, (codeBytes) =>
          progress.answer({ phase: 'map', codeBytes }),
        );
        const reused = Date.now() - started < map.millis;
        const lowest = args.lowestTier ?? DEFAULT_LOWEST;
        const coverage = mapCoverage(map, lowest);
        const byTier = { proven: 0, referenced: 0, heuristic: 0 };
        const byClass = new Map<string, number>();
        for (const f of map.functions) {
          byTier[f.tier]++;
          for (const c of new Set(f.evidence.map((e) => e.class))) byClass.set(c, (byClass.get(c) ?? 0) + 1);
        }
        const gaps = paginate(map.gaps(lowest), args.offset, args.limit);
        const components = map.set.list.map((c) => {
          const counts = map.componentBytes(c);
          return {
            ...mapComponentView(c),
            start: formatAddress(c.start),
            end: formatAddress(c.end),
            bytes: c.bytes.length,
            romOffset: c.romOffset === null ? null : formatAddress(c.romOffset),
            derived: c.derived,
            copied: c.copied
              ? {
                  source: formatAddress(c.copied.source),
                  storedBy: formatAddress(c.copied.storedBy),
                }
              : null,
            classes: counts.classes,
            tiers: counts.tiers,
          };
        });
        const lines = components.map(
          (c) =>
            `  ${c.component}${c.overlayId !== null ? ` ${c.overlayId}` : ''} ${c.start}..${c.end} ${c.bytes} B: proven ${c.tiers.proven}, referenced ${c.tiers.referenced}, heuristic ${c.tiers.heuristic}, unclassified ${c.tiers.unclassified}${c.copied ? ` (copied from ${c.copied.source}, stored by ${c.copied.storedBy})` : ''}`,
        );
        return {
          structured: {
            status: map.status,
            truncation: map.truncation,
            millis: reused ? 0 : map.millis,
            reused,
            evidence: EVIDENCE_CLASSES.filter((c) => evidence.includes(c.id)).map((c) => ({
              id: c.id,
              tier: c.tier,
              description: c.description,
            })),
            components,
            unavailable: map.set.unavailable.map((u) => ({
              component: u.kind,
              overlayId: u.overlayId,
              start: formatAddress(u.start),
              end: formatAddress(u.end),
              reason: u.reason,
            })),
            functions: {
              total: map.functions.length,
              byTier,
              byEvidence: EVIDENCE_IDS.filter((id) => byClass.has(id)).map((id) => ({
                evidence: id,
                functions: byClass.get(id)!,
              })),
              orphanCode: map.orphanCode,
              secondaryEntries: map.secondaryEntries,
            },
            coverage,
            refused: map.refusals(),
            gaps: {
              total: gaps.total,
              offset: gaps.offset,
              nextOffset: gaps.nextOffset,
              items: gaps.items.map((g) => ({
                component: g.component.kind,
                overlayId: g.component.overlayId,
                start: formatAddress(g.start),
                end: formatAddress(g.end),
                bytes: g.end - g.start,
              })),
            },
          },
          text: [
            `${args.processor} map ${map.status}${reused ? ' (kept)' : ` in ${map.millis} ms`}: ${map.functions.length} functions (proven ${byTier.proven}, referenced ${byTier.referenced}, heuristic ${byTier.heuristic})`,
            ...lines,
            coverageText(coverage),
            `${gaps.total} gap(s) below ${lowest}${gaps.items.length > 0 ? `; first at ${formatAddress(gaps.items[0]!.start)}` : ''}`,
          ].join('\n'),
        };
      },
      progress.hash,
    );
  },
});
