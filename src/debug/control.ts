// Execution control and context capture over one CPU: continue, step, pause, wait, and the atomic
// stop context. Every wait is bounded; a target still running at the deadline is reported as running.

import type { ArmMode } from '../arm/types.js';
import { ReMcpError } from '../core/errors.js';
import { formatAddress } from '../core/vocabulary.js';
import { u16 } from '../formats/le.js';
import { isMidThumbBlPair } from './calls.js';
import type { CpuDebugger, KnownRunState, StopInfo } from './cpu.js';
import { clampWindow, LIMITS } from './policy.js';
import type { DecodedRegisters } from './rsp/arm-registers.js';

export interface RegisterView {
  r0: string;
  r1: string;
  r2: string;
  r3: string;
  r4: string;
  r5: string;
  r6: string;
  r7: string;
  r8: string;
  r9: string;
  r10: string;
  r11: string;
  r12: string;
  sp: string;
  lr: string;
  pc: string;
  cpsr: string;
  mode: ArmMode;
}

export function registerView(regs: DecodedRegisters): RegisterView {
  const r = regs.r.map((word) => formatAddress(word));
  return {
    r0: r[0]!,
    r1: r[1]!,
    r2: r[2]!,
    r3: r[3]!,
    r4: r[4]!,
    r5: r[5]!,
    r6: r[6]!,
    r7: r[7]!,
    r8: r[8]!,
    r9: r[9]!,
    r10: r[10]!,
    r11: r[11]!,
    r12: r[12]!,
    sp: r[13]!,
    lr: r[14]!,
    pc: r[15]!,
    cpsr: formatAddress(regs.cpsr),
    mode: regs.thumb ? 'thumb' : 'arm',
  };
}

export interface MemoryWindow {
  label: string;
  address: string;
  length: number;
  requestedLength: number;
  clamped: boolean;
  hex: string;
}

export interface StopContext {
  registers: RegisterView;
  pcWindow: MemoryWindow;
  spWindow: MemoryWindow;
  regions: MemoryWindow[];
}

export interface RegionRequest {
  label: string;
  address: number;
  length: number;
}

/** Rough JSON size of a context: hex doubles the bytes, plus field overhead. Checked before reading. */
export function estimateContextBytes(regions: readonly RegionRequest[]): number {
  const bytes = LIMITS.pcWindowBytes + LIMITS.spWindowBytes + regions.reduce((n, r) => n + r.length, 0);
  return bytes * 2 + 1_024 + regions.length * 256;
}

async function window(
  cpu: CpuDebugger,
  label: string,
  address: number,
  length: number,
): Promise<MemoryWindow> {
  const w = clampWindow(address, length);
  const bytes = w.length > 0 ? await cpu.readMemory(w.address, w.length) : new Uint8Array(0);
  return {
    label,
    address: formatAddress(w.address),
    length: w.length,
    requestedLength: length,
    clamped: w.clamped,
    hex: Buffer.from(bytes).toString('hex'),
  };
}

/** Registers, 64 bytes centred on PC, up to 64 bytes from SP, and labeled regions: all from one stop. */
export async function captureContext(
  cpu: CpuDebugger,
  regions: readonly RegionRequest[],
  maxOutputBytes: number,
): Promise<StopContext> {
  if (regions.length > LIMITS.regions.max) {
    throw new ReMcpError('limit-exceeded', `at most ${LIMITS.regions.max} labeled regions per capture`);
  }
  for (const r of regions) {
    if (
      !Number.isInteger(r.length) ||
      r.length < LIMITS.regionBytes.min ||
      r.length > LIMITS.regionBytes.max
    ) {
      throw new ReMcpError(
        'limit-exceeded',
        `region "${r.label}" must be ${LIMITS.regionBytes.min}..${LIMITS.regionBytes.max} bytes`,
      );
    }
  }
  const estimate = estimateContextBytes(regions);
  if (estimate > maxOutputBytes) {
    throw new ReMcpError(
      'output-too-large',
      `the context would be about ${estimate} bytes, over the ${maxOutputBytes}-byte output limit; request smaller regions`,
    );
  }
  const { decoded } = await cpu.readRegisters();
  const pc = decoded.r[15]!;
  const sp = decoded.r[13]!;
  const half = LIMITS.pcWindowBytes / 2;
  // Centre the PC window, then clamp at the address-space edges (so it shrinks instead of wrapping).
  const pcWindow = await window(cpu, 'pc', pc - half, LIMITS.pcWindowBytes);
  const spWindow = await window(cpu, 'sp', sp, LIMITS.spWindowBytes);
  const out: MemoryWindow[] = [];
  for (const r of regions) out.push(await window(cpu, r.label, r.address, r.length));
  return { registers: registerView(decoded), pcWindow, spWindow, regions: out };
}

