// nds_discover_functions: the bounded proven-function call graph of one processor (program entry +
// direct calls + optionally constant-register calls), with callers and callees per function.
import { z } from 'zod/v4';
import { type CallSite, type Evidence, identityKey } from '../../analysis/functions/discover.js';
import { type ComponentKind, discoverInRom } from '../../analysis/functions/nds-scope.js';
import { addressOut, formatAddress } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { getRomStore } from '../../nds/rom-store.js';
import { processorArg, READ_ONLY, romArg } from '../shared/rom.js';
import {
  callSiteSchema,
  callSiteView,
  componentKindSchema,
  coverageFields,
  DISCOVERY_LIMITS,
  discoveryBudgets,
  discoveryTotalsSchema,
  evidenceListSchema,
  identitySchema,
  identityView,
  limitArgs,
  MAX_SEEDS,
  phasedProgress,
  proofScopeArgs,
  searchStatusSchema,
} from './common.js';

/** Re-exported: the bench and nds_function_at name the discovery bounds by this tool. */
export { DISCOVERY_LIMITS };

const L = DISCOVERY_LIMITS;

export const ndsDiscoverFunctions = defineTool({
  name: 'nds_discover_functions',
  title: 'Discover proven functions and their call graph',
  profiles: ['static'],
  description: {
    purpose: 'Proven functions, callers and callees, walking from the entry point.',
    useWhen:
      'the call graph; nds_analyze_function to prove one entry, nds_function_at for the function at an address.',
    behaviour: 'only evidence proves an entry, never seeds, pointers or prologues; no function end claimed.',
    limits: `${MAX_SEEDS} seeds.`,
  },
  input: z.object({
    rom: romArg,
    processor: processorArg,
    ...proofScopeArgs,
    ...limitArgs(L),
  }),
  output: z.object({
    status: searchStatusSchema,
    truncation: coverageFields.truncation,
    evidence: evidenceListSchema,
    components: coverageFields.components,
    totals: discoveryTotalsSchema,
    functions: z.array(
      z.object({
        identity: identitySchema,
        component: componentKindSchema,
        evidence: evidenceListSchema,
        analysed: z.boolean(),
        cfgStatus: z.enum(['complete', 'truncated']).nullable(),
        blocks: z.number().int(),
        callers: z.array(addressOut).describe('Call-site addresses that prove this entry'),
        callees: z.array(
          z.object({
            at: addressOut,
            kind: z.enum(['direct-call', 'constant-register-call']),
            target: addressOut,
            callee: identitySchema.optional(),
            unresolved: z.string().optional(),
          }),
        ),
      }),
    ),
    callSites: z.array(callSiteSchema),
    seeds: z.array(
      z.object({ identity: identitySchema, cfgStatus: z.enum(['complete', 'truncated']).nullable() }),
    ),
  }),
  annotations: READ_ONLY,
  limits: L,
  async handler(args, ctx) {
    const store = getRomStore(ctx.services);
    const progress = phasedProgress(ctx);
    return store.withRom(
      args.rom,
      async (rom) => {
        const evidence = new Set<Evidence>(args.evidence);
        const { result, components, status } = await discoverInRom(store, rom, {
          processor: args.processor,
          seeds: args.seeds,
          overlayIds: args.overlayIds,
          evidence,
          ...discoveryBudgets(args),
          signal: ctx.signal,
          onProgress: progress.work('functions'),
        });
        const p = args.processor;
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
        const functions = result.functions.map((f) => {
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
            component: f.identity.component as ComponentKind,
            evidence: f.evidence,
            analysed: f.cfg !== null,
            cfgStatus: f.cfg?.status ?? null,
            blocks: f.cfg?.blocks.length ?? 0,
            callers,
            callees,
          };
        });
        const byKind = (k: string) =>
          result.functions.filter((f) => f.evidence.includes(k as Evidence)).length;
        return {
          structured: {
            status,
            truncation: result.truncation,
            evidence: args.evidence,
            components,
            totals: { functions: functions.length, callSites: result.callSites.length, ...result.totals },
            functions,
            callSites: result.callSites.map((s) => callSiteView(p, s)),
            seeds: result.seeds.map((s) => ({
              identity: identityView(p, s.identity),
              cfgStatus: s.cfg?.status ?? null,
            })),
          },
          text: `${p}: ${functions.length} proven functions (${byKind('direct-call')} by direct call, ${byKind('constant-register-call')} by constant-register call), ${result.callSites.length} call sites; ${status}${result.truncation.length ? ` (${result.truncation.join(', ')})` : ''}`,
        };
      },
      ctx.signal,
      progress.hash,
    );
  },
});
