// nds_find_xrefs: every deterministic reference to one runtime address in the proven-reachable code
// of the selected static scope (FIFO from the program entry and coverage seeds; proven calls expand
// coverage), including references by value (literal words, constant-register calls).

import { z } from 'zod/v4';
import { CONSTANT_CALL_VIAS } from '../../analysis/functions/constant-register.js';
import { CoverageCollector } from '../../analysis/functions/coverage.js';
import type { Evidence } from '../../analysis/functions/discover.js';
import { type ComponentKind, discoverInRom } from '../../analysis/functions/nds-scope.js';
import { REF_KINDS } from '../../analysis/program-map/refs.js';
import { REF_MODES } from '../../analysis/program-map/types.js';
import { XrefCollector } from '../../analysis/xrefs/match.js';
import { ReMcpError } from '../../core/errors.js';
import {
  addressArg,
  addressOut,
  type BoundedStatus,
  formatAddress,
  limitArg,
  type Processor,
  pageOut,
  paginate,
} from '../../core/vocabulary.js';
import { resolveRomOffset, resolveRuntimeAddress } from '../../formats/nds/index.js';
import { defineTool } from '../../mcp/tool.js';
import type { RomHandle } from '../../nds/rom-store.js';
import { nameField, romNames } from '../shared/names.js';
import { processorArg, READ_ONLY, romArg, withToolRom } from '../shared/rom.js';
import {
  DEFAULT_LOWEST,
  MAP_LIMITS,
  mapComponentsCoverage,
  mapLimitArgs,
  mapProgress,
  toolMap,
} from './map-scope.js';
import {
  componentKindSchema,
  coverageFields,
  coverageSchema,
  coverageText,
  FUNCTION_CFG_MAX,
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
  searchStatusSchema,
  tierSchema,
  type truncationSchema,
} from './proof-search.js';

export const XREF_LIMITS = {
  maxComponents: { default: 32, max: 128, min: 1, unit: 'components' },
  maxBlocks: { default: 128, max: 512, min: 1, unit: 'basic blocks' },
  maxInstructions: { default: 2048, max: 16384, min: 1, unit: 'instructions' },
  maxBytes: { default: 8192, max: 65536, min: 2, unit: 'decoded source bytes' },
  maxEdges: { default: 512, max: 4096, min: 1, unit: 'traversal edges' },
  maxXrefs: { default: 128, max: 2048, min: 1, unit: 'returned xrefs (program scope: a page)' },
} satisfies LimitTable;
const L = XREF_LIMITS;

/** The bounded search's kinds, then the map's (switch cases, table entries, data words). */
const KINDS = REF_KINDS;

/** Program scope pages its xrefs: maxXrefs a page, from this offset. */
const XREF_OFFSET = { default: 0, min: 0, max: 10_000_000, unit: 'xrefs skipped (program scope)' } as const;

/** The one runtime address a ROM offset denotes for `processor`, or a refusal. */
export function runtimeOfRomOffset(rom: RomHandle, processor: Processor, offset: number): number {
  const owners = resolveRomOffset(rom.model, offset).filter(
    (o) =>
      'processor' in o &&
      o.processor === processor &&
      o.runtimeAddress !== undefined &&
      o.runtimeAddress !== null,
  );
  const addresses = [...new Set(owners.map((o) => o.runtimeAddress as number))];
  if (addresses.length === 0) {
    throw new ReMcpError(
      'not-code',
      `ROM offset ${formatAddress(offset)} maps to no ${processor} runtime address (structural, NitroFS-only or compressed bytes are not xref targets)`,
      { romOffset: offset },
    );
  }
  if (addresses.length > 1) {
    throw new ReMcpError(
      'ambiguous-code-source',
      `ROM offset ${formatAddress(offset)} maps to ${addresses.length} ${processor} runtime addresses`,
      { romOffset: offset },
    );
  }
  return addresses[0]!;
}

