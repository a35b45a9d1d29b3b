// nds_analyze_function: the proof status of one exact function identity (processor + component +
// overlay + address + mode) and its CFG when proven (src/analysis/answers/prove-entry.ts): bounded, a
// focused proof search; program, the entry as the whole-program map knows it.

import { z } from 'zod/v4';
import {
  PROOF_SEARCH_STATUSES,
  PROOF_STATUSES,
  type ProveEntryAnswer,
  proveEntry,
} from '../../analysis/answers/prove-entry.js';
import type { ComponentKind } from '../../analysis/functions/nds-bounded.js';
import type { CfgResult } from '../../arm/cfg.js';
import { ARM_MODES } from '../../arm/types.js';
import { addressOut, formatAddress, nameOrAddressArg, type Processor } from '../../core/vocabulary.js';
import type { SymbolTable } from '../../extract/symbol-store.js';
import { defineTool } from '../../mcp/tool.js';
import {
  cfgCallSchema,
  cfgEdgeSchema,
  cfgStatusSchema,
  cfgTruncationSchema,
} from '../shared/control-flow.js';
import { romArgNames } from '../shared/names.js';
import { overlayIdArg, processorArg, READ_ONLY, romArg } from '../shared/rom.js';
import {
  addressSearchLimits,
  callSiteSchema,
  callSiteView,
  componentKindSchema,
  coverageFields,
  coverageSchema,
  coverageText,
  discoveryTotalsSchema,
  evidenceListSchema,
  FUNCTION_CFG_LIMITS,
  FUNCTION_CFG_MAX,
  identitySchema,
  identityView,
  type LimitTable,
  MAX_SEEDS,
  modeSchema,
  questionArgs,
  questionLimits,
  searchLimits,
  tierSchema,
} from './analysis-terms.js';
import { answerCall } from './answer-call.js';

const ANALYZE_FUNCTION_LIMITS = {
  ...addressSearchLimits({
    components: 'components considered',
    blocks: 'blocks decoded',
    instructions: 'instructions decoded',
    bytes: 'decoded bytes',
    edges: 'traversal edges',
  }),
  maxProofSites: { default: 256, max: 2048, min: 1, unit: 'call-site proofs' },
  maxCfgBlocks: { ...FUNCTION_CFG_LIMITS.maxFunctionBlocks, unit: 'target CFG basic blocks' },
  maxCfgInstructions: { ...FUNCTION_CFG_LIMITS.maxFunctionInstructions, unit: 'target CFG instructions' },
  maxCfgBytes: { ...FUNCTION_CFG_LIMITS.maxFunctionBytes, unit: 'target CFG decoded bytes' },
  maxCfgEdges: { ...FUNCTION_CFG_LIMITS.maxFunctionEdges, unit: 'target CFG traversal edges' },
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
    address: nameOrAddressArg('Entry; must resolve to one code source'),
    mode: z.enum(ARM_MODES).describe('arm 4-, thumb 2-aligned.'),
    overlayId: overlayIdArg('Overlay holding the entry; not a loaded flag.'),
    ...questionArgs(L),
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
      status: z.enum(PROOF_SEARCH_STATUSES),
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
  limits: questionLimits(L),
  names: romArgNames,
  async handler(args, ctx) {
    const limits = { ...searchLimits(args), proofSites: args.maxProofSites };
    const cfg = {
      blocks: args.maxCfgBlocks,
      instructions: args.maxCfgInstructions,
      bytes: args.maxCfgBytes,
      edges: args.maxCfgEdges,
    };
    return answerCall(
      ctx,
      args,
      'proof search',
      (src, question, opts) =>
        proveEntry(
          src,
          {
            ...question,
            address: args.address,
            mode: args.mode,
            overlayId: args.overlayId,
            limits,
            local: FUNCTION_CFG_MAX,
            cfg,
          },
          opts,
        ),
      (answer, names) => proofResult(args.processor, answer, names),
    );
  },
});

/** A proof answer as the tool says it: identities and addresses formatted, the entry's stored name. */
function proofResult(p: Processor, a: ProveEntryAnswer, names: SymbolTable) {
  const cfg = a.cfg && cfgView(a.cfg);
  const { ref, proof } = a;
  const how =
    a.scope === 'program'
      ? `${proof.tier ? ` (${proof.tier}: ${a.entryEvidence.join(', ')})` : ''}${cfg ? `; CFG ${cfg.blocks.length} blocks (${cfg.status})` : ''}${a.secondaryOf !== null ? `; a second entry of the function at ${formatAddress(a.secondaryOf)}` : ''}`
      : proof.status === 'proven'
        ? ` by ${proof.evidence.join(', ')}; CFG ${cfg?.blocks.length} blocks (${cfg?.status})`
        : ` (search ${a.search.status})`;
  return {
    structured: {
      identity: identityView(p, ref),
      name: names.nameOf(p, ref.address, ref.overlayId),
      component: ref.component,
      proof: { ...proof, sites: proof.sites.map((s) => callSiteView(p, s)) },
      search: a.search,
      coverage: a.coverage,
      cfg,
    },
    text: `${p} ${ref.mode} ${formatAddress(ref.address)}: ${proof.status}${how}\n${coverageText(a.coverage)}`,
  };
}

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
