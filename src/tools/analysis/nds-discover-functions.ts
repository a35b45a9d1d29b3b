// nds_discover_functions: a processor's functions with their callers and callees
// (src/analysis/answers/discover.ts): bounded, the proven call graph from the program entry (direct
// calls, optionally constant-register calls); program, every function of the whole-program map.

import { z } from 'zod/v4';
import {
  type CalleeAnswer,
  type DiscoverAnswer,
  discoverFunctions,
  FUNCTION_ORDERS,
} from '../../analysis/answers/discover.js';
import { CALL_SITE_KINDS } from '../../analysis/functions/discover.js';
import { TIERS } from '../../analysis/program-map/types.js';
import {
  addressOut,
  BOUNDED_STATUSES,
  formatAddress,
  limitArg,
  type Processor,
  pageOut,
} from '../../core/vocabulary.js';
import type { SymbolTable } from '../../extract/symbol-store.js';
import { defineTool } from '../../mcp/tool.js';
import { romArgNames } from '../shared/names.js';
import { processorArg, READ_ONLY, romArg } from '../shared/rom.js';
import {
  callSiteSchema,
  callSiteView,
  coverageFields,
  coverageSchema,
  coverageText,
  DISCOVERY_LIMITS,
  discoveryBudgets,
  discoveryTotalsSchema,
  evidenceListSchema,
  functionHeadFields,
  functionHeadView,
  identitySchema,
  identityView,
  MAX_SEEDS,
  questionArgs,
  searchStatusSchema,
} from './analysis-terms.js';
import { answerCall } from './answer-call.js';
import { MAP_LIMITS } from './map-args.js';

/** Re-exported: the bench and nds_function_at name the discovery bounds by this tool. */
export { DISCOVERY_LIMITS };

const L = DISCOVERY_LIMITS;

/** One page of functions (either scope). */
const FUNCTION_PAGE = {
  offset: { default: 0, min: 0, max: 10_000_000, unit: 'functions skipped' },
  limit: { default: 48, min: 1, max: 1024, unit: 'functions listed' },
} as const;

export const ndsDiscoverFunctions = defineTool({
  name: 'nds_discover_functions',
  title: 'Discover functions and their call graph',
  profiles: ['static'],
  description: {
    purpose:
      'Functions, callers and callees: proven from the entry point (bounded), or every tier (program).',
    useWhen: 'the call graph; nds_analyze_function to prove one entry, nds_function_at for an address.',
    behaviour:
      'bounded: only proof makes an entry, never seeds; program: tier, evidence, size and end of its code. Paged; detail full lists callers/callees.',
    limits: `${MAX_SEEDS} seeds.`,
  },
  input: z.object({
    rom: romArg,
    processor: processorArg,
    ...questionArgs(L),
    offset: limitArg(FUNCTION_PAGE.offset),
    limit: limitArg(FUNCTION_PAGE.limit),
    detail: z
      .enum(['summary', 'full'])
      .default('summary')
      .describe("full adds each function's callers and callees (and bounded scope's call sites)."),
    order: z.enum(FUNCTION_ORDERS).default('address').describe('size: program scope.'),
    name: z.string().min(1).max(256).optional().describe('Stored name contains (any case).'),
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
        ...functionHeadFields,
        analysed: z.boolean(),
        cfgStatus: z.enum(BOUNDED_STATUSES).nullable(),
        blocks: z.number().int(),
        size: z.number().int().nullable(),
        end: addressOut.nullable(),
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
  names: romArgNames,
  async handler(args, ctx) {
    return answerCall(
      ctx,
      args,
      'functions',
      async (src, question, opts, names) => {
        const table = args.name === undefined ? null : await names();
        return discoverFunctions(
          src,
          {
            ...question,
            detail: args.detail,
            offset: args.offset,
            limit: args.limit,
            order: args.order,
            name: args.name,
            nameOf: table
              ? (address, overlayId) => table.nameOf(args.processor, address, overlayId)
              : undefined,
            ...discoveryBudgets(args),
          },
          opts,
        );
      },
      (answer, names) => discoveryResult(args.processor, answer, names, args.detail === 'full'),
    );
  },
});

/** One call a function makes, as the tool says it (fields assigned in the schema's order, no spreads). */
function calleeView(p: Processor, c: CalleeAnswer) {
  const out: {
    at: string;
    kind: CalleeAnswer['kind'];
    target: string;
    callee?: ReturnType<typeof identityView>;
    unresolved?: string;
  } = { at: formatAddress(c.at), kind: c.kind, target: formatAddress(c.target) };
  if (c.callee) out.callee = identityView(p, c.callee);
  if (c.unresolved) out.unresolved = c.unresolved;
  return out;
}

/** A discovery answer as the tool says it: identities and addresses formatted, stored names beside them. */
function discoveryResult(p: Processor, a: DiscoverAnswer, names: SymbolTable, full: boolean) {
  const functions = a.functions.map((f) =>
    Object.assign(functionHeadView(p, names, f), {
      analysed: f.analysed,
      cfgStatus: f.cfgStatus,
      blocks: f.blocks,
      size: f.bytes,
      end: f.end === null ? null : formatAddress(f.end),
      callers: f.callers === null ? null : f.callers.map(formatAddress),
      callerCount: f.callerCount,
      callees: f.callees === null ? null : f.callees.map((c) => calleeView(p, c)),
      calleeCount: f.calleeCount,
    }),
  );
  const { page, byTier } = a;
  const listing = `listing ${a.functions.length} from ${page.offset}${page.nextOffset !== null ? `, next offset ${page.nextOffset}` : ''}`;
  return {
    structured: {
      status: a.status,
      truncation: a.truncation,
      evidence: a.evidence,
      components: a.components,
      coverage: a.coverage,
      totals: a.totals,
      byTier,
      page,
      functions,
      callSites: a.callSites === null ? null : a.callSites.map((s) => callSiteView(p, s)),
      seeds: a.seeds.map((s) => ({ identity: identityView(p, s.ref), cfgStatus: s.cfgStatus })),
    },
    text:
      a.scope === 'program'
        ? `${p}: ${a.totals.functions} functions from the whole-program map (proven ${byTier.proven}, referenced ${byTier.referenced}, heuristic ${byTier.heuristic}), ${listing}; ${a.status}${full ? '' : '; detail full lists callers and callees'}\n${coverageText(a.coverage)}`
        : `${p}: ${a.totals.functions} proven functions (${a.byEvidence['direct-call'] ?? 0} by direct call, ${a.byEvidence['constant-register-call'] ?? 0} by constant-register call), ${a.totals.callSites} call sites, ${listing}; ${a.status}${a.truncation.length ? ` (${a.truncation.join(', ')})` : ''}${full ? '' : '; detail full lists callers, callees and call sites'}\n${coverageText(a.coverage)}`,
  };
}
