// nds_analyze_function: the proof status of one exact function identity (processor + component +
// overlay + address + mode) from a focused bounded proof search, then its CFG when proven.
import { z } from 'zod/v4';
import { resolveStart, spanLookup } from '../../analysis/code-source.js';
import { type Evidence, identityIn, identityKey } from '../../analysis/functions/discover.js';
import { type ComponentKind, discoverInRom } from '../../analysis/functions/nds-scope.js';
import { analyzeControlFlow } from '../../arm/cfg.js';
import { ReMcpError } from '../../core/errors.js';
import { addressArg, addressOut, formatAddress } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { getRomStore } from '../../nds/rom-store.js';
import {
  cfgCallSchema,
  cfgEdgeSchema,
  cfgStatusSchema,
  cfgTruncationSchema,
} from '../shared/control-flow.js';
import { overlayIdArg, processorArg, READ_ONLY, romArg } from '../shared/rom.js';
import {
  callSiteSchema,
  callSiteView,
  componentKindSchema,
  coverageFields,
  discoveryTotalsSchema,
  evidenceListSchema,
  FUNCTION_CFG_MAX,
  identitySchema,
  identityView,
  type LimitTable,
  limitArgs,
  MAX_SEEDS,
  modeSchema,
  phasedProgress,
  proofScopeArgs,
  SEEDS_LIMIT,
} from './common.js';

export const ANALYZE_FUNCTION_LIMITS = {
  maxComponents: { default: 32, max: 128, min: 1, unit: 'components considered' },
  maxBlocks: { default: 128, max: 512, min: 1, unit: 'blocks decoded' },
  maxInstructions: { default: 2048, max: 16384, min: 1, unit: 'instructions decoded' },
  maxBytes: { default: 8192, max: 65536, min: 2, unit: 'decoded bytes' },
  maxEdges: { default: 512, max: 4096, min: 1, unit: 'traversal edges' },
  maxProofSites: { default: 256, max: 2048, min: 1, unit: 'call-site proofs' },
  maxCfgBlocks: { default: 64, max: 256, min: 1, unit: 'target CFG basic blocks' },
  maxCfgInstructions: { default: 512, max: 4096, min: 1, unit: 'target CFG instructions' },
  maxCfgBytes: { default: 2048, max: 16384, min: 2, unit: 'target CFG decoded bytes' },
  maxCfgEdges: { default: 128, max: 1024, min: 1, unit: 'target CFG traversal edges' },
} satisfies LimitTable;
const L = ANALYZE_FUNCTION_LIMITS;

