// Output pieces shared by desmume_step_over and desmume_step_out.
import { z } from 'zod/v4';
import { addressOut, formatAddress } from '../../core/vocabulary.js';
import { type ReturnRunOutcome, STEP_CALL_LIMITS } from '../../debug/step-calls.js';

export const deeperInput = z
  .number()
  .int()
  .min(STEP_CALL_LIMITS.deeperReturns.min)
  .max(STEP_CALL_LIMITS.deeperReturns.max)
  .default(STEP_CALL_LIMITS.deeperReturns.default)
  .describe('Return-address hits with a deeper stack (recursion) to pass over.');

export const returnRunOutput = {
  returned: z.boolean(),
  endedBy: z.enum(['returned', 'other-stop', 'deadline', 'cancelled', 'deeper-return-limit']),
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
