// desmume_executable_ranges_replace: Replace executable ranges.
import { z } from 'zod/v4';
import { addressArg } from '../../core/vocabulary.js';
import { LIMITS, validateRanges } from '../../debug/policy.js';
import { defineTool } from '../../mcp/tool.js';
import {
  cpuOf,
  debugSession,
  generationNumber,
  processorInput,
  RUNTIME,
  rangeOutput,
  rangeView,
} from './common.js';

export const desmumeExecutableRangesReplace = defineTool({
  name: 'desmume_executable_ranges_replace',
  title: 'Replace executable ranges',
  profiles: RUNTIME,
  description: {
    purpose:
      'Replaces the caller-supplied executable ranges (beyond the header’s main binary) that breakpoints may use.',
    useWhen: 'code runs outside the main binary, e.g. a loaded overlay or an autoload section.',
    behaviour:
      'replaces the CPU’s whole caller list (the header range stays); refused if an active breakpoint would fall outside; a new generation starts without them.',
    limits: `at most ${LIMITS.ranges.max} ranges; each non-empty inside the 32-bit space.`,
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
            .describe('Instruction set of the whole range if known (lets auto breakpoints resolve).'),
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
