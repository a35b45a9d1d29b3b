// One processor's debugger inside one emulator generation: its stub connection, breakpoints, executable
// ranges, run state, last stop and bounded ARM/Thumb history. The two CPUs share one emulation, so
// resuming either one runs both: the session tells each CPU whether its sibling is running.

import { ReMcpError } from '../core/errors.js';
import { formatAddress, type Processor } from '../core/vocabulary.js';
import { type StubProfile, toolName } from './backend.js';
import type { ConditionState } from './conditions.js';
import type { RspConnection } from './connection.js';
import type { CpuImage } from './cpu-image.js';
import {
  ADDRESS_SPACE_END,
  checkAlignment,
  containingRange,
  type ExecRange,
  LIMITS,
  resolveMode,
} from './policy.js';
import { type DecodedRegisters, parseRegisterPacket } from './rsp/arm-registers.js';
import {
  type BreakpointKind,
  memoryChunks,
  parseMemoryReply,
  parseOkReply,
  type StopReply,
  targetGoneError,
} from './rsp/packets.js';
import { matchWatch, type WatchAccess, type Watchpoint } from './watch-stop.js';

/** Bound on one request/reply exchange with a stopped stub (it answers in well under a millisecond). */
export const REPLY_TIMEOUT_MS = 2_000;

/** The run states a run-control result reports: halted, or resumed and not halted yet. */
export const KNOWN_RUN_STATES = ['stopped', 'running'] as const;
export type KnownRunState = (typeof KNOWN_RUN_STATES)[number];
/** A CPU's run state; unknown after a lost resume ack, connection or target (a pause settles it). */
export const CPU_RUN_STATES = [...KNOWN_RUN_STATES, 'unknown'] as const;
export type RunState = (typeof CPU_RUN_STATES)[number];

/** Why a CPU halted. */
export const STOP_REASONS = [
  'launch-halt',
  'breakpoint',
  'watchpoint',
  'step',
  'interrupt',
  'signal',
] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export interface Breakpoint {
  id: string;
  processor: Processor;
  address: number;
  mode: BreakpointKind;
  range: string;
  hits: number;
  createdAt: string;
}

export interface StopInfo {
  reason: StopReason;
  signal: number;
  pc: number;
  thumb: boolean;
  cpsr: number;
  breakpointId: string | null;
  hitCount: number | null;
  /** Set for a watchpoint stop: which one (null if none matches), the access and the reported address. */
  watch?: { watchpointId: string | null; access: WatchAccess; address: number } | null;
  at: string;
}

export interface HistoryEntry {
  pc: number;
  mode: BreakpointKind;
  reason: StopReason;
  breakpointId: string | null;
  at: string;
}

export class CpuDebugger {
  state: RunState = 'stopped';
  lastStop: StopInfo | null = null;
  readonly breakpoints = new Map<string, Breakpoint>();
  /** Server-side conditions by breakpoint id (see conditions.ts); gone with the breakpoint. */
  readonly conditions = new Map<string, ConditionState>();
  /** Data watchpoints set through the stub (see watchpoints.ts). */
  readonly watchpoints = new Map<string, Watchpoint>();
  ranges: ExecRange[] = [];
  readonly mainRange: ExecRange;
  /** The code the start-up path copies to where it runs: executable like the main binary. */
  readonly copiedRanges: ExecRange[];
  private readonly history: HistoryEntry[] = [];
  historyDropped = 0;
  private nextBreakpoint = 1;