export interface RunOutcome {
  state: KnownRunState;
  stop: StopInfo | null;
}

export async function continueUntilStop(
  cpu: CpuDebugger,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<RunOutcome> {
  checkWait(timeoutMs, LIMITS.continueMs.max, 'continue');
  await cpu.resume('continue');
  const stop = await cpu.awaitStop(timeoutMs, signal, 'continue');
  return stop ? { state: 'stopped', stop } : { state: 'running', stop: null };
}

export interface StepOutcome extends RunOutcome {
  completed: number;
  /** midThumbBlPair: the step executed a Thumb BL prefix and stopped on its suffix, inside the call. */
  trace: Array<{ pc: string; mode: ArmMode; midThumbBlPair: boolean }>;
}

export async function stepInstructions(
  cpu: CpuDebugger,
  count: number,
  perStepMs: number,
  signal: AbortSignal | undefined,
): Promise<StepOutcome> {
  if (!Number.isInteger(count) || count < LIMITS.steps.min || count > LIMITS.steps.max) {
    throw new ReMcpError(
      'limit-exceeded',
      `a step request is ${LIMITS.steps.min}..${LIMITS.steps.max} instructions`,
    );
  }
  checkWait(perStepMs, LIMITS.stepWaitMs.max, 'a step wait');
  const trace: StepOutcome['trace'] = [];
  let stop: StopInfo | null = null;
  let previous = cpu.lastStop;
  for (let i = 0; i < count; i++) {
    if (signal?.aborted) break;
    await cpu.resume('step');
    stop = await cpu.awaitStop(perStepMs, signal, 'step');
    // A step that does not finish (e.g. the CPU waits for an interrupt) leaves the target running.
    if (stop === null) return { state: 'running', stop: null, completed: i, trace };
    let mid = false;
    if (stop.thumb && previous?.thumb && previous.pc === stop.pc - 2) {
      const b = await cpu.readMemory(stop.pc - 2, 4);
      mid = isMidThumbBlPair(true, u16(b, 0), u16(b, 2));
    }
    previous = stop;
    trace.push({ pc: formatAddress(stop.pc), mode: stop.thumb ? 'thumb' : 'arm', midThumbBlPair: mid });
  }
  return { state: 'stopped', stop, completed: trace.length, trace };
}

export async function waitForStop(
  cpu: CpuDebugger,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<RunOutcome & { alreadyStopped: boolean }> {
  checkWait(timeoutMs, LIMITS.waitMs.max, 'wait');
  const { state, via } = cpu.effectiveState();
  if (state === 'stopped') return { state: 'stopped', stop: cpu.lastStop, alreadyStopped: true };
  if (via !== null) {
    throw new ReMcpError(
      'target-running',
      `the emulation was resumed through the ${via} stub: wait on ${via}; ${cpu.processor} stops with it`,
    );
  }
  const stop = await cpu.awaitStop(timeoutMs, signal, 'continue');
  return stop
    ? { state: 'stopped', stop, alreadyStopped: false }
    : { state: 'running', stop: null, alreadyStopped: false };
}

export async function pause(
  cpu: CpuDebugger,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<RunOutcome & { alreadyStopped: boolean }> {
  checkWait(timeoutMs, LIMITS.pauseMs.max, 'pause');
  const { state, via } = cpu.effectiveState();
  if (state === 'stopped') return { state: 'stopped', stop: cpu.lastStop, alreadyStopped: true };
  if (via !== null) {
    throw new ReMcpError(
      'target-running',
      `the emulation was resumed through the ${via} stub, which alone can interrupt it: pause ${via}`,
    );
  }
  cpu.interrupt();
  const stop = await cpu.awaitStop(timeoutMs, signal, 'pause');
  if (stop) return { state: 'stopped', stop, alreadyStopped: false };
  if (cpu.state === 'unknown') {
    // A halted stub may ignore Ctrl-C silently, so after a reconnect silence means it was already stopped.
    cpu.state = 'stopped';
    return { state: 'stopped', stop: cpu.lastStop, alreadyStopped: true };
  }
  return { state: 'running', stop: null, alreadyStopped: false };
}

function checkWait(ms: number, max: number, what: string): void {
  if (!Number.isInteger(ms) || ms < 1 || ms > max) {
    throw new ReMcpError('limit-exceeded', `${what} is bounded to 1..${max} ms (got ${ms})`);
  }
}
