// nds_function_at: the proven function(s) whose analysed CFG holds an address, from one bounded
// discovery; when none, whether that is a complete negative or a coverage gap.

import { z } from 'zod/v4';
import {
  CoverageCollector,
  FUNCTION_LOOKUPS,
  type FunctionLookup,
} from '../../analysis/functions/coverage.js';
import { type Evidence, identityKey } from '../../analysis/functions/discover.js';
import { type ComponentKind, discoverInRom } from '../../analysis/functions/nds-scope.js';
import { BYTE_CLASS_NAMES, HOLDER_VIAS } from '../../analysis/program-map/types.js';
import { ReMcpError } from '../../core/errors.js';
import { addressArg, addressOut, formatAddress } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { nameField, romNames } from '../shared/names.js';
import { overlayIdArg, processorArg, READ_ONLY, romArg, withToolRom } from '../shared/rom.js';
import {
  DEFAULT_LOWEST,
  evidenceOf,
  MAP_LIMITS,
  mapComponentsCoverage,
  mapComponentView,
  mapIdentityView,
  mapLimitArgs,
  mapProgress,
  toolMap,
} from './map-scope.js';
import {
  componentKindSchema,
  coverageFields,
  coverageSchema,
  coverageText,
  DISCOVERY_LIMITS,
  discoveryBudgets,
  evidenceListSchema,
  identitySchema,
  identityView,
  limitArgs,
  MAX_SEEDS,
  mapCoverageView,
  mapScopeArgs,
  modeSchema,
  phasedProgress,
  proofScopeArgs,
  resolveEvidence,
  SEEDS_LIMIT,
  searchCoverageView,
  searchStatusSchema,
  tierSchema,
} from './proof-search.js';

const L = DISCOVERY_LIMITS;

/** Callers listed per match; the rest are counted. */
const CALLERS_SHOWN = 16;

