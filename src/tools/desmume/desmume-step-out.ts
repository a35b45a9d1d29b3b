// desmume_step_out: runs until the current function returns to its caller.
import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { addressArg, formatAddress } from '../../core/vocabulary.js';
import { debugSession } from '../../debug/service.js';
import { runToReturn, STEP_CALL_LIMITS } from '../../debug/step-calls.js';
import { defineTool } from '../../mcp/tool.js';
import {
  cpuOf,
  describeStop,
  liveNames,
  processorInput,
  RUNTIME,
  runOutput,
  runView,
  timeoutInput,
} from './common.js';
import { deeperInput, returnRunLimits, returnRunOutput, returnRunView } from './step-common.js';

export const desmumeStepOut = defineTool({
  name: 'desmume_step_out',
  title: 'Step out to the caller',
  profiles: RUNTIME,
  description: {
    purpose: 'Runs until the current function returns to its caller.',
    useWhen:
      'the rest of a function is of no interest. LR is right only at entry or in leaves; later pass returnAddress from the stack.',
    behaviour:
      'temporary breakpoint there (in the allowlist, else refused), taken with SP at or above its level; paused again at the deadline.',
    limits: 'argument bounds.',
  },
  input: z.object({
    processor: processorInput,
    returnAddress: addressArg('Bit 0 set for Thumb; default: LR').optional(),
    timeoutMs: timeoutInput(STEP_CALL_LIMITS.timeoutMs),
    maxDeeperReturns: deeperInput,
  }),
  output: z.object({ ...runOutput, ...returnRunOutput, returnAddressSource: z.enum(['lr', 'caller']) }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: returnRunLimits,
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const cpu = cpuOf(ctx.services, args.processor);
      const { decoded } = await cpu.readRegisters();
      const ret = args.returnAddress ?? decoded.r[14]!;
      if (ret === 0)
        throw new ReMcpError('invalid-argument', 'LR is 0: no return address known; pass returnAddress');
      const r = await runToReturn(
        cpu,
        ret & ~1,
        (ret & 1) === 1,
        decoded.r[13]!,
        args.timeoutMs,
        args.maxDeeperReturns,
        ctx.signal,
      );
      return {
        structured: {
          ...runView(ctx.services, args.processor, r, await liveNames(ctx, args.processor)),
          ...returnRunView(r),
          returnAddressSource: args.returnAddress === undefined ? ('lr' as const) : ('caller' as const),
        },
        text: `step out to ${formatAddress(r.returnAddress)} (${r.endedBy}); ${describeStop(args.processor, r.stop)}`,
      };
    });
  },
});
