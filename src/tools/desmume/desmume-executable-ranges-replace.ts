// desmume_executable_ranges_replace: Replace executable ranges.
import { z } from 'zod/v4';
import { addressArg } from '../../core/vocabulary.js';
import { LIMITS, validateRanges } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import { cpuOf, generationNumber, processorInput, RUNTIME, rangeOutput, rangeView } from './common.js';

export const desmumeExecutableRangesReplace = defineTool({
  name: 'desmume_executable_ranges_replace',
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
          start: addressArg(),
          end: addressArg('Exclusive'),
          label: z.string().min(1).max(64).describe('E.g. "overlay 3".'),
          mode: z.enum(['arm', 'thumb', 'mixed']).default('mixed'),
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
