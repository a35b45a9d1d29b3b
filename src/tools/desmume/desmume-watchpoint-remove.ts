// desmume_watchpoint_remove: removes one data watchpoint by id.
import { z } from 'zod/v4';
import { formatAddress } from '../../core/vocabulary.js';
import { debugSession } from '../../debug/service.js';
import { removeWatchpoint } from '../../debug/watchpoints.js';
import { defineTool } from '../../mcp/tool.js';
import { cpuOf, generationNumber, processorInput, RUNTIME } from './common.js';
import { watchpointOutput, watchpointView } from './watchpoint-common.js';

export const desmumeWatchpointRemove = defineTool({
  name: 'desmume_watchpoint_remove',
  title: 'Remove a data watchpoint',
  profiles: RUNTIME,
  description: {
    purpose: 'Removes one watchpoint of the current generation.',
    useWhen: 'a watchpoint has served; ids from desmume_watchpoint_add.',
    behaviour: 'refused while running and for unknown ids.',
    limits: 'one per call.',
  },
  input: z.object({
    processor: processorInput,
    id: z.string().min(1).max(64).describe('E.g. "arm9-g1-wp1".'),
  }),
  output: z.object({
    generation: z.number().int(),
    removed: watchpointOutput,
    active: z.array(watchpointOutput),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const cpu = cpuOf(ctx.services, args.processor);
      const wp = await removeWatchpoint(cpu, args.id);
      return {
        structured: {
          generation: generationNumber(ctx.services),
          removed: watchpointView(wp),
          active: [...cpu.watchpoints.values()].map(watchpointView),
        },
        text: `removed ${wp.id} (${wp.access} of ${formatAddress(wp.address)}) after ${wp.hits} hits`,
      };
    });
  },
});
