// Run control of an owned emulator: <emu>_continue, the steps (<emu>_step_instruction, _over,
// _out), <emu>_pause and <emu>_wait_for_stop, with the run fields every result of theirs starts with.
import { z } from 'zod/v4';
import { ARM_MODES } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import {
  addressOut,
  formatAddress,
  nameOrAddressArg,
  PROCESSORS,
  type Processor,
} from '../../core/vocabulary.js';
import type { Emulator } from '../../debug/backend.js';
import { continueWithConditions, GIVE_UP_REASONS } from '../../debug/conditional-run.js';
import { CONDITION_LIMITS } from '../../debug/conditions.js';
import {
  captureContext,
  estimateContextBytes,
  pause,
  type RunOutcome,
  stepInstructions,
  waitForStop,
} from '../../debug/control.js';
import { type CpuDebugger, KNOWN_RUN_STATES, type StopInfo } from '../../debug/cpu.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import {
  RETURN_RUN_ENDINGS,
  type ReturnRunOutcome,
  runToReturn,
  STEP_CALL_LIMITS,
  stepOver,
} from '../../debug/step-calls.js';
import type { LimitSpec, ToolContext } from '../../mcp/tool.js';
import type { Services } from '../../services.js';
import { emulatorTool, tool } from './per-emulator.js';
import {
  contextOutput,
  cpuOf,
  generationNumber,
  type LiveNames,
  liveArgNames,
  liveNames,
  msLimit,
  processorInput,
  RUNTIME,
  regionsInput,
  stopOutput,
  stopView,
  timeoutInput,
} from './session-views.js';

/** The fields every run-control result (continue, step, pause, wait) starts with. */
const runOutput = {
  processor: z.enum(PROCESSORS),
  generation: z.number().int(),
  state: z.enum(KNOWN_RUN_STATES),
  stop: stopOutput.nullable(),
};

/** The run fields of one outcome, the stop shown with the running ROM's names. */
function runView(
  services: Services,
  emu: Emulator,
  processor: Processor,
  outcome: RunOutcome,
  names: LiveNames | null = null,
): z.input<z.ZodObject<typeof runOutput>> {
  return {
    processor,
    generation: generationNumber(services, emu),
    state: outcome.state,
    stop: stopView(outcome.stop, names),
  };
}

/** One line for a stop (or a target still running), for the text of every run-control result. */
function describeStop(processor: Processor, stop: StopInfo | null): string {
  if (stop === null) return `${processor}: running`;
  const bp = stop.breakpointId
    ? ` at ${stop.breakpointId} (hit ${stop.hitCount})`
    : stop.watch
      ? ` by ${stop.watch.watchpointId ?? 'an unknown watchpoint'} (${stop.watch.access} of ${formatAddress(stop.watch.address)})`
      : '';
  return `${processor} stopped (${stop.reason})${bp}: pc ${formatAddress(stop.pc)} ${stop.thumb ? 'thumb' : 'arm'}, cpsr ${formatAddress(stop.cpsr)}`;
}

/** A bounded wait for a halt: the run fields plus whether the target was halted before the call. */
const haltOutput = z.object({ ...runOutput, alreadyStopped: z.boolean() });

type HaltOutcome = RunOutcome & { alreadyStopped: boolean };

/**
 * A bounded wait for a halt (pause or waitForStop), in the debug session's turn, answered with its
 * run fields (the stop with the running ROM's names) and the one line `say` makes of the outcome.
 */
async function awaitHalt(
  ctx: ToolContext,
  emu: Emulator,
  processor: Processor,
  timeoutMs: number,
  wait: (cpu: CpuDebugger, timeoutMs: number, signal: AbortSignal | undefined) => Promise<HaltOutcome>,
  say: (outcome: HaltOutcome) => string,
) {
  return debugSession(ctx.services, emu).exclusive(async () => {
    const outcome = await wait(cpuOf(ctx.services, emu, processor), timeoutMs, ctx.signal);
    const names = await liveNames(ctx, emu, processor);
    return {
      structured: {
        ...runView(ctx.services, emu, processor, outcome, names),
        alreadyStopped: outcome.alreadyStopped,
      },
      text: say(outcome),
    };
  });
}

