// desmume_step_out: runs until the current function returns to its caller.
import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { addressArg, formatAddress } from '../../core/vocabulary.js';
import { runToReturn, STEP_CALL_LIMITS } from '../../debug/step-calls.js';
import { defineTool } from '../../mcp/tool.js';
import {
  cpuOf,
  debugSession,
  describeStop,
  msLimit,
  processorInput,
  RUNTIME,
  runOutput,
  runView,
  timeoutInput,
} from './common.js';
import { deeperInput, returnRunOutput, returnRunView } from './step-common.js';

export const desmumeStepOut = defineTool({
  name: 'desmume_step_out',
  title: 'Step out to the caller',
  profiles: RUNTIME,
  description: {
    purpose: 'Runs until the current function returns to its caller.',
    useWhen:
      "stopped inside a function whose remaining code is not of interest. The return address is LR unless given: LR is right at a function's entry and in leaf functions; once a function has saved LR and called others, read the saved value from the stack and pass it as returnAddress.",
    behaviour:
      'sets a temporary breakpoint at the return address (bit 0 set means Thumb, as in LR; inside the executable allowlist, else refused), removed afterwards. The return counts only with SP at or above its level now (recursion passes over it, bounded). Another breakpoint that fires first ends the run (endedBy "other-stop"); at the deadline the target is paused again. Resumes both CPUs while running.',
    limits: `timeoutMs ${STEP_CALL_LIMITS.timeoutMs.min}..${STEP_CALL_LIMITS.timeoutMs.max} (default ${STEP_CALL_LIMITS.timeoutMs.default}); maxDeeperReturns ${STEP_CALL_LIMITS.deeperReturns.min}..${STEP_CALL_LIMITS.deeperReturns.max} (default ${STEP_CALL_LIMITS.deeperReturns.default}).`,
    returns:
      'the stop, whether it returned, endedBy, the return address used and where it came from (lr or caller).',
  },
  input: z.object({
    processor: processorInput,
    returnAddress: addressArg('Return address, bit 0 set for Thumb (default: LR)').optional(),
    timeoutMs: timeoutInput(STEP_CALL_LIMITS.timeoutMs, 'Bound on running to the return'),
    maxDeeperReturns: deeperInput,
  }),
  output: z.object({ ...runOutput, ...returnRunOutput, returnAddressSource: z.enum(['lr', 'caller']) }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: {
    timeoutMs: msLimit(STEP_CALL_LIMITS.timeoutMs),
    maxDeeperReturns: { ...STEP_CALL_LIMITS.deeperReturns, unit: 'returns' },
  },
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
          ...runView(ctx.services, args.processor, r),
          ...returnRunView(r),
          returnAddressSource: args.returnAddress === undefined ? ('lr' as const) : ('caller' as const),
        },
        text: `step out to ${formatAddress(r.returnAddress)} (${r.endedBy}); ${describeStop(args.processor, r.stop)}`,
      };
    });
  },
});
