// desmume_wait_for_stop: Wait for a stop.
import { z } from 'zod/v4';
import { waitForStop } from '../../debug/control.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import { cpuOf, describeStop, liveNames, msLimit, processorInput, RUNTIME, timeoutInput } from './common.js';
import { haltOutput, haltView } from './step-common.js';

export const desmumeWaitForStop = defineTool({
  name: 'desmume_wait_for_stop',
  title: 'Wait for a stop',
  profiles: RUNTIME,
  description: {
    purpose: 'Waits for a running target to stop on its own (breakpoint).',
    useWhen: 'desmume_continue returned "running" and a stop is due; desmume_pause forces one.',
    behaviour: 'sends nothing; returns at once when halted. At the deadline the target keeps running.',
    limits: 'as timeoutMs says.',
  },
  input: z.object({ processor: processorInput, timeoutMs: timeoutInput(LIMITS.waitMs) }),
  output: haltOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { timeoutMs: msLimit(LIMITS.waitMs) },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const outcome = await waitForStop(cpuOf(ctx.services, args.processor), args.timeoutMs, ctx.signal);
      return {
        structured: haltView(ctx.services, args.processor, outcome, await liveNames(ctx, args.processor)),
        text:
          outcome.state === 'running'
            ? `${args.processor} still running`
            : describeStop(args.processor, outcome.stop),
      };
    });
  },
});