// The run to a return of <emu>_step_over and <emu>_step_out: its argument, limits and result fields.
const deeperInput = z
  .number()
  .int()
  .min(STEP_CALL_LIMITS.deeperReturns.min)
  .max(STEP_CALL_LIMITS.deeperReturns.max)
  .default(STEP_CALL_LIMITS.deeperReturns.default)
  .describe('Recursive returns passed.');

const returnRunLimits: Record<string, LimitSpec> = {
  timeoutMs: msLimit(STEP_CALL_LIMITS.timeoutMs),
  maxDeeperReturns: { ...STEP_CALL_LIMITS.deeperReturns, unit: 'returns' },
};

const returnRunOutput = {
  returned: z.boolean(),
  endedBy: z.enum(RETURN_RUN_ENDINGS),
  deeperReturnsPassed: z.number().int(),
  returnAddress: addressOut,
  returnMode: z.enum(ARM_MODES),
};

function returnRunView(r: ReturnRunOutcome) {
  return {
    returned: r.returned,
    endedBy: r.endedBy,
    deeperReturnsPassed: r.deeperReturnsPassed,
    returnAddress: formatAddress(r.returnAddress),
    returnMode: r.returnThumb ? ('thumb' as const) : ('arm' as const),
  };
}

// <emu>_continue: Continue until a stop.
export const emuContinue = emulatorTool({
  verb: 'continue',
  title: 'Continue until a stop',
  profiles: RUNTIME,
  description: {
    purpose: 'Resumes the halted target and waits for the next stop.',
    useWhen: (e) => `running to a breakpoint; ${tool(e, 'step_instruction')} for a few instructions.`,
    behaviour:
      'counts the hit, captures context; silently resumes non-matching or skipped hits, up to maxSilentResumes. At the deadline the target keeps running.',
    limits: (e) => `regions as ${tool(e, 'capture_stop_context')}.`,
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
    gaveUp: z.enum(GIVE_UP_REASONS).nullable(),
    expectedMatched: z.boolean().nullable(),
    context: contextOutput.nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: {
    timeoutMs: msLimit(LIMITS.continueMs),
    maxSilentResumes: { ...CONDITION_LIMITS.silentResumes, unit: 'resumes' },
  },
  names: liveArgNames,
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const cpu = cpuOf(ctx.services, emu, args.processor);
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
          ...runView(ctx.services, emu, args.processor, outcome, await liveNames(ctx, emu, args.processor)),
          skippedHits: outcome.skippedHits,
          conditionMet: outcome.conditionMet,
          gaveUp: outcome.gaveUp,
          expectedMatched,
          context,
        },
        text:
          outcome.state === 'running'
            ? `${args.processor} still running after ${args.timeoutMs} ms: use ${tool(emu, 'wait_for_stop')} or ${tool(emu, 'pause')}`
            : describeStop(args.processor, outcome.stop) + mismatch + skipped,
      };
    });
  },
});

