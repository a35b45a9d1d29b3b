// desmume_breakpoint_list: List breakpoints.
import { z } from 'zod/v4';
import { LIMITS } from '../../debug/policy.js';
import { defineTool } from '../../mcp/tool.js';
import {
  breakpointOutput,
  breakpointView,
  cpuOf,
  generationNumber,
  liveNames,
  processorInput,
  RUNTIME,
  rangeOutput,
  rangeView,
} from './common.js';

export const desmumeBreakpointList = defineTool({
  name: 'desmume_breakpoint_list',
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
  async handler(args, ctx) {
    const cpu = cpuOf(ctx.services, args.processor);
    const names = await liveNames(ctx, args.processor);
    const breakpoints = [...cpu.breakpoints.values()].map((bp) => breakpointView(bp, names));
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
