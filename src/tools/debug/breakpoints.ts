// The breakpoint tools: <emu>_breakpoint_add, _remove and _list, <emu>_breakpoint_condition
// (register and memory comparisons and a hit skip count checked by the server), and
// <emu>_executable_ranges_replace (the extra ranges of the allowlist breakpoints must lie in).
import { z } from 'zod/v4';
import { START_MODES } from '../../analysis/code-source.js';
import { ReMcpError } from '../../core/errors.js';
import { addressArg, addressOut, formatAddress, nameOrAddressArg, valueArg } from '../../core/vocabulary.js';
import type { Emulator } from '../../debug/backend.js';
import {
  type BreakCondition,
  COMPARE_OPS,
  CONDITION_LIMITS,
  describeCondition,
  REGISTER_NAMES,
  validateCondition,
} from '../../debug/conditions.js';
import { LIMITS, RANGE_MODES, validateRanges } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { emulatorTool, tool } from './per-emulator.js';
import {
  breakpointOutput,
  breakpointView,
  cpuOf,
  generationNumber,
  liveArgNames,
  liveNames,
  processorInput,
  RUNTIME,
  rangeOutput,
  rangeView,
} from './session-views.js';

// <emu>_breakpoint_add: Add a breakpoint.
export const emuBreakpointAdd = emulatorTool({
  verb: 'breakpoint_add',
  title: 'Add a breakpoint',
  profiles: RUNTIME,
  description: {
    purpose: "Sets a breakpoint on an instruction in the CPU's executable allowlist.",
    useWhen: (e) =>
      `before ${tool(e, 'continue')}; ${tool(e, 'executable_ranges_replace')} widens the allowlist.`,
    behaviour:
      'checked at fetch, memory unpatched; mode auto needs a fact (alignment, entry, PC, one-mode range), else refused; refused while running.',
    limits: `${LIMITS.breakpoints.max} per CPU; arm 4-, thumb 2-aligned.`,
  },
  input: z.object({
    processor: processorInput,
    address: nameOrAddressArg(),
    mode: z.enum(START_MODES).default('auto'),
  }),
  output: z.object({
    generation: z.number().int(),
    breakpoint: breakpointOutput,
    alreadyPresent: z.boolean(),
    active: z.number().int(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { breakpoints: { max: LIMITS.breakpoints.max, unit: 'active breakpoints per CPU' } },
  names: liveArgNames,
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const cpu = cpuOf(ctx.services, emu, args.processor);
      const { bp, existed } = await cpu.addBreakpoint(args.address, args.mode);
      return {
        structured: {
          generation: generationNumber(ctx.services, emu),
          breakpoint: breakpointView(bp, await liveNames(ctx, emu, args.processor)),
          alreadyPresent: existed,
          active: cpu.breakpoints.size,
        },
        text: `${existed ? 'already set' : 'set'} ${bp.id} at ${formatAddress(bp.address)} (${bp.mode}) in ${bp.range}`,
      };
    });
  },
});

// <emu>_breakpoint_remove: Remove a breakpoint.
export const emuBreakpointRemove = emulatorTool({
  verb: 'breakpoint_remove',
  title: 'Remove a breakpoint',
  profiles: RUNTIME,
  description: {
    purpose: 'Removes one breakpoint of the current generation.',
    useWhen: (e) => `a breakpoint has served; ids from ${tool(e, 'breakpoint_add')} or _list.`,
    behaviour: 'refused while running and for unknown ids.',
    limits: 'one per call.',
  },
  input: z.object({
    processor: processorInput,
    id: z.string().min(1).max(64).describe('E.g. "arm9-g1-bp1".'),
  }),
  output: z.object({ generation: z.number().int(), removed: breakpointOutput, active: z.number().int() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const cpu = cpuOf(ctx.services, emu, args.processor);
      const bp = await cpu.removeBreakpoint(args.id);
      return {
        structured: {
          generation: generationNumber(ctx.services, emu),
          removed: breakpointView(bp),
          active: cpu.breakpoints.size,
        },
        text: `removed ${bp.id} at ${formatAddress(bp.address)} after ${bp.hits} hits`,
      };
    });
  },
});