// <emu>_step_instruction: Single-step instructions.
export const emuStepInstruction = emulatorTool({
  verb: 'step_instruction',
  title: 'Single-step instructions',
  profiles: RUNTIME,
  description: {
    purpose: 'Executes single instructions on the halted CPU, recording each PC.',
    useWhen: (e) => `a few instructions; ${tool(e, 'step_over')}/_out over calls.`,
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
    trace: z.array(z.object({ pc: addressOut, mode: z.enum(ARM_MODES), midThumbBlPair: z.boolean() })),
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
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const cpu = cpuOf(ctx.services, emu, args.processor);
      const outcome = await stepInstructions(cpu, args.count, args.stepTimeoutMs, ctx.signal);
      return {
        structured: {
          ...runView(ctx.services, emu, args.processor, outcome, await liveNames(ctx, emu, args.processor)),
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

// <emu>_step_over: one instruction, except that a call (BL, BLX, a Thumb BL pair, even from its
// second half) runs to its return.
export const emuStepOver = emulatorTool({
  verb: 'step_over',
  title: 'Step over a call',
  profiles: RUNTIME,
  description: {
    purpose: 'Steps one instruction, running a call (BL/BLX) until it returns.',
    useWhen: (e) => `skipping callees; ${tool(e, 'step_out')} leaves the current function.`,
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
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const cpu = cpuOf(ctx.services, emu, args.processor);
      const r = await stepOver(cpu, args.timeoutMs, args.maxDeeperReturns, ctx.signal);
      return {
        structured: {
          ...runView(ctx.services, emu, args.processor, r, await liveNames(ctx, emu, args.processor)),
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

// <emu>_step_out: runs until the current function returns to its caller.
export const emuStepOut = emulatorTool({
  verb: 'step_out',
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
    returnAddress: nameOrAddressArg('Bit 0 set for Thumb (a name: by its mode); default: LR').optional(),
    timeoutMs: timeoutInput(STEP_CALL_LIMITS.timeoutMs),
    maxDeeperReturns: deeperInput,
  }),
  output: z.object({ ...runOutput, ...returnRunOutput, returnAddressSource: z.enum(['lr', 'caller']) }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: returnRunLimits,
  names: (args, ctx, emu) => liveArgNames(args, ctx, emu, true),
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const cpu = cpuOf(ctx.services, emu, args.processor);
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
          ...runView(ctx.services, emu, args.processor, r, await liveNames(ctx, emu, args.processor)),
          ...returnRunView(r),
          returnAddressSource: args.returnAddress === undefined ? ('lr' as const) : ('caller' as const),
        },
        text: `step out to ${formatAddress(r.returnAddress)} (${r.endedBy}); ${describeStop(args.processor, r.stop)}`,
      };
    });
  },
});

// <emu>_pause: Pause the target.
export const emuPause = emulatorTool({
  verb: 'pause',
  title: 'Pause the target',
  profiles: RUNTIME,
  description: {
    purpose: 'Interrupts a running target and waits for it to halt.',
    useWhen: (e) => `after ${tool(e, 'continue')} returned "running", or to halt running code.`,
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
  async handler(args, ctx, emu) {
    return awaitHalt(ctx, emu, args.processor, args.timeoutMs, pause, (outcome) =>
      outcome.alreadyStopped
        ? `${args.processor} was already halted`
        : outcome.state === 'running'
          ? `${args.processor} did not halt within ${args.timeoutMs} ms`
          : describeStop(args.processor, outcome.stop),
    );
  },
});

// <emu>_wait_for_stop: Wait for a stop.
export const emuWaitForStop = emulatorTool({
  verb: 'wait_for_stop',
  title: 'Wait for a stop',
  profiles: RUNTIME,
  description: {
    purpose: 'Waits for a running target to stop on its own (breakpoint).',
    useWhen: (e) =>
      `${tool(e, 'continue')} returned "running" and a stop is due; ${tool(e, 'pause')} forces one.`,
    behaviour: 'sends nothing; returns at once when halted. At the deadline the target keeps running.',
    limits: 'as timeoutMs says.',
  },
  input: z.object({ processor: processorInput, timeoutMs: timeoutInput(LIMITS.waitMs) }),
  output: haltOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { timeoutMs: msLimit(LIMITS.waitMs) },
  async handler(args, ctx, emu) {
    return awaitHalt(ctx, emu, args.processor, args.timeoutMs, waitForStop, (outcome) =>
      outcome.state === 'running'
        ? `${args.processor} still running`
        : describeStop(args.processor, outcome.stop),
    );
  },
});
