// desmume_continue: Continue until a stop.
import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { captureContext, continueUntilStop, estimateContextBytes } from '../../debug/control.js';
import { LIMITS } from '../../debug/policy.js';
import { defineTool } from '../../mcp/tool.js';
import {
  contextOutput,
  cpuOf,
  debugSession,
  describeStop,
  msLimit,
  processorInput,
  RUNTIME,
  regionsInput,
  runOutput,
  runView,
  timeoutInput,
} from './common.js';
import { notes } from './execution-common.js';

export const desmumeContinue = defineTool({
  name: 'desmume_continue',
  title: 'Continue until a stop',
  profiles: RUNTIME,
  description: {
    purpose: 'Resumes the halted target and waits, bounded, for the next stop.',
    useWhen: 'running to a breakpoint; desmume_step_instruction for a few instructions.',
    behaviour: `on a stop: matches the PC to a breakpoint, counts the hit, captures the context (default). At the deadline the target keeps running (state running: desmume_wait_for_stop or desmume_pause). ${notes}`,
    limits: 'context regions as desmume_capture_stop_context.',
    returns: 'state, stop, expectedMatched (with expectedBreakpointId), context.',
  },
  input: z.object({
    processor: processorInput,
    timeoutMs: timeoutInput(LIMITS.continueMs, 'How long to wait for a stop'),
    expectedBreakpointId: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('Breakpoint id the caller expects to hit; the result says whether it did.'),
    captureContext: z
      .boolean()
      .default(true)
      .describe('Capture registers and memory windows at the stop (default true).'),
    regions: regionsInput,
  }),
  output: z.object({
    ...runOutput,
    expectedMatched: z.boolean().nullable(),
    context: contextOutput.nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: { timeoutMs: msLimit(LIMITS.continueMs) },
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
      const outcome = await continueUntilStop(cpu, args.timeoutMs, ctx.signal);
      const context =
        outcome.stop && args.captureContext
          ? await captureContext(cpu, args.regions, ctx.services.config.maxOutputBytes)
          : null;
      const expectedMatched =
        args.expectedBreakpointId === undefined || outcome.stop === null
          ? null
          : outcome.stop.breakpointId === args.expectedBreakpointId;
      const mismatch = expectedMatched === false ? ` (expected ${args.expectedBreakpointId})` : '';
      return {
        structured: {
          ...runView(ctx.services, args.processor, outcome),
          expectedMatched,
          context,
        },
        text:
          outcome.state === 'running'
            ? `${args.processor} still running after ${args.timeoutMs} ms: use desmume_wait_for_stop or desmume_pause`
            : describeStop(args.processor, outcome.stop) + mismatch,
      };
    });
  },
});
