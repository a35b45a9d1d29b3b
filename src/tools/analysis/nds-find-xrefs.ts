// nds_find_xrefs: every deterministic reference to one runtime address (src/analysis/answers/xrefs.ts):
// bounded, in the proven-reachable code of the selected static scope, references by value included
// (literal words, constant-register calls); program, every reference of the whole-program map.

import { z } from 'zod/v4';
import { findXrefs, type XrefsAnswer } from '../../analysis/answers/xrefs.js';
import { CONSTANT_CALL_VIAS } from '../../analysis/functions/constant-register.js';
import { REF_KINDS } from '../../analysis/program-map/map.js';
import { REF_MODES } from '../../analysis/program-map/types.js';
import { describeCopy } from '../../analysis/run-address.js';
import { ReMcpError } from '../../core/errors.js';
import {
  addressArg,
  addressOut,
  formatAddress,
  limitArg,
  nameOrAddressArg,
  type Processor,
  pageOut,
} from '../../core/vocabulary.js';
import type { SymbolTable } from '../../extract/symbol-store.js';
import { defineTool } from '../../mcp/tool.js';
import { nameField, romArgNames, storedName, storedNameOut } from '../shared/names.js';
import { processorArg, READ_ONLY, romArg } from '../shared/rom.js';
import {
  addressSearchLimits,
  componentKindSchema,
  coverageFields,
  coverageSchema,
  coverageText,
  FUNCTION_CFG_MAX,
  type LimitTable,
  MAX_SEEDS,
  modeSchema,
  questionArgs,
  SEEDS_LIMIT,
  searchLimits,
  searchStatusSchema,
  tierSchema,
} from './analysis-terms.js';
import { answerCall } from './answer-call.js';
import { MAP_LIMITS } from './map-args.js';

export const XREF_LIMITS = {
  ...addressSearchLimits({
    components: 'components',
    blocks: 'basic blocks',
    instructions: 'instructions',
    bytes: 'decoded source bytes',
    edges: 'traversal edges',
  }),
  maxXrefs: { default: 128, max: 2048, min: 1, unit: 'returned xrefs (program scope: a page)' },
} satisfies LimitTable;
const L = XREF_LIMITS;

/** The bounded search's kinds, then the map's (switch cases, table entries, data words). */
const KINDS = REF_KINDS;

/** Program scope pages its xrefs: maxXrefs a page, from this offset. */
const XREF_OFFSET = { default: 0, min: 0, max: 10_000_000, unit: 'xrefs skipped (program scope)' } as const;

/** One reference to the target, as the tool lists it. */
const xrefSchema = z.object({
  from: addressOut,
  fromName: z.string().optional().describe('The stored name nearest below from (nds_symbols): who uses it'),
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
});

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
    address: nameOrAddressArg('Or give romOffset').optional(),
    romOffset: addressArg('Must map to one runtime address').optional(),
    ...questionArgs(L),
    offset: limitArg(XREF_OFFSET),
  }),
  output: z.object({
    target: z.object({
      address: addressOut,
      name: storedNameOut,
      romOffset: addressOut.optional(),
      ownership: z
        .string()
        .describe(
          'resolved | ambiguous | bss | unmapped (static), copied (a start-up copy runs there: storedAt)',
        ),
      storedAt: addressOut.optional().describe('copied: where the ROM stores the bytes'),
      copy: z.string().optional().describe('That start-up copy (evidence)'),
      runsAt: addressOut
        .optional()
        .describe('Stored bytes a start-up copy runs elsewhere: where (their code is referenced there)'),
      runsAtName: z.string().optional(),
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
    xrefs: z.array(xrefSchema),
  }),
  annotations: READ_ONLY,
  limits: { ...L, offset: XREF_OFFSET, seeds: SEEDS_LIMIT, ...MAP_LIMITS },
  needs: { address: '0x02000000' },
  names: romArgNames,
  async handler(args, ctx) {
    if ((args.address === undefined) === (args.romOffset === undefined)) {
      throw new ReMcpError('invalid-argument', 'give exactly one of address and romOffset');
    }
    const target = args.address !== undefined ? { address: args.address } : { romOffset: args.romOffset! };
    const limits = searchLimits(args);
    return answerCall(
      ctx,
      args,
      'xref search',
      (src, question, opts) =>
        findXrefs(
          src,
          {
            ...question,
            target,
            maxXrefs: args.maxXrefs,
            offset: args.offset,
            limits,
            local: FUNCTION_CFG_MAX,
          },
          opts,
        ),
      (answer, names) => xrefsResult(args.processor, answer, names),
    );
  },
});