export const ndsFunctionAt = defineTool({
  name: 'nds_function_at',
  title: 'Function containing an address',
  profiles: ['static'],
  description: {
    purpose: 'Function(s) whose analysed body holds an address, with evidence, and what the byte is.',
    useWhen: 'which function holds an address; nds_analyze_function when you have the entry.',
    behaviour: 'shared code lists every owner; complete-negative only when nothing is left unanalysed.',
    limits: `${MAX_SEEDS} seeds.`,
  },
  input: z.object({
    rom: romArg,
    processor: processorArg,
    address: addressArg('Address inside a function'),
    overlayId: overlayIdArg("Only this overlay's blocks match."),
    ...mapScopeArgs,
    ...proofScopeArgs,
    ...limitArgs(L),
    ...mapLimitArgs,
  }),
  output: z.object({
    address: addressOut,
    reason: z.enum(FUNCTION_LOOKUPS),
    matches: z.array(
      z.object({
        identity: identitySchema,
        name: z.string().optional().describe('Its stored name (nds_symbols)'),
        component: componentKindSchema,
        evidence: evidenceListSchema,
        tier: tierSchema,
        callers: z.array(addressOut),
        callerCount: z.number().int(),
        via: z.enum(HOLDER_VIAS).describe('body: code of it; literal/jump-table: data its code reads'),
        block: z.object({ address: addressOut, end: addressOut, mode: modeSchema }).nullable(),
      }),
    ),
    bytes: z
      .array(
        z.object({
          component: componentKindSchema,
          overlayId: z.number().int().nullable(),
          autoloadIndex: z.number().int().optional(),
          byteClass: z.enum(BYTE_CLASS_NAMES),
          tier: tierSchema.nullable(),
        }),
      )
      .describe('program scope: what each component holding the address has there'),
    discovery: z.object({
      status: searchStatusSchema,
      ...coverageFields,
      functions: z.number().int(),
    }),
    coverage: coverageSchema,
  }),
  annotations: READ_ONLY,
  limits: { ...L, seeds: SEEDS_LIMIT, ...MAP_LIMITS },
  async handler(args, ctx) {
    const evidence = resolveEvidence(args.scope, args.evidence);
    const progress = phasedProgress(ctx);
    const mp = mapProgress(ctx);
    return withToolRom(
      ctx,
      args.rom,
      async (rom, store) => {
        const p = args.processor;
        const names = await romNames(ctx, rom);
        if (args.scope === 'program') {
          if (args.overlayId !== undefined && !rom.model.overlays[p].some((o) => o.id === args.overlayId))
            throw new ReMcpError('not-found', `${p} has no overlay ${args.overlayId}`, {
              overlayId: args.overlayId,
            });
          const lowest = args.lowestTier ?? DEFAULT_LOWEST;
          const map = await toolMap(ctx, store, rom, p, evidence, args, mp.map);
          const holders = map
            .holders(args.address, lowest)
            .filter((h) => args.overlayId === undefined || h.component.overlayId === args.overlayId);
          const matches = holders.flatMap((h) =>
            h.functions.map((f) => {
              const sites = map.callSitesOf(f.fn);
              return {
                identity: mapIdentityView(p, f.fn),
                ...nameField('name', names, p, f.fn.address, f.fn.component.overlayId),
                component: f.fn.component.kind,
                evidence: evidenceOf(f.fn),
                tier: f.fn.tier,
                callers: sites.slice(0, CALLERS_SHOWN).map((c) => formatAddress(c.at)),
                callerCount: sites.length,
                via: f.via,
                block: f.block
                  ? {
                      address: formatAddress(f.block.start),
                      end: formatAddress(f.block.end),
                      mode: f.block.mode,
                    }
                  : null,
              };
            }),
          );
          const coverage = mapCoverageView(map.coverage(lowest));
          const reason: FunctionLookup =
            matches.length > 0 ? 'found' : coverage.definitive ? 'complete-negative' : 'coverage-gap';
          const bytes = holders.map((h) => ({
            ...mapComponentView(h.component),
            byteClass: h.byteClass,
            tier: h.tier,
          }));
          return {
            structured: {
              address: formatAddress(args.address),
              reason,
              matches,
              bytes,
              discovery: {
                status: map.built.status === 'complete' ? ('complete' as const) : ('truncated' as const),
                truncation: [],
                components: mapComponentsCoverage(map),
                functions: map.functions.length,
              },
              coverage,
            },
            text: `${p} ${formatAddress(args.address)}: ${
              matches.length > 0
                ? matches
                    .map(
                      (m) =>
                        `${m.via === 'body' ? 'in' : `${m.via} of`} ${m.identity.mode} function ${m.identity.address} (${m.tier}: ${m.evidence.join(', ')})`,
                    )
                    .join('; ')
                : `${bytes.map((b) => `${b.component} ${b.byteClass}${b.tier ? ` (${b.tier})` : ''}`).join(', ') || 'in no component'}; ${reason === 'complete-negative' ? 'in no function (the map is definitive)' : 'no function found: not a definitive negative'}`
            }\n${coverageText(coverage)}`,
          };
        }
        const covered = new CoverageCollector();
        const { result, components, status } = await discoverInRom(store, rom, {
          processor: p,
          seeds: args.seeds,
          overlayIds: args.overlayIds,
          evidence: new Set<Evidence>(evidence as Evidence[]),
          ...discoveryBudgets(args),
          signal: ctx.signal,
          onProgress: progress.work('functions'),
          onBlock: (block, span) => covered.block(block, span),
        });
        const coverage = searchCoverageView(
          covered.finish(rom.model, p, components, result.callSites, status === 'truncated'),
        );
        const matches = [];
        for (const f of result.functions) {
          const block = f.cfg?.blocks.find(
            (b) =>
              args.address >= b.address &&
              args.address < b.end &&
              (args.overlayId === undefined || b.overlayId === args.overlayId),
          );
          if (!block) continue;
          const key = identityKey(f.identity);
          const callers = result.callSites
            .filter((s) => s.callee && identityKey(s.callee) === key)
            .map((s) => formatAddress(s.at));
          matches.push({
            identity: identityView(p, f.identity),
            ...nameField('name', names, p, f.identity.address, f.identity.overlayId),
            component: f.identity.component as ComponentKind,
            evidence: f.evidence,
            tier: 'proven' as const,
            callers,
            callerCount: callers.length,
            via: 'body' as const,
            block: { address: formatAddress(block.address), end: formatAddress(block.end), mode: block.mode },
          });
        }
        const reason: FunctionLookup =
          matches.length > 0
            ? 'found'
            : status === 'complete' && coverage.definitive
              ? 'complete-negative'
              : 'coverage-gap';
        return {
          structured: {
            address: formatAddress(args.address),
            reason,
            matches,
            bytes: [],
            discovery: {
              status,
              truncation: result.truncation,
              components,
              functions: result.functions.length,
            },
            coverage,
          },
          text: `${p} ${formatAddress(args.address)}: ${
            matches.length > 0
              ? matches
                  .map(
                    (m) => `in ${m.identity.mode} function ${m.identity.address} (${m.evidence.join(', ')})`,
                  )
                  .join('; ')
              : reason === 'complete-negative'
                ? 'in no proven function (discovery complete, coverage definitive)'
                : `no proven function found (discovery ${status}): not a definitive negative`
          }\n${coverageText(coverage)}`,
        };
      },
      (done, total) => {
        progress.hash(done, total);
        mp.hash(done, total);
      },
    );
  },
});
