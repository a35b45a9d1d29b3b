// Software breakpoints and the executable-range allowlist they must fall in.

import { z } from 'zod/v4';
import { addressArg, formatAddress } from '../../core/vocabulary.js';
import { LIMITS, validateRanges } from '../../debug/policy.js';
import { defineTool } from '../../mcp/tool.js';
import {
  breakpointOutput,
  breakpointView,
  cpuOf,
  debugSession,
  generationNumber,
  processorInput,
  RUNTIME,
  rangeOutput,
  rangeView,
} from './common.js';

export const desmumeBreakpointAdd = defineTool({
  name: 'desmume_breakpoint_add',
  title: 'Add a breakpoint',
  profiles: RUNTIME,
  description: {
    purpose: 'Sets a software breakpoint on an instruction inside the CPU’s executable allowlist.',
    useWhen:
      'before desmume_continue; desmume_executable_ranges_replace widens the allowlist (e.g. for overlays).',
    behaviour:
      'the stub checks breakpoints at instruction fetch (memory is not patched). "auto" resolves only from facts (2-but-not-4 alignment means Thumb, the entry point is ARM, the current PC, a single-mode range) and is refused when ambiguous. Adding an existing breakpoint returns it. Refuses while the target runs.',
    limits: `at most ${LIMITS.breakpoints.max} active per CPU; inside the header's main binary range or a replaced range; arm 4-aligned, thumb 2-aligned.`,
    returns: 'the breakpoint (id, address, mode, range, hits) and whether it already existed.',
  },
  input: z.object({
    processor: processorInput,
    address: addressArg('Instruction address'),
    mode: z
      .enum(['arm', 'thumb', 'auto'])
      .default('auto')
      .describe(
        'Instruction set at the address: "arm", "thumb" or "auto" (default; refused when ambiguous).',
      ),
  }),
  output: z.object({
    generation: z.number().int(),
    breakpoint: breakpointOutput,
    alreadyPresent: z.boolean(),
    active: z.number().int(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { breakpoints: { max: LIMITS.breakpoints.max, unit: 'active breakpoints per CPU' } },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const cpu = cpuOf(ctx.services, args.processor);
      const { bp, existed } = await cpu.addBreakpoint(args.address, args.mode);
      return {
        structured: {
          generation: generationNumber(ctx.services),
          breakpoint: breakpointView(bp),
          alreadyPresent: existed,
          active: cpu.breakpoints.size,
        },
        text: `${existed ? 'already set' : 'set'} ${bp.id} at ${formatAddress(bp.address)} (${bp.mode}) in ${bp.range}`,
      };
    });
  },
});

export const desmumeBreakpointRemove = defineTool({
  name: 'desmume_breakpoint_remove',
  title: 'Remove a breakpoint',
  profiles: RUNTIME,
  description: {
    purpose: 'Removes one breakpoint of the current generation by id.',
    useWhen: 'a breakpoint has served its purpose; ids come from desmume_breakpoint_add or _list.',
    behaviour:
      'sends the stub a breakpoint-remove packet; refuses while the target runs and for unknown ids.',
    limits: 'one breakpoint per call.',
    returns: 'the removed breakpoint (with its final hit count) and how many stay active.',
  },
  input: z.object({
    processor: processorInput,
    id: z.string().min(1).max(64).describe('Breakpoint id, e.g. "arm9-g1-bp1".'),
  }),
  output: z.object({ generation: z.number().int(), removed: breakpointOutput, active: z.number().int() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const cpu = cpuOf(ctx.services, args.processor);
      const bp = await cpu.removeBreakpoint(args.id);
      return {
        structured: {
          generation: generationNumber(ctx.services),
          removed: breakpointView(bp),
          active: cpu.breakpoints.size,
        },
        text: `removed ${bp.id} at ${formatAddress(bp.address)} after ${bp.hits} hits`,
      };
    });
  },
});

export const desmumeBreakpointList = defineTool({
  name: 'desmume_breakpoint_list',
  title: 'List breakpoints',
  profiles: RUNTIME,
  description: {
    purpose: 'Lists the current generation’s breakpoints with hit counts, and the executable allowlist.',
    useWhen: 'reviewing what is set before continuing.',
    behaviour: 'read-only; sends nothing to the stub.',
    limits: `at most ${LIMITS.breakpoints.max} breakpoints and ${LIMITS.ranges.max + 1} ranges per CPU.`,
    returns: 'breakpoints and allowlisted ranges for the requested CPU.',
  },
  input: z.object({ processor: processorInput }),
  output: z.object({
    generation: z.number().int(),
    breakpoints: z.array(breakpointOutput),
    executableRanges: z.array(rangeOutput),
    maxBreakpoints: z.number().int(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const cpu = cpuOf(ctx.services, args.processor);
    const breakpoints = [...cpu.breakpoints.values()].map(breakpointView);
    return {
      structured: {
        generation: generationNumber(ctx.services),
        breakpoints,
        executableRanges: cpu.allowlist.map(rangeView),
        maxBreakpoints: LIMITS.breakpoints.max,
      },
      text: `${args.processor}: ${breakpoints.length} breakpoints${breakpoints.map((b) => `\n${b.id} ${b.address} ${b.mode} hits ${b.hits}`).join('')}`,
    };
  },
});

export const desmumeExecutableRangesReplace = defineTool({
  name: 'desmume_executable_ranges_replace',
  title: 'Replace executable ranges',
  profiles: RUNTIME,
  description: {
    purpose:
      'Replaces the caller-supplied executable ranges (beyond the header’s main binary) that breakpoints may use.',
    useWhen: 'code runs outside the main binary, e.g. a loaded overlay or an autoload section.',
    behaviour:
      'replaces the whole caller list for that CPU (the header range always stays); refused if an active breakpoint would fall outside. Session-scoped: a new generation starts without them.',
    limits: `at most ${LIMITS.ranges.max} ranges; each non-empty inside the 32-bit space.`,
    returns: 'the resulting allowlist.',
  },
  input: z.object({
    processor: processorInput,
    ranges: z
      .array(
        z.object({
          start: addressArg('First byte'),
          end: addressArg('One past the last byte (exclusive)'),
          label: z.string().min(1).max(64).describe('A name, e.g. "overlay 3".'),
          mode: z
            .enum(['arm', 'thumb', 'mixed'])
            .default('mixed')
            .describe(
              'Instruction set of the whole range if known (lets "auto" breakpoints resolve); default "mixed".',
            ),
        }),
      )
      .max(LIMITS.ranges.max)
      .describe(`The new caller ranges (0..${LIMITS.ranges.max}); an empty list clears them.`),
  }),
  output: z.object({
    generation: z.number().int(),
    executableRanges: z.array(rangeOutput),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { ranges: { max: LIMITS.ranges.max, unit: 'ranges per CPU' } },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const cpu = cpuOf(ctx.services, args.processor);
      cpu.replaceRanges(validateRanges(args.ranges));
      return {
        structured: {
          generation: generationNumber(ctx.services),
          executableRanges: cpu.allowlist.map(rangeView),
        },
        text: `${args.processor}: ${cpu.ranges.length} caller ranges plus the main binary`,
      };
    });
  },
});
