// Step over and step out: run, bounded, to a return address with a temporary breakpoint there. The
// return counts only with the stack pointer back at (or above) its level at the call, so a recursive
// call reaching the same address deeper down is passed over. A stop elsewhere (another breakpoint)
// ends the run and is reported; at the deadline the target is paused again. The temporary breakpoint
// is always removed (a user breakpoint already at that address is left alone).
import { ReMcpError } from '../core/errors.js';
import { formatAddress } from '../core/vocabulary.js';
import { u16 } from '../formats/le.js';
import { type CallSite, callAt, isMidThumbBlPair } from './calls.js';
import { conditionalStopCounts } from './conditional-run.js';
import { continueUntilStop, stepInstructions } from './control.js';
import type { CpuDebugger, StopInfo } from './cpu.js';

export const STEP_CALL_LIMITS = {
  timeoutMs: { default: 5_000, min: 1, max: 30_000 },
  /** Stops at the return address with a deeper stack (recursion) passed over silently. */
  deeperReturns: { default: 1_000, min: 0, max: 100_000 },
} as const;

/**
 * How a run to a return ended: at the return, one step (no call at the PC), another breakpoint whose
 * condition (if any) held, the deadline (paused again), cancellation, the limit.
 */
export const RETURN_RUN_ENDINGS = [
  'returned',
  'stepped',
  'other-stop',
  'deadline',
  'cancelled',
  'deeper-return-limit',
] as const;
type ReturnRunEnding = (typeof RETURN_RUN_ENDINGS)[number];

export interface ReturnRunOutcome {
  state: 'stopped';
  stop: StopInfo | null;
  /** Reached the return address with the stack back at the call's level. */
  returned: boolean;
  endedBy: ReturnRunEnding;
  deeperReturnsPassed: number;
  returnAddress: number;
  returnThumb: boolean;
}

interface StepOverOutcome extends ReturnRunOutcome {
  call: CallSite | null;
  startPc: number;
  /** The start PC was the second half of a Thumb BL pair. */
  startedMidThumbBlPair: boolean;
}

async function halfwordBefore(cpu: CpuDebugger, pc: number): Promise<number | null> {
  if (pc < 2) return null;
  const b = await cpu.readMemory(pc - 2, 2);
  return u16(b, 0);
}

/** Steps one instruction, or runs a call at the PC to its return. */
export async function stepOver(
  cpu: CpuDebugger,
  timeoutMs: number,
  maxDeeper: number,
  signal: AbortSignal | undefined,
): Promise<StepOverOutcome> {
  const { decoded } = await cpu.readRegisters();
  const pc = decoded.r[15]!;
  const thumb = decoded.thumb;
  const bytes = await cpu.readMemory(pc, 4);
  const before = thumb ? await halfwordBefore(cpu, pc) : null;
  const mid = isMidThumbBlPair(thumb, before, u16(bytes, 0));
  const call = callAt(pc, thumb, bytes, before);
  if (call === null) {
    const stepped = await stepInstructions(cpu, 1, Math.min(5_000, Math.max(100, timeoutMs)), signal);
    if (stepped.state === 'running') {
      throw new ReMcpError('target-running', 'the single step did not finish: the target runs; pause it');
    }
    return {
      state: 'stopped',
      stop: stepped.stop,
      returned: false,
      endedBy: 'stepped',
      deeperReturnsPassed: 0,
      returnAddress: stepped.stop!.pc,
      returnThumb: stepped.stop!.thumb,
      call: null,
      startPc: pc,
      startedMidThumbBlPair: mid,
    };
  }
  const run = await runToReturn(
    cpu,
    call.returnAddress,
    call.returnThumb,
    decoded.r[13]!,
    timeoutMs,
    maxDeeper,
    signal,
  );
  return { ...run, call, startPc: pc, startedMidThumbBlPair: mid };
}

/** Runs to `returnAddress` (bit 0 ignored; mode given) with the stack at least at `sp`. */
export async function runToReturn(
  cpu: CpuDebugger,
  returnAddress: number,
  returnThumb: boolean,
  sp: number,
  timeoutMs: number,
  maxDeeper: number,
  signal: AbortSignal | undefined,
): Promise<ReturnRunOutcome> {
  const target = returnThumb ? returnAddress & ~1 : returnAddress;
  if (!returnThumb && target % 4 !== 0) {
    throw new ReMcpError(
      'invalid-argument',
      `an ARM return address must be 4-aligned: ${formatAddress(target)}`,
    );
  }
  const { bp, existed } = await cpu.addBreakpoint(target, returnThumb ? 'thumb' : 'arm');
  const deadline = Date.now() + timeoutMs;
  let deeper = 0;
  const base = { returnAddress: target, returnThumb };
  try {
    for (;;) {
      const outcome = await continueUntilStop(cpu, Math.max(1, deadline - Date.now()), signal);
      if (outcome.stop === null) {
        // Deadline or cancellation while running: halt again so the breakpoint can be removed.
        cpu.interrupt();
        const halted = await cpu.awaitStop(2_000, undefined, 'pause');
        if (halted === null) {
          throw new ReMcpError(
            'timeout',
            `the target did not halt after the step deadline; call ${cpu.tool('pause')}`,
          );
        }
        return {
          ...base,
          state: 'stopped',
          stop: halted,
          returned: false,
          endedBy: signal?.aborted ? 'cancelled' : 'deadline',
          deeperReturnsPassed: deeper,
        };
      }
      const stop = outcome.stop;
      if (stop.pc !== target || stop.breakpointId !== bp.id) {
        // A conditional breakpoint whose condition does not hold is passed over, as continueWithConditions does.
        if ((await conditionalStopCounts(cpu, stop)) === false && !signal?.aborted && Date.now() < deadline)
          continue;
        return {
          ...base,
          state: 'stopped',
          stop,
          returned: false,
          endedBy: 'other-stop',
          deeperReturnsPassed: deeper,
        };
      }
      const { decoded } = await cpu.readRegisters();
      if (decoded.r[13]! >= sp) {
        return {
          ...base,
          state: 'stopped',
          stop,
          returned: true,
          endedBy: 'returned',
          deeperReturnsPassed: deeper,
        };
      }
      if (deeper >= maxDeeper || signal?.aborted || Date.now() >= deadline) {
        const endedBy = signal?.aborted
          ? 'cancelled'
          : deeper >= maxDeeper
            ? 'deeper-return-limit'
            : 'deadline';
        return { ...base, state: 'stopped', stop, returned: false, endedBy, deeperReturnsPassed: deeper };
      }
      deeper++;
    }
  } finally {
    if (!existed && cpu.breakpoints.has(bp.id) && cpu.state === 'stopped') {
      await cpu.removeBreakpoint(bp.id);
    }
  }
}
