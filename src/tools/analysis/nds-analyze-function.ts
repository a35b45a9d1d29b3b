// nds_analyze_function: the proof status of one exact function identity (processor + component +
// overlay + address + mode) from a focused bounded proof search, then its CFG when proven.

import { z } from 'zod/v4';
import { resolveStart, spanLookup } from '../../analysis/code-source.js';
import { CoverageCollector } from '../../analysis/functions/coverage.js';
import { type Evidence, identityIn, identityKey } from '../../analysis/functions/discover.js';
import { type ComponentKind, discoverInRom, SCOPE_STATUSES } from '../../analysis/functions/nds-scope.js';
import type { ComponentSet } from '../../analysis/program-map/components.js';
import type { ProgramMap } from '../../analysis/program-map/map.js';
import { TIER_RANK, TIERS, type Tier } from '../../analysis/program-map/types.js';
import { entryKey } from '../../analysis/program-map/walker.js';
import { analyzeControlFlow, type CfgResult, type CodeSpan, type SpanLookup } from '../../arm/cfg.js';
import { ARM_MODES, type ArmMode } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import { addressArg, addressOut, formatAddress, type Processor } from '../../core/vocabulary.js';
import type { SymbolTable } from '../../extract/symbol-store.js';
import { defineTool } from '../../mcp/tool.js';
import {
  cfgCallSchema,
  cfgEdgeSchema,
  cfgStatusSchema,
  cfgTruncationSchema,
} from '../shared/control-flow.js';
import { romNames } from '../shared/names.js';
import { overlayIdArg, processorArg, READ_ONLY, romArg, withToolRom } from '../shared/rom.js';
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
  discoveryTotalsSchema,
  evidenceListSchema,
  FUNCTION_CFG_MAX,
  identitySchema,
  identityView,
  type LimitTable,
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
  tierSchema,
} from './proof-search.js';

/** A proven entry; a definitive negative; or neither. */
const PROOF_STATUSES = ['proven', 'not-proven-function-entry', 'proof-inconclusive'] as const;
type ProofStatus = (typeof PROOF_STATUSES)[number];

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
  title: 'Prove a function entry, show its CFG',
  profiles: ['static'],
  description: {
    purpose: 'Checks one exact entry against the evidence: proving call sites, CFG if proven.',
    useWhen:
      'before naming a function; nds_discover_functions for the call graph, nds_function_at inside one.',
    behaviour:
      'stops once proven; proof-inconclusive on truncation or a coverage gap; no function end claimed.',
    limits: `${MAX_SEEDS} seeds.`,
  },
  input: z.object({
    rom: romArg,
    processor: processorArg,
    address: addressArg('Entry; must resolve to one code source'),
    mode: z.enum(ARM_MODES).describe('arm 4-, thumb 2-aligned.'),
    overlayId: overlayIdArg('Overlay holding the entry; not a loaded flag.'),
    ...mapScopeArgs,
    ...proofScopeArgs,
    ...limitArgs(L),
    ...mapLimitArgs,
  }),
  output: z.object({
    identity: identitySchema,
    name: z.string().nullable(),
    component: componentKindSchema,
    proof: z.object({
      status: z.enum(PROOF_STATUSES),
      evidence: evidenceListSchema,
      tier: tierSchema.nullable().describe('program scope: the best tier of its evidence; null when none'),
      sites: z.array(callSiteSchema),
    }),
    search: z.object({
      status: z.enum([...SCOPE_STATUSES, 'stopped-when-proven']),
      ...coverageFields,
      totals: discoveryTotalsSchema,
    }),
    coverage: coverageSchema,
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
          const map = await toolMap(ctx, store, rom, p, evidence, args, mp.map);
          return programProof(map, { ...args, names }, args.lowestTier ?? DEFAULT_LOWEST, ctx.signal);
        }
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
        const covered = new CoverageCollector();
        const { result, components, status } = await discoverInRom(store, rom, {
          processor: p,
          seeds: args.seeds,
          overlayIds: args.overlayIds,
          evidence: new Set<Evidence>(evidence as Evidence[]),
          onBlock: (block, span) => covered.block(block, span),
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
        const coverage = searchCoverageView(
          covered.finish(
            rom.model,
            p,
            components,
            result.callSites,
            status === 'truncated' || result.stoppedWhenProven,
          ),
        );
        // A negative is definitive only when the search completed and left nothing unanalysed.
        const proofStatus: ProofStatus = found
          ? 'proven'
          : status === 'complete' && coverage.definitive
            ? 'not-proven-function-entry'
            : 'proof-inconclusive';
        let cfg: ReturnType<typeof cfgView> | null = null;
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
          cfg = cfgView(r);
        }
        // A search that stopped at the proof did not finish: never call it complete.
        const searchStatus: typeof status | 'stopped-when-proven' = result.stoppedWhenProven
          ? 'stopped-when-proven'
          : status;
        return {
          structured: {
            identity: identityView(p, identity),
            name: names.nameOf(p, identity.address, identity.overlayId),
            component: identity.component as ComponentKind,
            proof: {
              status: proofStatus,
              evidence: found?.evidence ?? [],
              tier: found ? ('proven' as const) : null,
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
            coverage,
            cfg,
          },
          text: `${p} ${src.mode} ${formatAddress(src.address)}: ${proofStatus}${found ? ` by ${found.evidence.join(', ')}; CFG ${cfg?.blocks.length} blocks (${cfg?.status})` : ` (search ${status})`}\n${coverageText(coverage)}`,
        };
      },
      (done, total) => {
        progress.hash(done, total);
        mp.hash(done, total);
      },
    );
  },
});

