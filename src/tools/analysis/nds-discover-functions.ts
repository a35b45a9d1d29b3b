// nds_discover_functions: the bounded proven-function call graph of one processor (program entry +
// direct calls + optionally constant-register calls), with callers and callees per function.

import { z } from 'zod/v4';
import { CoverageCollector } from '../../analysis/functions/coverage.js';
import {
  CALL_SITE_KINDS,
  type CallSite,
  type Evidence,
  identityKey,
} from '../../analysis/functions/discover.js';
import { type ComponentKind, discoverInRom } from '../../analysis/functions/nds-scope.js';
import { TIERS } from '../../analysis/program-map/types.js';
import {
  addressOut,
  BOUNDED_STATUSES,
  formatAddress,
  limitArg,
  pageOut,
  paginate,
} from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { nameField, romNames } from '../shared/names.js';
import { processorArg, READ_ONLY, romArg, withToolRom } from '../shared/rom.js';
import {
  DEFAULT_LOWEST,
  evidenceOf,
  MAP_LIMITS,
  mapCallKind,
  mapComponentsCoverage,
  mapIdentityView,
  mapLimitArgs,
  mapProgress,
  toolMap,
} from './map-scope.js';
import {
  callSiteSchema,
  callSiteView,
  componentKindSchema,
  coverageFields,
  coverageSchema,
  coverageText,
  DISCOVERY_LIMITS,
  discoveryBudgets,
  discoveryTotalsSchema,
  evidenceListSchema,
  identitySchema,
  identityView,
  limitArgs,
  MAX_SEEDS,
  mapCoverageView,
  mapScopeArgs,
  phasedProgress,
  proofScopeArgs,
  resolveEvidence,
  searchCoverageView,
  searchStatusSchema,
  tierSchema,
} from './proof-search.js';

/** Re-exported: the bench and nds_function_at name the discovery bounds by this tool. */
export { DISCOVERY_LIMITS };

const L = DISCOVERY_LIMITS;

/** One page of functions (either scope), and the callers and callees shown per function. */
export const FUNCTION_PAGE = {
  offset: { default: 0, min: 0, max: 10_000_000, unit: 'functions skipped' },
  limit: { default: 48, min: 1, max: 1024, unit: 'functions listed' },
} as const;
const SHOWN = 16;

