// desmume_breakpoint_remove: Remove a breakpoint.
import { z } from 'zod/v4';
import { formatAddress } from '../../core/vocabulary.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import {
  breakpointOutput,
  breakpointView,
  cpuOf,
  generationNumber,
  processorInput,
  RUNTIME,
} from './common.js';

export const desmumeBreakpointRemove = defineTool({
  name: 'desmume_breakpoint_remove',
  title: 'Remove a breakpoint',
  profiles: RUNTIME,
  description: {
    purpose: 'Removes one breakpoint of the current generation.',
    useWhen: 'a breakpoint has served; ids from desmume_breakpoint_add or _list.',
    behaviour: 'refused while running and for unknown ids.',
    limits: 'one per call.',
  },
  input: z.object({
    processor: processorInput,
    id: z.string().min(1).max(64).describe('E.g. "arm9-g1-bp1".'),
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