/** A CFG in the output form (an autoload block's index is on search.components; blocks name the component only). */
function cfgView(r: CfgResult) {
  return {
    status: r.status,
    truncation: r.truncation,
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

/** Cross-component lookup over the map's components (copied code included). */
function mapLookup(set: ComponentSet): SpanLookup {
  return async (address, _mode, from: CodeSpan) => {
    const home = set.list.find((c) => c.span.bytes === from.bytes && c.start === from.start);
    const found = set.lookup(address, home);
    return 'component' in found ? { span: found.component.span } : { unresolved: found.unresolved };
  };
}

interface ProgramProofArgs {
  /** Stored names: the entry's is shown beside its identity. */
  names: SymbolTable;
  processor: Processor;
  address: number;
  mode: ArmMode;
  overlayId?: number | undefined;
  maxCfgBlocks: number;
  maxCfgInstructions: number;
  maxCfgBytes: number;
  maxCfgEdges: number;
}

/** The proof of one entry from the whole-program map: its evidence and tier, its call sites, its CFG. */
async function programProof(map: ProgramMap, args: ProgramProofArgs, lowest: Tier, signal: AbortSignal) {
  const p = args.processor;
  const holders = map.set
    .holding(args.address)
    .filter((c) => args.overlayId === undefined || c.overlayId === args.overlayId);
  if (holders.length === 0)
    throw new ReMcpError('not-code', `${p} ${formatAddress(args.address)} is in no component of the map`, {
      processor: p,
      address: args.address,
    });
  if (holders.length > 1)
    throw new ReMcpError(
      'ambiguous-code-source',
      `${p} ${formatAddress(args.address)} lies in ${holders.length} components; pass overlayId`,
      { processor: p, address: args.address },
    );
  const comp = holders[0]!;
  if (args.address % (args.mode === 'arm' ? 4 : 2) !== 0)
    throw new ReMcpError(
      'invalid-argument',
      `${args.mode} code starts ${args.mode === 'arm' ? 4 : 2}-byte aligned; ${formatAddress(args.address)} is not`,
    );
  const key = entryKey(comp.index, args.mode, args.address);
  const entry = map.built.walker.entries.get(key);
  const fn = entry && entry.state !== 'refused' ? map.functionOf(key) : null;
  const accepted = entry && entry.state !== 'refused' && TIER_RANK[TIERS[entry.tier]!] <= TIER_RANK[lowest];
  const provenCoverage = map.coverage('proven');
  const coverage = mapCoverageView(map.coverage(lowest));
  const status: ProofStatus =
    entry && entry.state !== 'refused' && entry.tier === 0
      ? 'proven'
      : !entry && provenCoverage.definitive
        ? 'not-proven-function-entry'
        : 'proof-inconclusive';
  const identity = mapIdentityView(p, { component: comp, address: args.address, mode: args.mode });
  const sites = fn
    ? map.callSitesOf(fn).map((c) => {
        const caller = map
          .holders(c.at, 'heuristic')
          .find((h) => h.component.index === c.comp)
          ?.functions.find((f) => f.via === 'body')?.fn;
        return {
          at: formatAddress(c.at),
          kind: mapCallKind(c.kind),
          caller: caller ? mapIdentityView(p, caller) : identity,
          target: formatAddress(c.target!),
          targetMode: c.targetMode!,
          callee: identity,
          ...(c.conditional ? { condition: 'conditional' } : {}),
          ...(c.definedAt !== null ? { definedAt: formatAddress(c.definedAt) } : {}),
          ...(c.slot !== null ? { slot: formatAddress(c.slot) } : {}),
        };
      })
    : [];
  let cfg: ReturnType<typeof cfgView> | null = null;
  if (accepted) {
    const r = await analyzeControlFlow({
      processor: p,
      span: comp.span,
      address: args.address,
      mode: args.mode,
      limits: {
        blocks: args.maxCfgBlocks,
        instructions: args.maxCfgInstructions,
        bytes: args.maxCfgBytes,
        edges: args.maxCfgEdges,
      },
      lookup: mapLookup(map.set),
      signal,
    });
    cfg = cfgView(r);
  }
  const tier = entry && entry.state !== 'refused' ? TIERS[entry.tier]! : null;
  return {
    structured: {
      identity,
      name: args.names.nameOf(p, args.address, comp.overlayId),
      component: comp.kind,
      proof: {
        status,
        evidence: fn
          ? evidenceOf(fn)
          : entry
            ? ([...new Set(entry.evidence.map((e) => e.class))] as ReturnType<typeof evidenceOf>)
            : [],
        tier,
        sites,
      },
      search: {
        status: map.built.status === 'complete' ? ('complete' as const) : ('truncated' as const),
        truncation: [],
        components: mapComponentsCoverage(map),
        totals: {
          functions: map.functions.length,
          callSites: map.built.walker.calls.length,
          blocks: map.built.walker.blocks.length,
          instructions: 0,
          bytes: coverage.codeBytes,
          edges: 0,
        },
      },
      coverage,
      cfg,
    },
    text: `${p} ${args.mode} ${formatAddress(args.address)}: ${status}${tier ? ` (${tier}: ${[...new Set(entry!.evidence.map((e) => e.class))].join(', ')})` : ''}${cfg ? `; CFG ${cfg.blocks.length} blocks (${cfg.status})` : ''}${fn && fn.key !== key ? `; a second entry of the function at ${formatAddress(fn.address)}` : ''}\n${coverageText(coverage)}`,
  };
}
