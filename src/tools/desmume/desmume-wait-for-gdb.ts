// desmume_wait_for_gdb: Wait for the owned GDB stub.
import { z } from 'zod/v4';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import { msLimit, processorInput, RUNTIME, timeoutInput } from './common.js';
import { probe, probeOutput } from './lifecycle-common.js';

export const desmumeWaitForGdb = defineTool({
  name: 'desmume_wait_for_gdb',
  title: 'Wait for the owned GDB stub',
  profiles: RUNTIME,
  description: {
    purpose: 'Waits until the owned stub answers, reconnecting after a drop.',
    useWhen: 'right after desmume_start, or after a connection-drop error.',
    behaviour:
      'a reconnect keeps breakpoints, but a target that was running is "unknown" until desmume_pause.',
    limits: 'as timeoutMs says.',
  },
  input: z.object({
    processor: processorInput,
    timeoutMs: timeoutInput(LIMITS.gdbWaitMs),
  }),
  output: probeOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: {
    timeoutMs: msLimit(LIMITS.gdbWaitMs),
  },
  async handler(args, ctx) {
    const session = debugSession(ctx.services);
    return session.exclusive(async () => {
      const result = await probe(ctx, args.processor, args.timeoutMs);
      return {
        structured: result,
        text: `${args.processor} stub on port ${result.port} ready: ${result.detail}`,
      };
    });
  },
});