export const ndsAnalyzeFunction = defineTool({
  name: 'nds_analyze_function',
  title: 'Prove one function entry and show its CFG',
  profiles: ['static'],
  description: {
    purpose: 'Checks one exact entry against the evidence: proving call sites, CFG if proven.',
    useWhen:
      'before naming a function; nds_discover_functions for the call graph, nds_function_at for an address inside one.',
    behaviour:
      'stops once proven; proof-inconclusive on truncation or a coverage gap; no function end claimed.',
    limits: `${MAX_SEEDS} seeds.`,
  },
  input: z.object({
    rom: romArg,
    processor: processorArg,
    address: addressArg('Entry; must resolve to one code source'),
    mode: z.enum(['arm', 'thumb']).describe('arm 4-, thumb 2-aligned.'),
    overlayId: overlayIdArg('Overlay holding the entry; not a loaded flag.'),
    ...proofScopeArgs,
    ...limitArgs(L),
  }),
  output: z.object({
    identity: identitySchema,
    component: componentKindSchema,
    proof: z.object({
      status: z.enum(['proven', 'not-proven-function-entry', 'proof-inconclusive']),
      evidence: evidenceListSchema,
      sites: z.array(callSiteSchema),
    }),
    search: z.object({
      status: z.enum(['complete', 'partial-coverage', 'truncated', 'stopped-when-proven']),
      ...coverageFields,
      totals: discoveryTotalsSchema,
    }),
    cfg: z
      .object({
        status: cfgStatusSchema,
        truncation: cfgTruncationSchema,
        blocks: z.array(
          z.object({
            id: z.number().int(),
            component: componentKindSchema,
            overlayId: z.number().int().nullable(),
            mode: modeSchema,
            address: addressOut,
            end: addressOut,
            terminator: z.string(),
            calls: z.array(cfgCallSchema),
          }),
        ),
        edges: z.array(cfgEdgeSchema),
      })
      .nullable(),
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
        const src = await resolveStart(
          store,
          rom,
          {
            processor: p,
            address: args.address,
            overlayId: args.overlayId,
            mode: args.mode,
            autoloads: p === 'arm9',
          },
          ctx.signal,
        );
        if (src.derived) {
          throw new ReMcpError(
            'not-code',
            `${formatAddress(args.address)} is in decoded (compressed) code; a function proof needs file-backed uncompressed code`,
            { processor: p, address: args.address },
          );
        }
        const identity = identityIn(src.span, src.address, src.mode);
        const key = identityKey(identity);
        const { result, components, status } = await discoverInRom(store, rom, {
          processor: p,
          seeds: args.seeds,
          overlayIds: args.overlayIds,
          evidence: new Set<Evidence>(args.evidence),
          limits: {
            components: args.maxComponents,
            functions: args.maxBlocks,
            callSites: args.maxProofSites,
            blocks: args.maxBlocks,
            instructions: args.maxInstructions,
            bytes: args.maxBytes,
            edges: args.maxEdges,
          },
          local: FUNCTION_CFG_MAX,
          signal: ctx.signal,
          onProgress: progress.work('proof search'),
          stopWhenProven: identity,
        });
        const found = result.functions.find((f) => identityKey(f.identity) === key);
        const sites = result.callSites.filter((s) => s.callee && identityKey(s.callee) === key);
        const proofStatus: 'proven' | 'not-proven-function-entry' | 'proof-inconclusive' = found
          ? 'proven'
          : status === 'complete'
            ? 'not-proven-function-entry'
            : 'proof-inconclusive';
        let cfg = null;
        if (found) {
          const r = await analyzeControlFlow({
            processor: p,
            span: src.span,
            address: src.address,
            mode: src.mode,
            limits: {
              blocks: args.maxCfgBlocks,
              instructions: args.maxCfgInstructions,
              bytes: args.maxCfgBytes,
              edges: args.maxCfgEdges,
            },
            lookup: spanLookup(store, rom, p, ctx.signal, { autoloads: p === 'arm9' }),
            signal: ctx.signal,
          });
          cfg = {
            status: r.status,
            truncation: r.truncation,
            // An autoload block's index is on search.components; blocks name the component only.
            blocks: r.blocks.map((b) => ({
              id: b.id,
              component: b.component as ComponentKind,
              overlayId: b.overlayId,
              mode: b.mode,
              address: formatAddress(b.address),
              end: formatAddress(b.end),
              terminator: b.terminator,
              calls: b.calls.map((c) => ({
                at: formatAddress(c.at),
                ...(c.target !== undefined ? { target: formatAddress(c.target) } : {}),
                ...(c.targetMode ? { targetMode: c.targetMode } : {}),
                ...(c.condition ? { condition: c.condition } : {}),
              })),
            })),
            edges: r.edges.map((e) => ({
              from: e.from,
              to: e.to,
              kind: e.kind,
              target: formatAddress(e.target),
              targetMode: e.targetMode,
              ...(e.unresolved ? { unresolved: e.unresolved } : {}),
            })),
          };
        }
        // A search that stopped at the proof did not finish: never call it complete.
        const searchStatus: typeof status | 'stopped-when-proven' = result.stoppedWhenProven
          ? 'stopped-when-proven'
          : status;
        return {
          structured: {
            identity: identityView(p, identity),
            component: identity.component as ComponentKind,
            proof: {
              status: proofStatus,
              evidence: found?.evidence ?? [],
              sites: sites.map((s) => callSiteView(p, s)),
            },
            search: {
              status: searchStatus,
              truncation: result.truncation,
              components,
              totals: {
                functions: result.functions.length,
                callSites: result.callSites.length,
                ...result.totals,
              },
            },
            cfg,
          },
          text: `${p} ${src.mode} ${formatAddress(src.address)}: ${proofStatus}${found ? ` by ${found.evidence.join(', ')}; CFG ${cfg?.blocks.length} blocks (${cfg?.status})` : ` (search ${status})`}`,
        };
      },
      ctx.signal,
      progress.hash,
    );
  },
});
