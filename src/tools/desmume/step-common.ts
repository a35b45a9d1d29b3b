// Pieces shared by the run-control tools: the halt wait of desmume_pause and desmume_wait_for_stop,
// the run to a return of desmume_step_over and desmume_step_out.
import { z } from 'zod/v4';
import { addressOut, formatAddress } from '../../core/vocabulary.js';
import type { RunOutcome } from '../../debug/control.js';
import type { Processor } from '../../debug/policy.js';
import { type ReturnRunOutcome, STEP_CALL_LIMITS } from '../../debug/step-calls.js';
import type { LimitSpec } from '../../mcp/tool.js';
import type { Services } from '../../services.js';
import { type LiveNames, msLimit, runOutput, runView } from './common.js';

/** A bounded wait for a halt: the run fields plus whether the target was halted before the call. */
export const haltOutput = z.object({ ...runOutput, alreadyStopped: z.boolean() });

export function haltView(
  services: Services,
  processor: Processor,
  outcome: RunOutcome & { alreadyStopped: boolean },
  names: LiveNames | null = null,
) {
  return { ...runView(services, processor, outcome, names), alreadyStopped: outcome.alreadyStopped };
}

export const deeperInput = z
  .number()
  .int()
  .min(STEP_CALL_LIMITS.deeperReturns.min)
  .max(STEP_CALL_LIMITS.deeperReturns.max)
  .default(STEP_CALL_LIMITS.deeperReturns.default)
  .describe('Recursive returns passed.');

export const returnRunLimits: Record<string, LimitSpec> = {
  timeoutMs: msLimit(STEP_CALL_LIMITS.timeoutMs),
  maxDeeperReturns: { ...STEP_CALL_LIMITS.deeperReturns, unit: 'returns' },
};

export const returnRunOutput = {
  returned: z.boolean(),
  endedBy: z.enum(['returned', 'stepped', 'other-stop', 'deadline', 'cancelled', 'deeper-return-limit']),
  deeperReturnsPassed: z.number().int(),
  returnAddress: addressOut,
  returnMode: z.enum(['arm', 'thumb']),
};

export function returnRunView(r: ReturnRunOutcome) {
  return {
    returned: r.returned,
    endedBy: r.endedBy,
    deeperReturnsPassed: r.deeperReturnsPassed,
    returnAddress: formatAddress(r.returnAddress),
    returnMode: r.returnThumb ? ('thumb' as const) : ('arm' as const),
  };
}
