// Execution control: continue, single-step, pause and wait. Every wait is bounded; a target still
// running at the deadline is reported as running (not as an error).
import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { continueWithConditions } from '../../debug/conditional-run.js';
import { CONDITION_LIMITS } from '../../debug/conditions.js';
import {
  captureContext,
  estimateContextBytes,
  pause,
  stepInstructions,
  waitForStop,
} from '../../debug/control.js';
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

const notes = 'Resuming either CPU runs both (one emulation).';

export const desmumeContinue = defineTool({
  name: 'desmume_continue',
  title: 'Continue until a stop',
  profiles: RUNTIME,
  description: {
    purpose: 'Resumes the halted target and waits, bounded, for the next stop (breakpoint or interrupt).',
    useWhen: 'running to a breakpoint; desmume_step_instruction for a few instructions.',
    behaviour: `resumes execution. On a stop: matches the PC to a breakpoint id, counts the hit and (by default) captures the stop context. A stop at a breakpoint with a condition (desmume_breakpoint_condition) that does not hold, or a matching hit still to skip, is resumed silently and counted in skippedHits; when maxSilentResumes or the timeout runs out first, that stop is returned with conditionMet false and gaveUp saying why. At the deadline the target keeps running and the result says "running": then use desmume_wait_for_stop or desmume_pause. ${notes}`,
    limits: `timeoutMs ${LIMITS.continueMs.min}..${LIMITS.continueMs.max} (default ${LIMITS.continueMs.default}) for the whole call; maxSilentResumes ${CONDITION_LIMITS.silentResumes.min}..${CONDITION_LIMITS.silentResumes.max} (default ${CONDITION_LIMITS.silentResumes.default}); context regions as desmume_capture_stop_context.`,
    returns:
      'state, stop (reason, pc, mode, cpsr, breakpointId, hitCount), skippedHits, conditionMet (null without a condition), gaveUp, expectedMatched when expectedBreakpointId was given, context when captured.',
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
    maxSilentResumes: z
      .number()
      .int()
      .min(CONDITION_LIMITS.silentResumes.min)
      .max(CONDITION_LIMITS.silentResumes.max)
      .default(CONDITION_LIMITS.silentResumes.default)
      .describe(
        `Conditional-breakpoint hits to pass over silently before returning one anyway: ${CONDITION_LIMITS.silentResumes.min}..${CONDITION_LIMITS.silentResumes.max}, default ${CONDITION_LIMITS.silentResumes.default}.`,
      ),
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
          ...runView(ctx.services, args.processor, outcome),
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

export const desmumeStepInstruction = defineTool({
  name: 'desmume_step_instruction',
  title: 'Single-step instructions',
  profiles: RUNTIME,
  description: {
    purpose: 'Executes 1..100 single ARM or Thumb instructions on the halted CPU and records each PC.',
    useWhen: 'following code a few instructions at a time; desmume_continue to run to a breakpoint.',
    behaviour: `each step waits, bounded, for the stub's stop; a step that does not finish (the CPU waits for an interrupt) leaves the target running and the result says so. Breakpoints do not fire while stepping. ${notes}`,
    limits: `count ${LIMITS.steps.min}..${LIMITS.steps.max} (default ${LIMITS.steps.default}); stepTimeoutMs ${LIMITS.stepWaitMs.min}..${LIMITS.stepWaitMs.max} per step (default ${LIMITS.stepWaitMs.default}).`,
    returns:
      'completed steps, the trace of PCs and modes after each step (each flagged midThumbBlPair when it stopped between the two halves of a Thumb BL/BLX), the final stop and state.',
  },
  input: z.object({
    processor: processorInput,
    count: z
      .number()
      .int()
      .describe(`Instructions to execute: ${LIMITS.steps.min}..${LIMITS.steps.max}.`)
      .default(LIMITS.steps.default),
    stepTimeoutMs: timeoutInput(LIMITS.stepWaitMs, 'Bound on each single step'),
  }),
  output: z.object({
    ...runOutput,
    completed: z.number().int(),
    trace: z.array(z.object({ pc: z.string(), mode: z.enum(['arm', 'thumb']), midThumbBlPair: z.boolean() })),
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
          ...runView(ctx.services, args.processor, outcome),
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

export const desmumePause = defineTool({
  name: 'desmume_pause',
  title: 'Pause the target',
  profiles: RUNTIME,
  description: {
    purpose: 'Interrupts a running target and waits, bounded, for it to halt.',
    useWhen: 'after desmume_continue returned "running", or to halt freely running code.',
    behaviour: `sends the GDB interrupt; a target that is already halted is reported as such and nothing is sent. ${notes} Only the CPU whose stub resumed the emulation can interrupt it.`,
    limits: `timeoutMs ${LIMITS.pauseMs.min}..${LIMITS.pauseMs.max} (default ${LIMITS.pauseMs.default}).`,
    returns: 'state, the stop (reason "interrupt"), alreadyStopped.',
  },
  input: z.object({
    processor: processorInput,
    timeoutMs: timeoutInput(LIMITS.pauseMs, 'How long to wait for the halt'),
  }),
  output: z.object({ ...runOutput, alreadyStopped: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { timeoutMs: msLimit(LIMITS.pauseMs) },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const outcome = await pause(cpuOf(ctx.services, args.processor), args.timeoutMs, ctx.signal);
      return {
        structured: {
          ...runView(ctx.services, args.processor, outcome),
          alreadyStopped: outcome.alreadyStopped,
        },
        text: outcome.alreadyStopped
          ? `${args.processor} was already halted`
          : outcome.state === 'running'
            ? `${args.processor} did not halt within ${args.timeoutMs} ms`
            : describeStop(args.processor, outcome.stop),
      };
    });
  },
});

export const desmumeWaitForStop = defineTool({
  name: 'desmume_wait_for_stop',
  title: 'Wait for a stop',
  profiles: RUNTIME,
  description: {
    purpose: 'Waits, bounded, for a running target to stop on its own (breakpoint).',
    useWhen:
      'desmume_continue returned "running" and you expect a breakpoint soon; desmume_pause to force a halt.',
    behaviour:
      'sends nothing; returns at once when already halted. At the deadline the target keeps running.',
    limits: `timeoutMs ${LIMITS.waitMs.min}..${LIMITS.waitMs.max} (default ${LIMITS.waitMs.default}).`,
    returns: 'state, the stop, alreadyStopped.',
  },
  input: z.object({ processor: processorInput, timeoutMs: timeoutInput(LIMITS.waitMs, 'How long to wait') }),
  output: z.object({ ...runOutput, alreadyStopped: z.boolean() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { timeoutMs: msLimit(LIMITS.waitMs) },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const outcome = await waitForStop(cpuOf(ctx.services, args.processor), args.timeoutMs, ctx.signal);
      return {
        structured: {
          ...runView(ctx.services, args.processor, outcome),
          alreadyStopped: outcome.alreadyStopped,
        },
        text:
          outcome.state === 'running'
            ? `${args.processor} still running`
            : describeStop(args.processor, outcome.stop),
      };
    });
  },
});
