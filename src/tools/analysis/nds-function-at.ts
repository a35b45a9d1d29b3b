// nds_function_at: the function(s) holding an address (src/analysis/answers/function-at.ts): bounded,
// the proven functions whose analysed CFG holds it, from one discovery; program, the functions of the
// whole-program map whose code holds or reads it. When none, whether that is a complete negative or a
// coverage gap.

import { z } from 'zod/v4';
import { type FunctionAtAnswer, functionAt } from '../../analysis/answers/function-at.js';
import { FUNCTION_LOOKUPS } from '../../analysis/functions/coverage.js';
import { BYTE_CLASS_NAMES, HOLDER_VIAS } from '../../analysis/program-map/types.js';
import { addressOut, formatAddress, nameOrAddressArg, type Processor } from '../../core/vocabulary.js';
import type { SymbolTable } from '../../extract/symbol-store.js';
import { defineTool } from '../../mcp/tool.js';
import { romArgNames } from '../shared/names.js';
import { overlayIdArg, processorArg, READ_ONLY, romArg } from '../shared/rom.js';
import {
  componentKindSchema,
  coverageFields,
  coverageSchema,
  coverageText,
  DISCOVERY_LIMITS,
  discoveryBudgets,
  functionHeadFields,
  functionHeadView,
  MAX_SEEDS,
  modeSchema,
  questionArgs,
  questionLimits,
  searchStatusSchema,
  tierSchema,
} from './analysis-terms.js';
import { answerCall } from './answer-call.js';

const L = DISCOVERY_LIMITS;

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
    address: nameOrAddressArg('Address inside a function'),
    overlayId: overlayIdArg("Only this overlay's blocks match."),
    ...questionArgs(L),
  }),
  output: z.object({
    address: addressOut,
    reason: z.enum(FUNCTION_LOOKUPS),
    matches: z.array(
      z.object({
        ...functionHeadFields,
        callers: z.array(addressOut),
        callerCount: z.number().int(),
        shape: z
          .object({
            size: z.number().int(),
            end: addressOut,
            blocks: z.number().int(),
            callees: z.number().int(),
          })
          .nullable()
          .describe('program scope'),
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
  limits: questionLimits(L),
  names: romArgNames,
  async handler(args, ctx) {
    return answerCall(
      ctx,
      args,
      'functions',
      (src, question, opts) =>
        functionAt(
          src,
          { ...question, address: args.address, overlayId: args.overlayId, ...discoveryBudgets(args) },
          opts,
        ),
      (answer, names) => functionAtResult(args.processor, answer, names),
    );
  },
});

/** A function-at answer as the tool says it: identities and addresses formatted, stored names beside them. */
function functionAtResult(p: Processor, a: FunctionAtAnswer, names: SymbolTable) {
  const matches = a.matches.map((m) =>
    Object.assign(functionHeadView(p, names, m), {
      callers: m.callers.map(formatAddress),
      callerCount: m.callerCount,
      shape:
        m.shape === null
          ? null
          : {
              size: m.shape.bytes,
              end: formatAddress(m.shape.end),
              blocks: m.shape.blocks,
              callees: m.shape.callees,
            },
      via: m.via,
      block: m.block
        ? { address: formatAddress(m.block.address), end: formatAddress(m.block.end), mode: m.block.mode }
        : null,
    }),
  );
  const found = matches
    .map((m) =>
      a.scope === 'program'
        ? `${m.via === 'body' ? 'in' : `${m.via} of`} ${m.identity.mode} function ${m.identity.address} (${m.tier}: ${m.evidence.join(', ')})`
        : `in ${m.identity.mode} function ${m.identity.address} (${m.evidence.join(', ')})`,
    )
    .join('; ');
  const none =
    a.scope === 'program'
      ? `${a.bytes.map((b) => `${b.component} ${b.byteClass}${b.tier ? ` (${b.tier})` : ''}`).join(', ') || 'in no component'}; ${a.reason === 'complete-negative' ? 'in no function (the map is definitive)' : 'no function found: not a definitive negative'}`
      : a.reason === 'complete-negative'
        ? 'in no proven function (discovery complete, coverage definitive)'
        : `no proven function found (discovery ${a.discovery.status}): not a definitive negative`;
  return {
    structured: {
      address: formatAddress(a.address),
      reason: a.reason,
      matches,
      bytes: a.bytes,
      discovery: a.discovery,
      coverage: a.coverage,
    },
    text: `${p} ${formatAddress(a.address)}: ${matches.length > 0 ? found : none}\n${coverageText(a.coverage)}`,
  };
}
