// desmume_breakpoint_add: Add a breakpoint.
import { z } from 'zod/v4';
import { addressArg, formatAddress } from '../../core/vocabulary.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import {
  breakpointOutput,
  breakpointView,
  cpuOf,
  generationNumber,
  liveNames,
  processorInput,
  RUNTIME,
} from './common.js';

export const desmumeBreakpointAdd = defineTool({
  name: 'desmume_breakpoint_add',
  title: 'Add a breakpoint',
  profiles: RUNTIME,
  description: {
    purpose: "Sets a breakpoint on an instruction in the CPU's executable allowlist.",
    useWhen: 'before desmume_continue; desmume_executable_ranges_replace widens the allowlist.',
    behaviour:
      'checked at fetch, memory unpatched; mode auto needs a fact (alignment, entry, PC, one-mode range), else refused; refused while running.',
    limits: `${LIMITS.breakpoints.max} per CPU; arm 4-, thumb 2-aligned.`,
  },
  input: z.object({
    processor: processorInput,
    address: addressArg(),
    mode: z.enum(['arm', 'thumb', 'auto']).default('auto'),
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
          breakpoint: breakpointView(bp, await liveNames(ctx, args.processor)),
          alreadyPresent: existed,
          active: cpu.breakpoints.size,
        },
        text: `${existed ? 'already set' : 'set'} ${bp.id} at ${formatAddress(bp.address)} (${bp.mode}) in ${bp.range}`,
      };
    });
  },
});
