// desmume_probe_gdb: Probe the owned GDB stub.
import { z } from 'zod/v4';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import { processorInput, RUNTIME } from './common.js';
import { probe, probeOutput } from './lifecycle-common.js';

export const desmumeProbeGdb = defineTool({
  name: 'desmume_probe_gdb',
  title: 'Probe the owned GDB stub',
  profiles: RUNTIME,
  description: {
    purpose: "Checks once that the owned stub answers on the session's connection.",
    useWhen: 'a quick health check; desmume_wait_for_gdb waits longer.',
    behaviour: 'stop-status query only when halted; one reconnect after a drop.',
    limits: 'one 1000 ms attempt on 127.0.0.1.',
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