export const ndsDiscoverFunctions = defineTool({
  name: 'nds_discover_functions',
  title: 'Discover functions and their call graph',
  profiles: ['static'],
  description: {
    purpose:
      'Functions, callers and callees: proven from the entry point (bounded), or every tier (program).',
    useWhen: 'the call graph; nds_analyze_function to prove one entry, nds_function_at for an address.',
    behaviour:
      'bounded: only proof makes an entry, never seeds; program: with tier and evidence. Paged; detail full lists callers/callees. No function end claimed.',
    limits: `${MAX_SEEDS} seeds.`,
  },
  input: z.object({
    rom: romArg,
    processor: processorArg,
    ...mapScopeArgs,
    ...proofScopeArgs,
    ...limitArgs(L),
    ...mapLimitArgs,
    offset: limitArg(FUNCTION_PAGE.offset),
    limit: limitArg(FUNCTION_PAGE.limit),
    detail: z
      .enum(['summary', 'full'])
      .default('summary')
      .describe("full adds each function's callers and callees (and bounded scope's call sites)."),
  }),
  output: z.object({
    status: searchStatusSchema,
    truncation: coverageFields.truncation,
    evidence: evidenceListSchema,
    components: coverageFields.components,
    coverage: coverageSchema,
    totals: discoveryTotalsSchema,
    byTier: z.object(
      Object.fromEntries(TIERS.map((t) => [t, z.number().int()])) as Record<
        (typeof TIERS)[number],
        z.ZodNumber
      >,
    ),
    page: z.object(pageOut).nullable().describe('program scope: which functions this page lists'),
    functions: z.array(
      z.object({
        identity: identitySchema,
        name: z.string().optional().describe('Its stored name (nds_symbols)'),
        component: componentKindSchema,
        evidence: evidenceListSchema,
        tier: tierSchema,
        analysed: z.boolean(),
        cfgStatus: z.enum(BOUNDED_STATUSES).nullable(),
        blocks: z.number().int(),
        callers: z
          .array(addressOut)
          .nullable()
          .describe('detail full: call-site addresses that prove this entry (program: the first 16)'),
        callerCount: z.number().int(),
        callees: z
          .array(
            z.object({
              at: addressOut,
              kind: z.enum(CALL_SITE_KINDS),
              target: addressOut,
              callee: identitySchema.optional(),
              unresolved: z.string().optional(),
            }),
          )
          .nullable()
          .describe('detail full: the calls this function makes (program: the first 16)'),
        calleeCount: z.number().int(),
      }),
    ),
    callSites: z.array(callSiteSchema).nullable().describe('bounded scope, detail full'),
    seeds: z.array(z.object({ identity: identitySchema, cfgStatus: z.enum(BOUNDED_STATUSES).nullable() })),
  }),
  annotations: READ_ONLY,
  limits: { ...L, ...MAP_LIMITS, ...FUNCTION_PAGE },
  async handler(args, ctx) {
    const chosen = resolveEvidence(args.scope, args.evidence);
    const progress = phasedProgress(ctx);
    const mp = mapProgress(ctx);
    return withToolRom(
      ctx,
      args.rom,
      async (rom, store) => {
        const p = args.processor;
        const full = args.detail === 'full';
        const names = await romNames(ctx, rom);
        if (args.scope === 'program') {
          const lowest = args.lowestTier ?? DEFAULT_LOWEST;
          const map = await toolMap(ctx, store, rom, p, chosen, args, mp.map);
          const accepted = map.functions.filter((f) => TIERS.indexOf(f.tier) <= TIERS.indexOf(lowest));
          const page = paginate(accepted, args.offset, args.limit);
          const w = map.built.walker;
          const callsIn = new Map<number, number[]>();
          for (let i = 0; i < w.calls.length; i++) {
            const block = w.calls.get(i).block;
            const list = callsIn.get(block) ?? [];
            list.push(i);
            callsIn.set(block, list);
          }
          const functions = page.items.map((f) => {
            const sites = map.callSitesOf(f);
            const body = map.built.bodies.get(f.key)!;
            const calls = body.blocks
              .flatMap((b) => callsIn.get(b) ?? [])
              .map((i) => w.calls.get(i))
              .filter((c) => c.target !== null && c.kind !== 'helper');
            const callees = !full
              ? null
              : calls.slice(0, SHOWN).map((c) => {
                  const callee =
                    c.targetComp !== null
                      ? map.functionOf(`${c.targetComp}|${c.targetMode}|${c.target}`)
                      : null;
                  return {
                    at: formatAddress(c.at),
                    kind: mapCallKind(c.kind),
                    target: formatAddress(c.target!),
                    ...(callee ? { callee: mapIdentityView(p, callee) } : {}),
                    ...(c.unresolved ? { unresolved: c.unresolved } : {}),
                  };
                });
            return {
              identity: mapIdentityView(p, f),
              ...nameField('name', names, p, f.address, f.component.overlayId),
              component: f.component.kind,
              evidence: evidenceOf(f),
              tier: f.tier,
              analysed: true,
              cfgStatus: null,
              blocks: f.blocks,
              callers: full ? sites.slice(0, SHOWN).map((c) => formatAddress(c.at)) : null,
              callerCount: sites.length,
              callees,
              calleeCount: calls.length,
            };
          });
          const coverage = mapCoverageView(map.coverage(lowest));
          const byTier = { proven: 0, referenced: 0, heuristic: 0 };
          for (const f of accepted) byTier[f.tier]++;
          const status = map.built.status === 'complete' ? ('complete' as const) : ('truncated' as const);
          return {
            structured: {
              status,
              truncation: [],
              evidence: chosen,
              components: mapComponentsCoverage(map),
              coverage,
              totals: {
                functions: accepted.length,
                callSites: w.calls.length,
                blocks: w.blocks.length,
                instructions: 0,
                bytes: coverage.codeBytes,
                edges: 0,
              },
              byTier,
              page: { total: page.total, offset: page.offset, nextOffset: page.nextOffset },
              functions,
              callSites: null,
              seeds: [],
            },
            text: `${p}: ${accepted.length} functions from the whole-program map (proven ${byTier.proven}, referenced ${byTier.referenced}, heuristic ${byTier.heuristic}), listing ${page.items.length} from ${page.offset}${page.nextOffset !== null ? `, next offset ${page.nextOffset}` : ''}; ${status}${full ? '' : '; detail full lists callers and callees'}\n${coverageText(coverage)}`,
          };
        }
        const evidence = new Set<Evidence>(chosen as Evidence[]);
        const covered = new CoverageCollector();
        const { result, components, status } = await discoverInRom(store, rom, {
          processor: args.processor,
          seeds: args.seeds,
          overlayIds: args.overlayIds,
          evidence,
          ...discoveryBudgets(args),
          signal: ctx.signal,
          onProgress: progress.work('functions'),
          onBlock: (block, span) => covered.block(block, span),
        });
        const coverage = searchCoverageView(
          covered.finish(rom.model, p, components, result.callSites, status === 'truncated'),
        );
        // One pass over the call sites (in their order) gives every function's callers and callees.
        const callersOf = new Map<string, CallSite[]>();
        const calleesOf = new Map<string, CallSite[]>();
        const push = (map: Map<string, CallSite[]>, key: string, s: CallSite) => {
          const list = map.get(key);
          if (list) list.push(s);
          else map.set(key, [s]);
        };
        for (const s of result.callSites) {
          if (s.callee) push(callersOf, identityKey(s.callee), s);
          if (!s.callerIsSeed) push(calleesOf, identityKey(s.caller), s);
        }
        const page = paginate(result.functions, args.offset, args.limit);
        const functions = page.items.map((f) => {
          const key = identityKey(f.identity);
          const callers = (callersOf.get(key) ?? []).map((s) => formatAddress(s.at));
          const callees = (calleesOf.get(key) ?? []).map((s) => ({
            at: formatAddress(s.at),
            kind: s.kind,
            target: formatAddress(s.target),
            ...(s.callee ? { callee: identityView(p, s.callee) } : {}),
            ...(s.unresolved ? { unresolved: s.unresolved } : {}),
          }));
          return {
            identity: identityView(p, f.identity),
            ...nameField('name', names, p, f.identity.address, f.identity.overlayId),
            component: f.identity.component as ComponentKind,
            evidence: f.evidence,
            tier: 'proven' as const,
            analysed: f.cfg !== null,
            cfgStatus: f.cfg?.status ?? null,
            blocks: f.cfg?.blocks.length ?? 0,
            callers: full ? callers : null,
            callerCount: callers.length,
            callees: full ? callees : null,
            calleeCount: callees.length,
          };
        });
        const byKind = (k: string) =>
          result.functions.filter((f) => f.evidence.includes(k as Evidence)).length;
        return {
          structured: {
            status,
            truncation: result.truncation,
            evidence: chosen,
            components,
            coverage,
            totals: {
              functions: result.functions.length,
              callSites: result.callSites.length,
              ...result.totals,
            },
            byTier: { proven: result.functions.length, referenced: 0, heuristic: 0 },
            page: { total: page.total, offset: page.offset, nextOffset: page.nextOffset },
            functions,
            callSites: full ? result.callSites.map((s) => callSiteView(p, s)) : null,
            seeds: result.seeds.map((s) => ({
              identity: identityView(p, s.identity),
              cfgStatus: s.cfg?.status ?? null,
            })),
          },
          text: `${p}: ${result.functions.length} proven functions (${byKind('direct-call')} by direct call, ${byKind('constant-register-call')} by constant-register call), ${result.callSites.length} call sites, listing ${page.items.length} from ${page.offset}${page.nextOffset !== null ? `, next offset ${page.nextOffset}` : ''}; ${status}${result.truncation.length ? ` (${result.truncation.join(', ')})` : ''}${full ? '' : '; detail full lists callers, callees and call sites'}\n${coverageText(coverage)}`,
        };
      },
      (done, total) => {
        progress.hash(done, total);
        mp.hash(done, total);
      },
    );
  },
});
