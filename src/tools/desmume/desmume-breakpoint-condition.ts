// desmume_breakpoint_condition: attaches (or clears) a server-side condition on a breakpoint, so that
// desmume_continue passes over the hits that do not match instead of returning each one.
import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { addressArg, addressOut, formatAddress, valueArg } from '../../core/vocabulary.js';
import {
  type BreakCondition,
  COMPARE_OPS,
  CONDITION_LIMITS,
  describeCondition,
  REGISTER_NAMES,
  validateCondition,
} from '../../debug/conditions.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import { cpuOf, generationNumber, processorInput, RUNTIME } from './common.js';

const opInput = z.enum(COMPARE_OPS);

const conditionInput = z.object({
  registers: z
    .array(
      z.object({
        register: z.enum(REGISTER_NAMES),
        op: opInput,
        value: addressArg('Unsigned 32-bit'),
        mask: addressArg('ANDed with the register first').default(0xffff_ffff),
      }),
    )
    .max(CONDITION_LIMITS.comparisons.max)
    .default([]),
  memory: z
    .array(
      z.object({
        address: addressArg(),
        size: z.union([z.literal(1), z.literal(2), z.literal(4)]).describe('Bytes, little-endian.'),
        signed: z.boolean().default(false),
        op: opInput,
        value: valueArg('In the size and signedness given.'),
      }),
    )
    .max(CONDITION_LIMITS.comparisons.max)
    .default([]),
  skipHits: z
    .number()
    .int()
    .min(CONDITION_LIMITS.skipHits.min)
    .max(CONDITION_LIMITS.skipHits.max)
    .default(CONDITION_LIMITS.skipHits.default),
});

const conditionOutput = z.object({
  registers: z.array(
    z.object({
      register: z.enum(REGISTER_NAMES),
      op: z.enum(COMPARE_OPS),
      value: addressOut,
      mask: addressOut,
    }),
  ),
  memory: z.array(
    z.object({
      address: addressOut,
      size: z.number().int(),
      signed: z.boolean(),
      op: z.enum(COMPARE_OPS),
      value: z.number().int(),
    }),
  ),
  skipHits: z.number().int(),
  text: z.string(),
});

export function conditionView(c: BreakCondition): z.input<typeof conditionOutput> {
  return {
    registers: c.registers.map((r) => ({
      ...r,
      value: formatAddress(r.value >>> 0),
      mask: formatAddress(r.mask >>> 0),
    })),
    memory: c.memory.map((m) => ({ ...m, address: formatAddress(m.address) })),
    skipHits: c.skipHits,
    text: describeCondition(c),
  };
}

export const desmumeBreakpointCondition = defineTool({
  name: 'desmume_breakpoint_condition',
  title: 'Set or clear a breakpoint condition',
  profiles: RUNTIME,
  description: {
    purpose: 'Attaches register/memory comparisons (all must hold) and a hit skip count to a breakpoint.',
    useWhen: 'one hit of a busy breakpoint matters (r0 == 0x020082c9, the 100th).',
    behaviour:
      'desmume_continue passes the stops that do not match; setting replaces the condition and restarts its count.',
    limits: `${CONDITION_LIMITS.comparisons.max} comparisons in all, memory ones aligned; skipHits up to ${CONDITION_LIMITS.skipHits.max}.`,
  },
  input: z.object({
    processor: processorInput,
    id: z.string().min(1).max(64).describe('From desmume_breakpoint_add.'),
    condition: conditionInput.nullable().describe('null clears it.'),
  }),
  output: z.object({
    generation: z.number().int(),
    id: z.string(),
    condition: conditionOutput.nullable(),
    matchedHits: z.number().int(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: {
    comparisons: { max: CONDITION_LIMITS.comparisons.max, unit: 'comparisons' },
    skipHits: { ...CONDITION_LIMITS.skipHits, unit: 'hits' },
  },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const cpu = cpuOf(ctx.services, args.processor);
      if (!cpu.breakpoints.has(args.id)) {
        throw new ReMcpError(
          'not-found',
          `no ${args.processor} breakpoint with id ${args.id} in this generation`,
        );
      }
      if (args.condition === null) {
        cpu.conditions.delete(args.id);
        return {
          structured: {
            generation: generationNumber(ctx.services),
            id: args.id,
            condition: null,
            matchedHits: 0,
          },
          text: `${args.id}: condition cleared (stops at every hit)`,
        };
      }
      const condition = validateCondition({
        registers: args.condition.registers,
        memory: args.condition.memory.map((m) => ({ ...m, size: m.size as 1 | 2 | 4 })),
        skipHits: args.condition.skipHits,
      });
      cpu.conditions.set(args.id, { condition, matchedHits: 0 });
      return {
        structured: {
          generation: generationNumber(ctx.services),
          id: args.id,
          condition: conditionView(condition),
          matchedHits: 0,
        },
        text: `${args.id}: stops when ${describeCondition(condition)}`,
      };
    });
  },
});