export const ndsFindXrefs = defineTool({
  name: 'nds_find_xrefs',
  title: 'Find references to an address',
  profiles: ['static'],
  description: {
    purpose: 'Every reference to an address: instructions, and (program scope) data words and tables.',
    useWhen: 'who calls, jumps to or loads X; nds_list_references for what one window references.',
    behaviour:
      'bounded: walks from the entry point and seeds (overlays when seeded or called); program: with tiers. literal-pool: the slot is the target, literal-value: its word (or target|1).',
    limits: `${MAX_SEEDS} seeds.`,
  },
  input: z.object({
    rom: romArg,
    processor: processorArg,
    address: addressArg('Or give romOffset').optional(),
    romOffset: addressArg('Must map to one runtime address').optional(),
    ...mapScopeArgs,
    ...proofScopeArgs,
    ...limitArgs(L),
    ...mapLimitArgs,
    offset: limitArg(XREF_OFFSET),
  }),
  output: z.object({
    target: z.object({
      address: addressOut,
      name: z.string().optional().describe('Its stored name (nds_symbols)'),
      romOffset: addressOut.optional(),
      ownership: z
        .string()
        .describe('resolved | ambiguous | bss | unmapped (static ownership of the address)'),
    }),
    status: searchStatusSchema,
    definitive: z.boolean().describe('True only when no reference beyond these can exist: see coverage'),
    ...coverageFields,
    coverage: coverageSchema,
    page: z.object(pageOut).nullable().describe('program scope: which xrefs this page lists'),
    totals: z.object({
      xrefs: z.number().int(),
      functions: z.number().int(),
      blocks: z.number().int(),
      instructions: z.number().int(),
      bytes: z.number().int(),
      edges: z.number().int(),
    }),
    xrefs: z.array(
      z.object({
        from: addressOut,
        fromName: z
          .string()
          .optional()
          .describe('The stored name nearest below from (nds_symbols): who uses it'),
        kind: z.enum(KINDS),
        component: componentKindSchema,
        overlayId: z.number().int().nullable(),
        mode: z.enum(REF_MODES),
        tier: tierSchema,
        targetMode: modeSchema.optional(),
        slot: addressOut.optional(),
        value: addressOut.optional(),
        via: z.enum(CONSTANT_CALL_VIAS).optional(),
        condition: z.string().optional(),
        table: addressOut.optional().describe('A data reference: the first word of its table'),
        loadedBy: z.array(addressOut).optional().describe('Instructions loading that table'),
      }),
    ),
  }),
  annotations: READ_ONLY,
  limits: { ...L, offset: XREF_OFFSET, seeds: SEEDS_LIMIT, ...MAP_LIMITS },
  needs: { address: '0x02000000' },
  async handler(args, ctx) {
    if ((args.address === undefined) === (args.romOffset === undefined)) {
      throw new ReMcpError('invalid-argument', 'give exactly one of address and romOffset');
    }
    const evidence = resolveEvidence(args.scope, args.evidence);
    const progress = phasedProgress(ctx);
    const mp = mapProgress(ctx);
    return withToolRom(
      ctx,
      args.rom,
      async (rom, store) => {
        const target =
          args.address !== undefined
            ? args.address
            : runtimeOfRomOffset(rom, args.processor, args.romOffset!);
        const ownership = resolveRuntimeAddress(rom.model, args.processor, target).status;
        const names = await romNames(ctx, rom);
        const targetView = {
          address: formatAddress(target),
          ...nameField('name', names, args.processor, target),
          ...(args.romOffset !== undefined ? { romOffset: formatAddress(args.romOffset) } : {}),
          ownership,
        };
        if (args.scope === 'program') {
          const lowest = args.lowestTier ?? DEFAULT_LOWEST;
          const map = await toolMap(ctx, store, rom, args.processor, evidence, args, mp.map);
          const all = map.xrefs(target, lowest);
          const coverage = mapCoverageView(map.coverage(lowest));
          // Every xref is known here: more than a page is paged, not truncated.
          const truncation: z.infer<typeof truncationSchema>[] = [];
          const status: BoundedStatus = map.built.status !== 'complete' ? 'truncated' : 'complete';
          const page = paginate(all, args.offset, args.maxXrefs);
          const xrefs = page.items.map((x) => ({
            from: formatAddress(x.from),
            ...nameField('fromName', names, args.processor, x.from, x.component.overlayId),
            kind: x.kind,
            component: x.component.kind,
            overlayId: x.component.overlayId,
            mode: x.mode,
            tier: x.tier,
            ...(x.slot !== null ? { slot: formatAddress(x.slot), value: formatAddress(x.to) } : {}),
            ...(x.conditional ? { condition: 'conditional' } : {}),
            ...(x.table !== null
              ? { table: formatAddress(x.table), loadedBy: x.loadedBy.map(formatAddress) }
              : {}),
          }));
          const definitive = status === 'complete' && coverage.definitive;
          return {
            structured: {
              target: targetView,
              status,
              definitive,
              truncation,
              components: mapComponentsCoverage(map),
              coverage,
              page: { total: page.total, offset: page.offset, nextOffset: page.nextOffset },
              totals: {
                xrefs: all.length,
                functions: map.functions.length,
                blocks: map.built.walker.blocks.length,
                instructions: 0,
                bytes: coverage.codeBytes,
                edges: 0,
              },
              xrefs,
            },
            text: `${args.processor} ${formatAddress(target)}: ${all.length} xref(s) from the whole-program map (${lowest} tier and above)${page.nextOffset !== null || page.offset > 0 ? `, listing ${xrefs.length} from ${page.offset}${page.nextOffset !== null ? `, next offset ${page.nextOffset}` : ''}` : ''}; ${status}${definitive ? ', definitive' : ' - not a definitive negative'}\n${coverageText(coverage)}`,
          };
        }
        const collector = new XrefCollector(target, args.maxXrefs);
        const covered = new CoverageCollector();
        const { result, components, status } = await discoverInRom(store, rom, {
          processor: args.processor,
          seeds: args.seeds,
          overlayIds: args.overlayIds,
          evidence: new Set<Evidence>(evidence as Evidence[]),
          // Functions and call sites are bounded by blocks and instructions (one block per function,
          // one instruction per call site), so they never bind first.
          limits: {
            components: args.maxComponents,
            functions: args.maxBlocks,
            callSites: args.maxInstructions,
            blocks: args.maxBlocks,
            instructions: args.maxInstructions,
            bytes: args.maxBytes,
            edges: args.maxEdges,
          },
          local: FUNCTION_CFG_MAX,
          signal: ctx.signal,
          onProgress: progress.work('xref search'),
          onBlock: (block, span) => {
            collector.block(block, span);
            covered.block(block, span);
          },
        });
        for (const s of result.callSites) {
          if (s.kind !== 'constant-register-call' || s.target !== target || !s.callee) continue;
          collector.add({
            from: s.at,
            kind: 'constant-register-call',
            component: s.caller.component,
            overlayId: s.caller.overlayId,
            mode: s.caller.mode,
            targetMode: s.targetMode,
            ...(s.via ? { via: s.via } : {}),
            ...(s.condition ? { condition: s.condition } : {}),
          });
        }
        const truncation: string[] = result.truncation.map((t) =>
          t === 'function-limit' ? 'block-limit' : t,
        );
        if (collector.overflow) truncation.push('xref-limit');
        const finalTruncation = [...new Set(truncation)].sort() as z.infer<typeof truncationSchema>[];
        const finalStatus = finalTruncation.length > 0 ? 'truncated' : status;
        const coverage = searchCoverageView(
          covered.finish(
            rom.model,
            args.processor,
            components,
            result.callSites,
            finalStatus === 'truncated',
          ),
        );
        const xrefs = collector.xrefs
          .sort((a, b) => a.from - b.from || a.kind.localeCompare(b.kind))
          .map((x) => ({
            from: formatAddress(x.from),
            ...nameField('fromName', names, args.processor, x.from, x.overlayId),
            kind: x.kind,
            component: x.component as ComponentKind,
            overlayId: x.overlayId,
            mode: x.mode,
            tier: 'proven' as const,
            ...(x.targetMode ? { targetMode: x.targetMode } : {}),
            ...(x.slot !== undefined ? { slot: formatAddress(x.slot) } : {}),
            ...(x.value !== undefined ? { value: formatAddress(x.value) } : {}),
            ...(x.via ? { via: x.via } : {}),
            ...(x.condition ? { condition: x.condition } : {}),
          }));
        const definitive = finalStatus === 'complete' && coverage.definitive;
        return {
          structured: {
            target: targetView,
            status: finalStatus,
            definitive,
            truncation: finalTruncation,
            components,
            coverage,
            page: null,
            totals: { xrefs: xrefs.length, functions: result.functions.length, ...result.totals },
            xrefs,
          },
          text: `${args.processor} ${formatAddress(target)}: ${xrefs.length} xref(s); ${finalStatus}${finalTruncation.length ? ` (${finalTruncation.join(', ')})` : ''}${definitive ? ', definitive' : ' - not a definitive negative'}\n${coverageText(coverage)}`,
        };
      },
      (done, total) => {
        progress.hash(done, total);
        mp.hash(done, total);
      },
    );
  },
});
