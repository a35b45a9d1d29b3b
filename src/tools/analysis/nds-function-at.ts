// nds_function_at: the proven function(s) whose analysed CFG holds an address, from one bounded
// discovery; when none, whether that is a complete negative or a coverage gap.
import { z } from 'zod/v4';
import { type Evidence, identityKey } from '../../analysis/functions/discover.js';
import { type ComponentKind, discoverInRom } from '../../analysis/functions/nds-scope.js';
import { addressArg, addressOut, formatAddress } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { getRomStore } from '../../nds/rom-store.js';
import { overlayIdArg, processorArg, READ_ONLY, romArg } from '../shared/rom.js';
import {
  componentKindSchema,
  coverageFields,
  DISCOVERY_LIMITS,
  discoveryBudgets,
  evidenceListSchema,
  identitySchema,
  identityView,
  limitArgs,
  MAX_SEEDS,
  modeSchema,
  phasedProgress,
  proofScopeArgs,
  SEEDS_LIMIT,
  searchStatusSchema,
} from './common.js';

const L = DISCOVERY_LIMITS;

export const ndsFunctionAt = defineTool({
  name: 'nds_function_at',
  title: 'Proven function containing an address',
  profiles: ['static'],
  description: {
    purpose: 'Proven function(s) whose analysed CFG holds an address, with proof.',
    useWhen: 'which function holds an address; nds_analyze_function when you have the entry.',
    behaviour:
      'shared code lists every owner; complete-negative only when discovery completed, else coverage-gap.',
    limits: `${MAX_SEEDS} seeds.`,
  },
  input: z.object({
    rom: romArg,
    processor: processorArg,
    address: addressArg('Address inside a function'),
    overlayId: overlayIdArg("Only this overlay's blocks match."),
    ...proofScopeArgs,
    ...limitArgs(L),
  }),
  output: z.object({
    address: addressOut,
    reason: z.enum(['found', 'complete-negative', 'coverage-gap']),
    matches: z.array(
      z.object({
        identity: identitySchema,
        component: componentKindSchema,
        evidence: evidenceListSchema,
        callers: z.array(addressOut),
        block: z.object({ address: addressOut, end: addressOut, mode: modeSchema }),
      }),
    ),
    discovery: z.object({
      status: searchStatusSchema,
      ...coverageFields,
      functions: z.number().int(),
    }),
  }),
  annotations: READ_ONLY,
  limits: { ...L, seeds: SEEDS_LIMIT },
  async handler(args, ctx) {
    const store = getRomStore(ctx.services);
    const progress = phasedProgress(ctx);
    return store.withRom(
      args.rom,
      async (rom) => {
        const p = args.processor;
        const { result, components, status } = await discoverInRom(store, rom, {
          processor: p,
          seeds: args.seeds,
          overlayIds: args.overlayIds,
          evidence: new Set<Evidence>(args.evidence),
          ...discoveryBudgets(args),
          signal: ctx.signal,
          onProgress: progress.work('functions'),
        });
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
          matches.push({
            identity: identityView(p, f.identity),
            component: f.identity.component as ComponentKind,
            evidence: f.evidence,
            callers: result.callSites
              .filter((s) => s.callee && identityKey(s.callee) === key)
              .map((s) => formatAddress(s.at)),
            block: { address: formatAddress(block.address), end: formatAddress(block.end), mode: block.mode },
          });
        }
        const reason: 'found' | 'complete-negative' | 'coverage-gap' =
          matches.length > 0 ? 'found' : status === 'complete' ? 'complete-negative' : 'coverage-gap';
        return {
          structured: {
            address: formatAddress(args.address),
            reason,
            matches,
            discovery: {
              status,
              truncation: result.truncation,
              components,
              functions: result.functions.length,
            },
          },
          text: `${p} ${formatAddress(args.address)}: ${
            matches.length > 0
              ? matches
                  .map(
                    (m) => `in ${m.identity.mode} function ${m.identity.address} (${m.evidence.join(', ')})`,
                  )
                  .join('; ')
              : reason === 'complete-negative'
                ? 'in no proven function (discovery complete)'
                : `no proven function found, but discovery was ${status}: not a definitive negative`
          }`,
        };
      },
      ctx.signal,
      progress.hash,
    );
  },
});
