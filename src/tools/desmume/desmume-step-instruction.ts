// desmume_step_instruction: Single-step instructions.
import { z } from 'zod/v4';
import { addressOut } from '../../core/vocabulary.js';
import { stepInstructions } from '../../debug/control.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import {
  cpuOf,
  describeStop,
  liveNames,
  msLimit,
  processorInput,
  RUNTIME,
  runOutput,
  runView,
  timeoutInput,
} from './common.js';

export const desmumeStepInstruction = defineTool({
  name: 'desmume_step_instruction',
  title: 'Single-step instructions',
  profiles: RUNTIME,
  description: {
    purpose: 'Executes single instructions on the halted CPU, recording each PC.',
    useWhen: 'a few instructions; desmume_step_over/_out over calls.',
    behaviour:
      'breakpoints do not fire while stepping; a step that times out leaves the target running. midThumbBlPair: between Thumb BL halves.',
    limits: 'argument bounds.',
  },
  input: z.object({
    processor: processorInput,
    count: z
      .number()
      .int()
      .describe(`${LIMITS.steps.min}..${LIMITS.steps.max}.`)
      .default(LIMITS.steps.default),
    stepTimeoutMs: timeoutInput(LIMITS.stepWaitMs),
  }),
  output: z.object({
    ...runOutput,
    completed: z.number().int(),
    trace: z.array(z.object({ pc: addressOut, mode: z.enum(['arm', 'thumb']), midThumbBlPair: z.boolean() })),
    midThumbBlPair: z
      .boolean()
      .describe(
        'The final stop is between the halves of a Thumb BL/BLX pair (the call has not happened yet).',
      ),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: {
    count: {
      default: LIMITS.steps.default,
      min: LIMITS.steps.min,
      max: LIMITS.steps.max,
      unit: 'instructions',
    },
    stepTimeoutMs: msLimit(LIMITS.stepWaitMs),
  },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const cpu = cpuOf(ctx.services, args.processor);
      const outcome = await stepInstructions(cpu, args.count, args.stepTimeoutMs, ctx.signal);
      return {
        structured: {
          ...runView(ctx.services, args.processor, outcome, await liveNames(ctx, args.processor)),
          completed: outcome.completed,
          trace: outcome.trace,
          midThumbBlPair: outcome.trace.at(-1)?.midThumbBlPair ?? false,
        },
        text:
          outcome.state === 'running'
            ? `${outcome.completed}/${args.count} steps; the next step did not finish: target running`
            : `${outcome.completed} steps; ${describeStop(args.processor, outcome.stop)}${outcome.trace.at(-1)?.midThumbBlPair ? ' (mid Thumb BL pair: the next step completes the call)' : ''}`,
      };
    });
  },
});
