// desmume_stop: Stop the owned DeSmuME.
import { z } from 'zod/v4';
import { debugSession } from '../../debug/service.js';
import { describeExit } from '../../debug/session.js';
import { defineTool } from '../../mcp/tool.js';
import { RUNTIME } from './common.js';

export const desmumeStop = defineTool({
  name: 'desmume_stop',
  title: 'Stop the owned DeSmuME',
  profiles: RUNTIME,
  description: {
    purpose: "Ends the owned DeSmuME and discards its generation's debugger state.",
    useWhen: 'finishing a session, or before desmume_start on another ROM.',
    behaviour:
      'SIGKILLs after closing GDB; breakpoints, ranges and stop state are gone; no-op when nothing runs.',
    limits: 'waits up to 5000 ms for the exit.',
  },
  input: z.object({}),
  output: z.object({
    stopped: z.boolean(),
    generation: z.number().int().nullable(),
    exit: z.string().nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async handler(_args, ctx) {
    const result = await debugSession(ctx.services).stop();
    if (result === null) {
      return {
        structured: { stopped: false, generation: null, exit: null },
        text: 'no owned DeSmuME was running',
      };
    }
    const exit = describeExit(result.exit);
    return {
      structured: { stopped: true, generation: result.generation, exit },
      text: `stopped DeSmuME generation ${result.generation} (${exit})`,
    };
  },
});