/** The target's copy fields and their words in the text: where a start-up copy runs or stores it. */
function copiedTarget(p: Processor, t: XrefsAnswer['target'], names: SymbolTable) {
  if (t.storedAt !== undefined && t.copy !== undefined)
    return {
      fields: { storedAt: formatAddress(t.storedAt), copy: describeCopy(t.copy) },
      text: ` (copied: runs here, stored at ${formatAddress(t.storedAt)})`,
    };
  if (t.runsAt !== undefined && t.runsAtCopy !== undefined) {
    const named = nameField('runsAtName', names, p, t.runsAt);
    return {
      fields: { runsAt: formatAddress(t.runsAt), ...named, copy: describeCopy(t.runsAtCopy) },
      text: ` (stored here; start-up copies it to run at ${formatAddress(t.runsAt)}${named.runsAtName ? ` (${named.runsAtName})` : ''}: ask there for its code's callers)`,
    };
  }
  return { fields: {}, text: '' };
}

/** An xrefs answer as the tool says it: addresses formatted, stored names beside them. */
function xrefsResult(p: Processor, a: XrefsAnswer, names: SymbolTable) {
  const at = formatAddress(a.target.address);
  const copied = copiedTarget(p, a.target, names);
  // Fields assigned in the schema's order, not spread: V8 builds a literal that spreads and then adds
  // fields many times slower, and a page has up to a few hundred of these.
  const xrefs = a.xrefs.map((x) => {
    const out: z.input<typeof xrefSchema> = { from: formatAddress(x.from) } as z.input<typeof xrefSchema>;
    const fromName = storedName(names, p, x.from, x.overlayId);
    if (fromName !== null) out.fromName = fromName;
    out.kind = x.kind;
    out.component = x.component;
    out.overlayId = x.overlayId;
    out.mode = x.mode;
    out.tier = x.tier;
    if (x.targetMode) out.targetMode = x.targetMode;
    if (x.slot !== undefined) out.slot = formatAddress(x.slot);
    if (x.value !== undefined) out.value = formatAddress(x.value);
    if (x.via) out.via = x.via;
    if (x.condition) out.condition = x.condition;
    if (x.table !== undefined) out.table = formatAddress(x.table);
    if (x.loadedBy !== undefined) out.loadedBy = x.loadedBy.map(formatAddress);
    return out;
  });
  const page = a.page;
  const verdict = `; ${a.status}${
    a.scope === 'bounded' && a.truncation.length ? ` (${a.truncation.join(', ')})` : ''
  }${a.definitive ? ', definitive' : ' - not a definitive negative'}`;
  const listing =
    page && (page.nextOffset !== null || page.offset > 0)
      ? `, listing ${xrefs.length} from ${page.offset}${page.nextOffset !== null ? `, next offset ${page.nextOffset}` : ''}`
      : '';
  return {
    structured: {
      target: {
        address: at,
        ...nameField('name', names, p, a.target.address),
        ...(a.target.romOffset !== null ? { romOffset: formatAddress(a.target.romOffset) } : {}),
        ownership: a.target.ownership,
        ...copied.fields,
      },
      status: a.status,
      definitive: a.definitive,
      truncation: a.truncation,
      components: a.components,
      coverage: a.coverage,
      page: a.page,
      totals: a.totals,
      xrefs,
    },
    text: `${p} ${at}${copied.text}: ${a.totals.xrefs} xref(s)${
      a.scope === 'program' ? ` from the whole-program map (${a.lowestTier} tier and above)${listing}` : ''
    }${verdict}\n${coverageText(a.coverage)}`,
  };
}
