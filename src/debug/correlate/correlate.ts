// nds_correlate_stop_context's service: from the owned, stopped emulator CPU to the canonical static
// model of the exact ROM it runs. The ROM is reopened through the RomStore by the generation's own
// path and must still be the launch-time bytes (full SHA-256), before and after the work. The PC and
// CPSR mode are taken as the stub reports them (no breakpoint rewind); the caller frame is the LR
// (its bit 0 gives the mode it returns to, in user/system mode only); the backtrace lists only LR and stack words that static
// evidence ties to proven code, each labelled with that evidence.

import { type BacktraceMatch, type CodeOwners, codeOwners } from '../../analysis/answers/code-owners.js';
import { resolveEvidence } from '../../analysis/answers/question.js';
import type { AnalysisScope } from '../../analysis/evidence/index.js';
import { usableCopies } from '../../analysis/program-map/components.js';
import type { ProgramMapService } from '../../analysis/program-map/service.js';
import type { Tier } from '../../analysis/program-map/types.js';
import type { ArmMode } from '../../arm/types.js';
import { ReMcpError, throwIfCancelled } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import { u32 } from '../../formats/le.js';
import type { RomHandle, RomStore } from '../../roms/rom-store.js';
import type { CpuDebugger } from '../cpu.js';
import type { Generation } from '../session.js';
import {
  type CorrelatedFrame,
  correlateFrame,
  type FrameContext,
  LIVE_WINDOW_BYTES,
  type LiveWindow,
} from './frame.js';

export { RETURN_EVIDENCE } from '../../analysis/answers/code-owners.js';

export const CORRELATE_LIMITS = {
  nearbyInstructions: { default: 8, min: 1, max: 32, unit: 'instructions decoded per candidate' },
  stackWords: { default: 32, min: 0, max: 64, unit: '32-bit words read from SP for the backtrace' },
  referenceLimit: { default: 16, min: 0, max: 64, unit: 'static references listed per decoded candidate' },
} as const;

interface CorrelateRequest {
  store: RomStore;
  maps: ProgramMapService;
  /** bounded: the standard discovery; program: the whole-program map at tiers down to lowestTier. */
  analysis: AnalysisScope;
  lowestTier: Tier;
  /** The map's bounds when it must be built (program). */
  mapLimits: { maxCodeBytes: number; maxSeconds: number };
  generation: Generation;
  cpu: CpuDebugger;
  processor: Processor;
  nearbyInstructions: number;
  stackWords: number;
  referenceLimit: number;
  liveCheck: boolean;
  signal?: AbortSignal;
}

/** Where a backtrace word was read: the link register, or a stack slot. */
export const RETURN_SOURCES = ['lr', 'stack'] as const;
type ReturnSource = (typeof RETURN_SOURCES)[number];

interface BacktraceEntry {
  source: ReturnSource;
  /** Stack slot address (stack words only). */
  slot: number | null;
  value: number;
  address: number;
  /** Bit 0 of the word (the BL/BLX convention); null for an exception mode's LR. */
  mode: ArmMode | null;
  matches: BacktraceMatch[];
}

export interface Correlation {
  processor: Processor;
  generation: number;
  rom: { path: string; sha256: string };
  registers: { pc: number; cpsr: number; mode: ArmMode; cpuMode: CpuMode; lr: number; sp: number };
  stopReason: string | null;
  pc: CorrelatedFrame;
  caller: CorrelatedFrame;
  backtrace: { stackWordsRead: number; stackReadNote: string | null; entries: BacktraceEntry[] };
  discovery: CodeOwners['discovery'];
  /** What the analysis covered, in bytes, and whether a negative is definitive. */
  coverage: CodeOwners['coverage'];
  liveCheck: boolean;
}

const ADDRESS_SPACE = 0x1_0000_0000;

/** The CPSR's processor mode (bits 4..0); invalid for a value no ARM mode has. */
export const CPSR_MODES = ['usr', 'fiq', 'irq', 'svc', 'abt', 'und', 'sys', 'invalid'] as const;
type CpuMode = (typeof CPSR_MODES)[number];
const CPU_MODES: Record<number, CpuMode> = {
  16: 'usr',
  17: 'fiq',
  18: 'irq',
  19: 'svc',
  23: 'abt',
  27: 'und',
  31: 'sys',
};

/**
 * In user/system mode LR holds a BL/BLX return address whose bit 0 is the caller's instruction set.
 * In an exception mode LR is the banked exception return (PC plus an offset, bit 0 clear even for
 * Thumb code): its instruction set is in the SPSR, which the stub does not report, so it is unknown.
 */
const lrModeKnown = (m: CpuMode) => m === 'usr' || m === 'sys';

/** A live window of LIVE_WINDOW_BYTES centred on `address`, clamped to the address space. */
async function readWindow(cpu: CpuDebugger, address: number): Promise<LiveWindow> {
  const start = Math.max(0, address - LIVE_WINDOW_BYTES / 2);
  const length = Math.min(LIVE_WINDOW_BYTES, ADDRESS_SPACE - start);
  try {
    return { start, bytes: await cpu.readMemory(start, length) };
  } catch (error) {
    if (error instanceof ReMcpError && !['emulator-exited', 'cancelled'].includes(error.code))
      return { start, bytes: null, reason: `live read failed: ${error.code}` };
    throw error;
  }
}

