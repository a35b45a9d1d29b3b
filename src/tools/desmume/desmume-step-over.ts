// desmume_step_over: one instruction, except that a call (BL, BLX, a Thumb BL pair, even from its
// second half) runs to its return.
import { z } from 'zod/v4';
import { addressOut, formatAddress } from '../../core/vocabulary.js';
import { debugSession } from '../../debug/service.js';
import { STEP_CALL_LIMITS, stepOver } from '../../debug/step-calls.js';
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

export const desmumeStepOver = defineTool({
  name: 'desmume_step_over',
  title: 'Step over a call',
  profiles: RUNTIME,
  description: {
    purpose: 'Steps one instruction, running a call (BL/BLX) until it returns.',
    useWhen: 'skipping callees; desmume_step_out leaves the current function.',
    behaviour:
      'temporary breakpoint at the return (in the allowlist, else refused), taken with SP back at its level; paused again at the deadline.',
    limits: 'argument bounds.',
  },
  input: z.object({
    processor: processorInput,
    timeoutMs: timeoutInput(STEP_CALL_LIMITS.timeoutMs),
    maxDeeperReturns: deeperInput,
  }),
  output: z.object({
    ...runOutput,
    ...returnRunOutput,
    startPc: addressOut,
    startedMidThumbBlPair: z.boolean(),
    call: z.object({ kind: z.string(), returnAddress: addressOut }).nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: returnRunLimits,
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const cpu = cpuOf(ctx.services, args.processor);
      const r = await stepOver(cpu, args.timeoutMs, args.maxDeeperReturns, ctx.signal);
      return {
        structured: {
          ...runView(ctx.services, args.processor, r, await liveNames(ctx, args.processor)),
          ...returnRunView(r),
          startPc: formatAddress(r.startPc),
          startedMidThumbBlPair: r.startedMidThumbBlPair,
          call: r.call ? { kind: r.call.kind, returnAddress: formatAddress(r.call.returnAddress) } : null,
        },
        text: `${r.call ? `stepped over ${r.call.kind} (${r.endedBy})` : 'stepped one instruction'}${r.startedMidThumbBlPair ? ' from the middle of a Thumb BL pair' : ''}; ${describeStop(args.processor, r.stop)}`,
      };
    });
  },
});
