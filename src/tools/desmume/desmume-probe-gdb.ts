// desmume_probe_gdb: Probe the owned GDB stub.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { debugSession, processorInput, RUNTIME } from './common.js';
import { probe, probeOutput } from './lifecycle-common.js';

export const desmumeProbeGdb = defineTool({
  name: 'desmume_probe_gdb',
  title: 'Probe the owned GDB stub',
  profiles: RUNTIME,
  description: {
    purpose: 'Checks once that the owned stub on 127.0.0.1 answers, over the session’s connection.',
    useWhen: 'a quick health check; desmume_wait_for_gdb waits longer.',
    behaviour:
      'sends a stop-status query only when halted (an unknown run state is reported as such); one reconnect attempt if the connection dropped.',
    limits: 'one connection attempt of at most 1000 ms; host fixed to 127.0.0.1 and the owned port.',
  },
  input: z.object({ processor: processorInput }),
  output: probeOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const session = debugSession(ctx.services);
    return session.exclusive(async () => {
      const result = await probe(ctx, args.processor, 1_000);
      return { structured: result, text: `${args.processor} stub on port ${result.port}: ${result.detail}` };
    });
  },
});
