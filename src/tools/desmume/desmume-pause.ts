// desmume_pause: Pause the target.
import { z } from 'zod/v4';
import { pause } from '../../debug/control.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import { cpuOf, describeStop, liveNames, msLimit, processorInput, RUNTIME, timeoutInput } from './common.js';
import { haltOutput, haltView } from './step-common.js';

export const desmumePause = defineTool({
  name: 'desmume_pause',
  title: 'Pause the target',
  profiles: RUNTIME,
  description: {
    purpose: 'Interrupts a running target and waits for it to halt.',
    useWhen: 'after desmume_continue returned "running", or to halt running code.',
    behaviour: 'GDB interrupt unless already halted; only the CPU whose stub resumed the emulation can.',
    limits: 'as timeoutMs says.',
  },
  input: z.object({
    processor: processorInput,
    timeoutMs: timeoutInput(LIMITS.pauseMs),
  }),
  output: haltOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { timeoutMs: msLimit(LIMITS.pauseMs) },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const outcome = await pause(cpuOf(ctx.services, args.processor), args.timeoutMs, ctx.signal);
      return {
        structured: haltView(ctx.services, args.processor, outcome, await liveNames(ctx, args.processor)),
        text: outcome.alreadyStopped
          ? `${args.processor} was already halted`
          : outcome.state === 'running'
            ? `${args.processor} did not halt within ${args.timeoutMs} ms`
            : describeStop(args.processor, outcome.stop),
      };
    });
  },
});