// <emu>_breakpoint_list: List breakpoints.
export const emuBreakpointList = emulatorTool({
  verb: 'breakpoint_list',
  title: 'List breakpoints',
  profiles: RUNTIME,
  description: {
    purpose: 'Lists the current generation’s breakpoints with hit counts, and the executable allowlist.',
    useWhen: 'reviewing what is set before continuing.',
    behaviour: 'sends nothing to the stub.',
    limits: `${LIMITS.breakpoints.max} breakpoints and ${LIMITS.ranges.max + 1} ranges per CPU.`,
  },
  input: z.object({ processor: processorInput }),
  output: z.object({
    generation: z.number().int(),
    breakpoints: z.array(breakpointOutput),
    executableRanges: z.array(rangeOutput),
    maxBreakpoints: z.number().int(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx, emu) {
    const cpu = cpuOf(ctx.services, emu, args.processor);
    const names = await liveNames(ctx, emu, args.processor);
    const breakpoints = [...cpu.breakpoints.values()].map((bp) => breakpointView(bp, names));
    return {
      structured: {
        generation: generationNumber(ctx.services, emu),
        breakpoints,
        executableRanges: cpu.allowlist.map(rangeView),
        maxBreakpoints: LIMITS.breakpoints.max,
      },
      text: `${args.processor}: ${breakpoints.length} breakpoints${breakpoints.map((b) => `\n${b.id} ${b.address} ${b.mode} hits ${b.hits}`).join('')}`,
    };
  },
});

// <emu>_breakpoint_condition: attaches (or clears) a server-side condition on a breakpoint, so that
// <emu>_continue passes over the hits that do not match instead of returning each one.
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
        address: nameOrAddressArg(),
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

function conditionView(c: BreakCondition): z.input<typeof conditionOutput> {
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

export const emuBreakpointCondition = emulatorTool({
  verb: 'breakpoint_condition',
  title: 'Set or clear a breakpoint condition',
  profiles: RUNTIME,
  description: {
    purpose: 'Attaches register/memory comparisons (all must hold) and a hit skip count to a breakpoint.',
    useWhen: 'one hit of a busy breakpoint matters (r0 == 0x020082c9, the 100th).',
    behaviour: (e) =>
      `${tool(e, 'continue')} passes the stops that do not match; setting replaces the condition and restarts its count.`,
    limits: `${CONDITION_LIMITS.comparisons.max} comparisons in all, memory ones aligned; skipHits up to ${CONDITION_LIMITS.skipHits.max}.`,
  },
  input: (e: Emulator) =>
    z.object({
      processor: processorInput,
      id: z
        .string()
        .min(1)
        .max(64)
        .describe(`From ${tool(e, 'breakpoint_add')}.`),
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
  // A memory comparison's address may be a stored name of the running ROM.
  names: liveArgNames,
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const cpu = cpuOf(ctx.services, emu, args.processor);
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
            generation: generationNumber(ctx.services, emu),
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
          generation: generationNumber(ctx.services, emu),
          id: args.id,
          condition: conditionView(condition),
          matchedHits: 0,
        },
        text: `${args.id}: stops when ${describeCondition(condition)}`,
      };
    });
  },
});

// <emu>_executable_ranges_replace: Replace executable ranges.
export const emuExecutableRangesReplace = emulatorTool({
  verb: 'executable_ranges_replace',
  title: 'Replace executable ranges',
  profiles: RUNTIME,
  description: {
    purpose: 'Replaces the extra executable ranges (beyond the main binary) for breakpoints.',
    useWhen: 'code outside the main binary, e.g. a loaded overlay or autoload section.',
    behaviour:
      "replaces the CPU's whole list; refused if an active breakpoint would fall outside; a new generation starts without them.",
    limits: `${LIMITS.ranges.max} ranges, each non-empty in the 32-bit space.`,
  },
  input: z.object({
    processor: processorInput,
    ranges: z
      .array(
        z.object({
          start: nameOrAddressArg(),
          end: nameOrAddressArg('Exclusive'),
          label: z.string().min(1).max(64).describe('E.g. "overlay 3".'),
          mode: z.enum(RANGE_MODES).default('mixed'),
        }),
      )
      .max(LIMITS.ranges.max)
      .describe('[] clears them.'),
  }),
  output: z.object({
    generation: z.number().int(),
    executableRanges: z.array(rangeOutput),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { ranges: { max: LIMITS.ranges.max, unit: 'ranges per CPU' } },
  // A range's ends may be stored names of the running ROM (name+0x200 for an end).
  names: liveArgNames,
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const cpu = cpuOf(ctx.services, emu, args.processor);
      cpu.replaceRanges(validateRanges(args.ranges));
      return {
        structured: {
          generation: generationNumber(ctx.services, emu),
          executableRanges: cpu.allowlist.map(rangeView),
        },
        text: `${args.processor}: ${cpu.ranges.length} caller ranges plus the main binary`,
      };
    });
  },
});
