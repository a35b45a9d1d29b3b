// A continue with breakpoint conditions: a stop at a conditional breakpoint whose comparisons do
// not hold (or whose matching hit is still to be skipped) is resumed silently, within a bounded count
// and the call's deadline, and every pass is counted in the result.
import { type BreakCondition, conditionHolds } from './conditions.js';
import type { RunOutcome } from './control.js';
import { continueUntilStop } from './control.js';
import type { CpuDebugger, StopInfo } from './cpu.js';

/** Why a stop whose condition did not hold was returned anyway. */
export const GIVE_UP_REASONS = ['silent-resume-limit', 'deadline', 'cancelled'] as const;
type GiveUpReason = (typeof GIVE_UP_REASONS)[number];

interface ConditionalOutcome extends RunOutcome {
  /** Breakpoint stops passed over because a condition did not hold or a matching hit was skipped. */
  skippedHits: number;
  /** null when the stop is not at a conditional breakpoint. */
  conditionMet: boolean | null;
  gaveUp: GiveUpReason | null;
}

export async function continueWithConditions(
  cpu: CpuDebugger,
  timeoutMs: number,
  maxSilentResumes: number,
  signal: AbortSignal | undefined,
): Promise<ConditionalOutcome> {
  const deadline = Date.now() + timeoutMs;
  let skippedHits = 0;
  for (;;) {
    const remaining = Math.max(1, deadline - Date.now());
    const outcome = await continueUntilStop(cpu, remaining, signal);
    const stop = outcome.stop;
    const state = stop?.breakpointId ? cpu.conditions.get(stop.breakpointId) : undefined;
    if (!stop || !state) return { ...outcome, skippedHits, conditionMet: null, gaveUp: null };
    if (await evaluate(cpu, state.condition)) {
      state.matchedHits++;
      if (state.matchedHits > state.condition.skipHits) {
        return { ...outcome, skippedHits, conditionMet: true, gaveUp: null };
      }
    }
    const gaveUp = signal?.aborted
      ? 'cancelled'
      : skippedHits >= maxSilentResumes
        ? 'silent-resume-limit'
        : Date.now() >= deadline
          ? 'deadline'
          : null;
    if (gaveUp) return { ...outcome, skippedHits, conditionMet: false, gaveUp };
    skippedHits++;
  }
}

/**
 * Whether a stop at a conditional breakpoint counts: null when the stop is at no conditional
 * breakpoint, true when its condition holds and its matching hit is no longer to be skipped (the hit
 * is counted), false when it should be passed over.
 */
export async function conditionalStopCounts(cpu: CpuDebugger, stop: StopInfo): Promise<boolean | null> {
  const state = stop.breakpointId ? cpu.conditions.get(stop.breakpointId) : undefined;
  if (!state) return null;
  if (!(await evaluate(cpu, state.condition))) return false;
  state.matchedHits++;
  return state.matchedHits > state.condition.skipHits;
}

async function evaluate(cpu: CpuDebugger, c: BreakCondition): Promise<boolean> {
  const { decoded } = await cpu.readRegisters();
  return conditionHolds(c, decoded, (a, n) => cpu.readMemory(a, n));
}