  constructor(
    /** The backend's names, quirks and features (how this CPU's stub speaks). */
    readonly profile: StubProfile,
    readonly processor: Processor,
    readonly generation: number,
    readonly port: number,
    readonly image: CpuImage,
    public connection: RspConnection | null,
    /** Turns a connection failure into the right typed error (an exited emulator, a dropped stub). */
    private readonly fault: (error: unknown, cpu: CpuDebugger) => Promise<never>,
    /** True while the sibling CPU's stub has the emulation running. */
    private readonly siblingRunning: () => Processor | null,
  ) {
    this.mainRange = {
      start: image.ramAddress,
      end: Math.min(ADDRESS_SPACE_END, image.ramAddress + image.size),
      label: `${processor} main binary (header)`,
      mode: 'mixed',
      source: 'header',
    };
    this.copiedRanges = image.copied.map((c) => ({
      start: c.start,
      end: Math.min(ADDRESS_SPACE_END, c.start + c.size),
      label: `copied by the start-up code from ${formatAddress(c.source)} (stored by the instruction at ${formatAddress(c.storedBy)})`,
      mode: 'mixed' as const,
      source: 'copied' as const,
    }));
  }

  get allowlist(): ExecRange[] {
    return [this.mainRange, ...this.copiedRanges, ...this.ranges];
  }

  get historyEntries(): HistoryEntry[] {
    return [...this.history];
  }

  /** Running as far as this CPU can tell: its own stub runs, or its sibling's does. */
  effectiveState(): { state: RunState; via: Processor | null } {
    if (this.state !== 'stopped') return { state: this.state, via: null };
    const sibling = this.siblingRunning();
    return sibling ? { state: 'running', via: sibling } : { state: 'stopped', via: null };
  }

  requireConnection(): RspConnection {
    if (this.connection === null || this.connection.closed) {
      throw new ReMcpError(
        'unreachable',
        `no GDB connection to the ${this.processor} stub: call ${this.tool('wait_for_gdb')} to reconnect`,
      );
    }
    return this.connection;
  }

  /** Stopped-state commands refuse while the target runs: reading a running CPU gives torn state. */
  requireStopped(action: string): RspConnection {
    const { state, via } = this.effectiveState();
    if (state === 'running') {
      throw new ReMcpError(
        'target-running',
        via
          ? `cannot ${action}: the emulation was resumed through the ${via} stub and runs; pause or wait on ${via} first`
          : `cannot ${action}: the ${this.processor} target is running; call ${this.tool('wait_for_stop')} or ${this.tool('pause')} first`,
        { processor: this.processor, resumedVia: via },
      );
    }
    if (state === 'unknown') {
      throw new ReMcpError(
        'target-running',
        `cannot ${action}: the ${this.processor} run state is unknown after a reconnect; call ${this.tool('pause')} first`,
      );
    }
    return this.requireConnection();
  }

  /** The backend's tool for `verb` (e.g. `pause`), for messages that say what to call. */
  tool(verb: string): string {
    return toolName(this.profile.names, verb);
  }

  /** Decodes a `g` reply in this stub's register layout. */
  decodeRegisters(raw: string): DecodedRegisters {
    return parseRegisterPacket(raw, this.profile.quirks.registerLayout);
  }