/** Reopens the generation's ROM and requires the launch-time bytes; verifies again after `work`. */
async function withLaunchRom<T>(
  store: RomStore,
  generation: Generation,
  work: (rom: RomHandle) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  const launched = generation.rom;
  const changed = (actual: string | null, why: string) =>
    new ReMcpError(
      'rom-changed',
      `the ROM of generation ${generation.number} changed on disk since launch (${why}): ${launched.path}`,
      { path: launched.path, expectedSha256: launched.identity.sha256, actualSha256: actual },
    );
  try {
    return await store.withRom(
      launched.path,
      async (rom) => {
        if (rom.identity.sha256 !== launched.identity.sha256 || rom.identity.size !== launched.identity.size)
          throw changed(rom.identity.sha256, 'different SHA-256');
        return work(rom);
      },
      signal,
    );
  } catch (error) {
    // A ROM that vanished or no longer parses is a changed ROM too, for this generation.
    if (error instanceof ReMcpError && ['not-found', 'invalid-rom', 'invalid-path'].includes(error.code))
      throw changed(null, error.code);
    throw error;
  }
}

export async function correlateStop(req: CorrelateRequest): Promise<Correlation> {
  const { cpu, processor } = req;
  // Refuses with target-running before any ROM work when the CPU is not stopped.
  const regs = (await cpu.readRegisters()).decoded;
  const pc = regs.r[15]!;
  const lr = regs.r[14]!;
  const sp = regs.r[13]!;
  const mode: ArmMode = regs.thumb ? 'thumb' : 'arm';
  const cpuMode = CPU_MODES[regs.cpsr & 0x1f] ?? 'invalid';
  const lrAddress = lr & ~1 & 0xffffffff;
  const lrMode: ArmMode | null = !lrModeKnown(cpuMode) ? null : (lr & 1) === 1 ? 'thumb' : 'arm';
  const pcLive = req.liveCheck ? await readWindow(cpu, pc) : null;
  const lrLive = req.liveCheck ? await readWindow(cpu, lrAddress >>> 0) : null;
  // Stub reads are bounded by their own reply timeout, not the signal: honour it between them.
  throwIfCancelled(req.signal);
  let stack: Uint8Array = new Uint8Array(0);
  let stackReadNote: string | null = null;
  const stackBytes = Math.min(req.stackWords * 4, ADDRESS_SPACE - sp);
  if (stackBytes >= 4) {
    try {
      stack = await cpu.readMemory(sp, stackBytes - (stackBytes % 4));
    } catch (error) {
      if (!(error instanceof ReMcpError) || ['emulator-exited', 'cancelled'].includes(error.code))
        throw error;
      stackReadNote = `stack read failed: ${error.code}`;
    }
  }
  throwIfCancelled(req.signal);
  return withLaunchRom(
    req.store,
    req.generation,
    async (rom) => {
      const copied = usableCopies(
        rom.model,
        processor,
        (await req.maps.copied(req.store, rom, processor, req.signal)).copies,
      );
      // The standard discovery (nds_discover_functions' defaults) or the map, with the scope's evidence.
      const analysis: CodeOwners = await codeOwners(
        { store: req.store, rom, maps: req.maps },
        {
          processor,
          scope: req.analysis,
          evidence: resolveEvidence(req.analysis, undefined),
          lowestTier: req.lowestTier,
          mapLimits: req.mapLimits,
        },
        { signal: req.signal },
      );
      const ctx: FrameContext = {
        store: req.store,
        rom,
        processor,
        functions: analysis.functions,
        copied,
        nearbyInstructions: req.nearbyInstructions,
        referenceLimit: req.referenceLimit,
        ...(req.signal ? { signal: req.signal } : {}),
      };
      const pcFrame = await correlateFrame(ctx, pc, mode, pcLive);
      const callerFrame = await correlateFrame(ctx, lrAddress >>> 0, lrMode, lrLive);
      const entries: BacktraceEntry[] = [];
      const returnEntry = (source: ReturnSource, slot: number | null, value: number) => {
        const address = (value & ~1) >>> 0;
        const m: ArmMode | null =
          source === 'lr' && lrMode === null ? null : (value & 1) === 1 ? 'thumb' : 'arm';
        const matches = m === null ? [] : analysis.returns(address, m);
        if (source === 'lr' || matches.length > 0)
          entries.push({ source, slot, value, address, mode: m, matches });
      };
      returnEntry('lr', null, lr);
      for (let at = 0; at + 4 <= stack.length; at += 4) {
        returnEntry('stack', sp + at, u32(stack, at));
      }
      return {
        processor,
        generation: req.generation.number,
        rom: { path: req.generation.rom.path, sha256: req.generation.rom.identity.sha256 },
        registers: { pc, cpsr: regs.cpsr, mode, cpuMode, lr, sp },
        stopReason: cpu.lastStop?.reason ?? null,
        pc: pcFrame,
        caller: callerFrame,
        backtrace: { stackWordsRead: stack.length / 4, stackReadNote, entries },
        discovery: analysis.discovery,
        coverage: analysis.coverage,
        liveCheck: req.liveCheck,
      };
    },
    req.signal,
  );
}
