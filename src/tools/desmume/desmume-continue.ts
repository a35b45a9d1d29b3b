// desmume_continue: Continue until a stop.
import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { continueWithConditions } from '../../debug/conditional-run.js';
import { CONDITION_LIMITS } from '../../debug/conditions.js';
import { captureContext, estimateContextBytes } from '../../debug/control.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import {
  contextOutput,
  cpuOf,
  describeStop,
  liveNames,
  msLimit,
  processorInput,
  RUNTIME,
  regionsInput,
  runOutput,
  runView,
  timeoutInput,
} from './common.js';

export const desmumeContinue = defineTool({
  name: 'desmume_continue',
  title: 'Continue until a stop',
  profiles: RUNTIME,
  description: {
    purpose: 'Resumes the halted target and waits for the next stop.',
    useWhen: 'running to a breakpoint; desmume_step_instruction for a few instructions.',
    behaviour:
      'counts the hit, captures context; silently resumes non-matching or skipped hits, up to maxSilentResumes. At the deadline the target keeps running.',
    limits: 'regions as desmume_capture_stop_context.',
  },
  input: z.object({
    processor: processorInput,
    timeoutMs: timeoutInput(LIMITS.continueMs),
    expectedBreakpointId: z.string().min(1).max(64).optional().describe('Checked in the result.'),
    captureContext: z.boolean().default(true),
    regions: regionsInput,
    maxSilentResumes: z
      .number()
      .int()
      .min(CONDITION_LIMITS.silentResumes.min)
      .max(CONDITION_LIMITS.silentResumes.max)
      .default(CONDITION_LIMITS.silentResumes.default),
  }),
  output: z.object({
    ...runOutput,
    skippedHits: z.number().int(),
    conditionMet: z.boolean().nullable(),
    gaveUp: z.enum(['silent-resume-limit', 'deadline', 'cancelled']).nullable(),
    expectedMatched: z.boolean().nullable(),
    context: contextOutput.nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: {
    timeoutMs: msLimit(LIMITS.continueMs),
    maxSilentResumes: { ...CONDITION_LIMITS.silentResumes, unit: 'resumes' },
  },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const cpu = cpuOf(ctx.services, args.processor);
      if (args.expectedBreakpointId !== undefined && !cpu.breakpoints.has(args.expectedBreakpointId)) {
        throw new ReMcpError(
          'not-found',
          `no ${args.processor} breakpoint ${args.expectedBreakpointId} in this generation`,
        );
      }
      // Refuse an oversize capture before resuming, not after: a stop must never be lost to the limit.
      const estimate = estimateContextBytes(args.regions);
      if (args.captureContext && estimate > ctx.services.config.maxOutputBytes) {
        throw new ReMcpError(
          'output-too-large',
          `the stop context would be about ${estimate} bytes, over the ${ctx.services.config.maxOutputBytes}-byte output limit; request smaller regions`,
        );
      }
      const outcome = await continueWithConditions(cpu, args.timeoutMs, args.maxSilentResumes, ctx.signal);
      const context =
        outcome.stop && args.captureContext
          ? await captureContext(cpu, args.regions, ctx.services.config.maxOutputBytes)
          : null;
      const expectedMatched =
        args.expectedBreakpointId === undefined || outcome.stop === null
          ? null
          : outcome.stop.breakpointId === args.expectedBreakpointId;
      const mismatch = expectedMatched === false ? ` (expected ${args.expectedBreakpointId})` : '';
      const skipped =
        outcome.skippedHits > 0 || outcome.gaveUp
          ? ` [${outcome.skippedHits} conditional hits passed over${outcome.gaveUp ? `; condition NOT met, gave up: ${outcome.gaveUp}` : ''}]`
          : '';
      return {
        structured: {
          ...runView(ctx.services, args.processor, outcome, await liveNames(ctx, args.processor)),
          skippedHits: outcome.skippedHits,
          conditionMet: outcome.conditionMet,
          gaveUp: outcome.gaveUp,
          expectedMatched,
          context,
        },
        text:
          outcome.state === 'running'
            ? `${args.processor} still running after ${args.timeoutMs} ms: use desmume_wait_for_stop or desmume_pause`
            : describeStop(args.processor, outcome.stop) + mismatch + skipped,
      };
    });
  },
});