  /** Runs stub I/O; a closed or timed-out connection is mapped (exited emulator vs dropped stub). */
  async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ReMcpError && (error.code === 'unreachable' || error.code === 'timeout')) {
        return this.fault(error, this);
      }
      throw error;
    }
  }

  async readRegisters(): Promise<{ raw: string; decoded: DecodedRegisters }> {
    const conn = this.requireStopped('read registers');
    return this.guard(async () => {
      const raw = await conn.request({ op: 'read-registers' }, REPLY_TIMEOUT_MS);
      return { raw, decoded: this.decodeRegisters(raw) };
    });
  }

  async readMemory(address: number, length: number): Promise<Uint8Array> {
    if (!Number.isInteger(length) || length < LIMITS.memoryRead.min || length > LIMITS.memoryRead.max) {
      throw new ReMcpError(
        'limit-exceeded',
        `a memory read is ${LIMITS.memoryRead.min}..${LIMITS.memoryRead.max} bytes`,
      );
    }
    if (!Number.isInteger(address) || address < 0 || address + length > ADDRESS_SPACE_END) {
      throw new ReMcpError(
        'invalid-argument',
        `the read ${formatAddress(address)}+${length} leaves the 32-bit address space`,
      );
    }
    const conn = this.requireStopped('read memory');
    return this.guard(async () => {
      const out = new Uint8Array(length);
      let at = 0;
      for (const chunk of memoryChunks(address, length, this.profile.quirks.maxMemoryChunk)) {
        const reply = await conn.request({ op: 'read-memory', ...chunk }, REPLY_TIMEOUT_MS);
        out.set(parseMemoryReply(reply, chunk.length), at);
        at += chunk.length;
      }
      return out;
    });
  }

  async addBreakpoint(
    address: number,
    requested: BreakpointKind | 'auto',
  ): Promise<{ bp: Breakpoint; existed: boolean }> {
    const conn = this.requireStopped('change breakpoints');
    if (!Number.isInteger(address) || address < 0 || address >= ADDRESS_SPACE_END) {
      throw new ReMcpError('invalid-argument', `breakpoint address out of the 32-bit space: ${address}`);
    }
    const inRanges = this.allowlist.filter((r) => address >= r.start && address < r.end);
    const stoppedAt = this.lastStop ? { pc: this.lastStop.pc, thumb: this.lastStop.thumb } : null;
    const mode = resolveMode(address, requested, { ranges: inRanges, entry: this.image.entry, stoppedAt });
    checkAlignment(address, mode);
    const range = containingRange(this.allowlist, address, mode === 'arm' ? 4 : 2);
    if (range === null) {
      throw new ReMcpError(
        'invalid-argument',
        `${formatAddress(address)} is outside the ${this.processor} executable allowlist (main binary ${formatAddress(this.mainRange.start)}..${formatAddress(this.mainRange.end)}, ${this.copiedRanges.length} copied blocks, ${this.ranges.length} replaced ranges)`,
        { address: formatAddress(address) },
      );
    }
    for (const bp of this.breakpoints.values()) {
      if (bp.address !== address) continue;
      if (bp.mode === mode) return { bp, existed: true };
      // The stub matches by address alone: two records at one address could not be told apart.
      throw new ReMcpError(
        'invalid-argument',
        `${bp.id} already watches ${formatAddress(address)} as ${bp.mode}; remove it first`,
      );
    }
    if (this.breakpoints.size >= LIMITS.breakpoints.max) {
      throw new ReMcpError(
        'limit-exceeded',
        `at most ${LIMITS.breakpoints.max} active ${this.processor} breakpoints`,
      );
    }
    await this.guard(async () =>
      parseOkReply(
        await conn.request({ op: 'insert-breakpoint', address, kind: mode }, REPLY_TIMEOUT_MS),
        'Z0',
      ),
    );
    const bp: Breakpoint = {
      id: `${this.processor}-g${this.generation}-bp${this.nextBreakpoint++}`,
      processor: this.processor,
      address,
      mode,
      range: range.label,
      hits: 0,
      createdAt: new Date().toISOString(),
    };
    this.breakpoints.set(bp.id, bp);
    return { bp, existed: false };
  }

  async removeBreakpoint(id: string): Promise<Breakpoint> {
    const bp = this.breakpoints.get(id);
    if (!bp)
      throw new ReMcpError('not-found', `no ${this.processor} breakpoint with id ${id} in this generation`);
    const conn = this.requireStopped('change breakpoints');
    await this.guard(async () =>
      parseOkReply(
        await conn.request({ op: 'remove-breakpoint', address: bp.address, kind: bp.mode }, REPLY_TIMEOUT_MS),
        'z0',
      ),
    );
    this.breakpoints.delete(id);
    this.conditions.delete(id);
    return bp;
  }

  replaceRanges(ranges: ExecRange[]): void {
    const orphans = [...this.breakpoints.values()].filter(
      (bp) =>
        containingRange(
          [this.mainRange, ...this.copiedRanges, ...ranges],
          bp.address,
          bp.mode === 'arm' ? 4 : 2,
        ) === null,
    );
    if (orphans.length > 0) {
      throw new ReMcpError(
        'invalid-argument',
        `the new ranges would leave active breakpoints outside the allowlist (${orphans.map((b) => b.id).join(', ')}); remove them first`,
      );
    }
    this.ranges = ranges;
  }

  /** Sends `c` or `s`; afterwards the CPU (and its sibling) run until a stop reply. */
  async resume(op: 'continue' | 'step'): Promise<void> {
    const conn = this.requireStopped(op === 'continue' ? 'continue' : 'step');
    await this.guard(async () => {
      try {
        await conn.resume(op, REPLY_TIMEOUT_MS);
      } catch (error) {
        // Without the ack the packet may still have reached the stub and resumed the target: its run
        // state is unknown (a pause settles it), never silently "stopped". `busy` sent nothing.
        if (!(error instanceof ReMcpError && error.code === 'busy')) this.state = 'unknown';
        throw error;
      }
    });
    this.state = 'running';
  }

  /** Waits for the next stop reply; null when the target still runs at the deadline. */
  async awaitStop(
    timeoutMs: number,
    signal: AbortSignal | undefined,
    cause: 'continue' | 'step' | 'pause',
  ): Promise<StopInfo | null> {
    const conn = this.requireConnection();
    const stop = await this.guard(() => conn.nextStop(timeoutMs, signal));
    if (stop === null) return null;
    return this.recordStop(stop, cause);
  }

  /** Ctrl-C. Only meaningful when this CPU's own stub runs (a halted stub ignores it). */
  interrupt(): void {
    this.requireConnection().interrupt();
  }

  private async recordStop(
    stop: StopReply,
    cause: 'continue' | 'step' | 'pause' | 'launch',
  ): Promise<StopInfo> {
    const gone = targetGoneError(stop);
    if (gone !== null) {
      // W/X: no target to stop in; nothing is known about its state any more.
      this.state = 'unknown';
      throw gone;
    }
    this.state = 'stopped';
    const conn = this.requireConnection();
    const regs = await this.guard(async () =>
      this.decodeRegisters(await conn.request({ op: 'read-registers' }, REPLY_TIMEOUT_MS)),
    );
    const pc = regs.r[15]!;
    let reason: StopReason = stop.signal === 2 ? 'interrupt' : stop.signal === 5 ? 'signal' : 'signal';
    if (cause === 'launch') reason = 'launch-halt';
    else if (stop.signal === 5 && cause === 'step') reason = 'step';
    let matched: Breakpoint | null = null;
    if (stop.signal === 5 && cause !== 'step') {
      // The stub reports the fetch address of the breakpointed instruction as the PC.
      matched = [...this.breakpoints.values()].find((bp) => bp.address === pc) ?? null;
      if (matched) {
        matched.hits++;
        reason = 'breakpoint';
      }
    }
    const order = this.profile.features.watchpoints?.stopAddress;
    const watch =
      cause === 'launch' || order === undefined ? null : matchWatch(this.watchpoints, stop.raw, order);
    if (watch) reason = 'watchpoint';
    const info: StopInfo = {
      reason,
      watch,
      signal: stop.signal,
      pc,
      thumb: regs.thumb,
      cpsr: regs.cpsr,
      breakpointId: matched?.id ?? null,
      hitCount: matched?.hits ?? null,
      at: new Date().toISOString(),
    };
    this.lastStop = info;
    this.history.push({
      pc,
      mode: regs.thumb ? 'thumb' : 'arm',
      reason,
      breakpointId: info.breakpointId,
      at: info.at,
    });
    if (this.history.length > LIMITS.history.max) {
      this.history.shift();
      this.historyDropped++;
    }
    return info;
  }

  /** The launch halt: the stub starts halted at the entry and answered `?` with `raw` (e.g. S02). */
  async recordLaunchHalt(raw: string): Promise<StopInfo> {
    return this.recordStop({ kind: 'signal', signal: Number.parseInt(raw.slice(1, 3), 16), raw }, 'launch');
  }
}
