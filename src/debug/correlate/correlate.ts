// nds_correlate_stop_context's service: from the owned, stopped emulator CPU to the canonical static
// model of the exact ROM it runs. The ROM is reopened through the RomStore by the generation's own
// path and must still be the launch-time bytes (full SHA-256), before and after the work. The PC and
// CPSR mode are taken as the stub reports them (no breakpoint rewind); the caller frame is the LR
// (its bit 0 gives the mode it returns to, in user/system mode only); the backtrace lists only LR and stack words that static
// evidence ties to proven code, each labelled with that evidence.

import { type AnalysisScope, EVIDENCE_IDS } from '../../analysis/evidence/index.js';
import { CoverageCollector } from '../../analysis/functions/coverage.js';
import {
  ALL_EVIDENCE,
  type Evidence,
  identityKey,
  STANDARD_DISCOVERY,
  STANDARD_FUNCTION_CFG,
} from '../../analysis/functions/discover.js';
import { discoverInRom, type ScopeStatus } from '../../analysis/functions/nds-scope.js';
import type { MapComponent } from '../../analysis/program-map/components.js';
import { usableCopies } from '../../analysis/program-map/components.js';
import type { MapFunction, ProgramMap } from '../../analysis/program-map/map.js';
import type { ProgramMapService } from '../../analysis/program-map/service.js';
import { TIER_RANK, TIERS, type Tier } from '../../analysis/program-map/types.js';
import type { MapBlock } from '../../analysis/program-map/walker.js';
import type { ArmMode } from '../../arm/types.js';
import { ReMcpError, throwIfCancelled } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import type { RomHandle, RomStore } from '../../nds/rom-store.js';
import type { CpuDebugger } from '../cpu.js';
import type { Generation } from '../session.js';
import {
  type CandidateFunction,
  type CorrelatedFrame,
  correlateFrame,
  discoveryFunctions,
  enclosing,
  type FrameCandidate,
  type FrameContext,
  type FunctionSource,
  LIVE_WINDOW_BYTES,
  type LiveWindow,
} from './frame.js';

export const CORRELATE_LIMITS = {
  nearbyInstructions: { default: 8, min: 1, max: 32, unit: 'instructions decoded per candidate' },
  stackWords: { default: 32, min: 0, max: 64, unit: '32-bit words read from SP for the backtrace' },
  referenceLimit: { default: 16, min: 0, max: 64, unit: 'static references listed per decoded candidate' },
} as const;

// Every correlation runs the standard discovery (nds_discover_functions' defaults), all evidence.
const ALL: ReadonlySet<Evidence> = new Set(ALL_EVIDENCE);

export interface CorrelateRequest {
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

/**
 * Why a word is shown in the backtrace: what static evidence ties it to code. `after-call-site` /
 * `inside-function` are the map's weaker tiers (the function says which).
 */
export const RETURN_EVIDENCE = [
  'after-proven-call-site',
  'inside-proven-function',
  'after-call-site',
  'inside-function',
] as const;
export type ReturnEvidence = (typeof RETURN_EVIDENCE)[number];

export interface BacktraceMatch {
  function: CandidateFunction;
  evidence: ReturnEvidence;
  /** The call instruction just before the return address (after-proven-call-site only). */
  callSite: number | null;
}

/** Where a backtrace word was read: the link register, or a stack slot. */
export const RETURN_SOURCES = ['lr', 'stack'] as const;
export type ReturnSource = (typeof RETURN_SOURCES)[number];

export interface BacktraceEntry {
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
  discovery: { status: ScopeStatus; truncation: string[]; functions: number };
  /** What the analysis covered, in bytes, and whether a negative is definitive. */
  coverage: {
    analysis: AnalysisScope;
    lowestTier: Tier;
    executableBytes: number;
    classifiedBytes: number;
    unclassifiedBytes: number;
    definitive: boolean;
    notDefinitive: string[];
  };
  liveCheck: boolean;
}

const ADDRESS_SPACE = 0x1_0000_0000;

/** The CPSR's processor mode (bits 4..0); invalid for a value no ARM mode has. */
export const CPSR_MODES = ['usr', 'fiq', 'irq', 'svc', 'abt', 'und', 'sys', 'invalid'] as const;
export type CpuMode = (typeof CPSR_MODES)[number];
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
      const analysis =
        req.analysis === 'program' ? await programSource(req, rom) : await boundedSource(req, rom);
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
        const word =
          (stack[at]! | (stack[at + 1]! << 8) | (stack[at + 2]! << 16) | (stack[at + 3]! << 24)) >>> 0;
        returnEntry('stack', sp + at, word);
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

interface AnalysisSource {
  functions: FunctionSource;
  returns(address: number, mode: ArmMode): BacktraceMatch[];
  discovery: Correlation['discovery'];
  coverage: Correlation['coverage'];
}

/** The standard bounded discovery (nds_discover_functions' defaults, the original evidence). */
async function boundedSource(req: CorrelateRequest, rom: RomHandle): Promise<AnalysisSource> {
  const covered = new CoverageCollector();
  const { result, status, components } = await discoverInRom(req.store, rom, {
    processor: req.processor,
    seeds: [],
    evidence: ALL,
    limits: { ...STANDARD_DISCOVERY },
    local: { ...STANDARD_FUNCTION_CFG },
    onBlock: (block, span) => covered.block(block, span),
    ...(req.signal ? { signal: req.signal } : {}),
  });
  const c = covered.finish(rom.model, req.processor, components, result.callSites, status === 'truncated');
  const definitive = status === 'complete' && c.definitive;
  return {
    functions: discoveryFunctions(result, definitive),
    returns: (address, mode) => returnEvidence(result, address, mode),
    discovery: { status, truncation: result.truncation, functions: result.functions.length },
    coverage: {
      analysis: 'bounded',
      lowestTier: 'proven',
      executableBytes: c.executableBytes,
      classifiedBytes: c.classifiedBytes,
      unclassifiedBytes: c.unclassifiedBytes,
      definitive,
      notDefinitive: c.notDefinitive,
    },
  };
}

/** The whole-program map (built, or kept from an earlier call), at tiers down to req.lowestTier. */
async function programSource(req: CorrelateRequest, rom: RomHandle): Promise<AnalysisSource> {
  const map: ProgramMap = await req.maps.map(req.store, rom, {
    processor: req.processor,
    evidence: EVIDENCE_IDS,
    maxCodeBytes: req.mapLimits.maxCodeBytes,
    maxSeconds: req.mapLimits.maxSeconds,
    signal: req.signal,
  });
  const lowest = req.lowestTier;
  const cov = map.coverage(lowest);
  const componentOf = (
    k: Pick<FrameCandidate, 'component' | 'overlayId' | 'autoloadIndex' | 'copiedIndex'>,
  ) =>
    map.set.list.find(
      (m) =>
        m.kind === k.component &&
        m.overlayId === k.overlayId &&
        m.autoloadIndex === k.autoloadIndex &&
        m.copiedIndex === k.copiedIndex,
    );
  const fnView = (fn: MapFunction, block: MapBlock | null): CandidateFunction => ({
    identity: {
      component: fn.component.kind,
      overlayId: fn.component.overlayId,
      ...(fn.component.autoloadIndex !== null ? { autoloadIndex: fn.component.autoloadIndex } : {}),
      address: fn.address,
      mode: fn.mode,
    },
    evidence: [...new Set(fn.evidence.map((e) => e.class))],
    block: block
      ? { address: block.start, end: block.end, mode: block.mode }
      : { address: fn.address, end: fn.address, mode: fn.mode },
    tier: fn.tier,
  });
  const inside = (comp: MapComponent, address: number, mode: ArmMode) =>
    map
      .holders(address, lowest)
      .filter((h) => h.component === comp)
      .flatMap((h) => h.functions)
      .filter((f) => f.via === 'body' && f.block?.mode === mode);
  return {
    functions: {
      enclosing: (k, address) => {
        const comp = componentOf(k);
        if (!comp) return [];
        return map
          .holders(address, lowest)
          .filter((h) => h.component === comp)
          .flatMap((h) => h.functions)
          .filter((f) => f.via === 'body')
          .map((f) => fnView(f.fn, f.block));
      },
      negativeIsDefinitive: cov.definitive,
    },
    returns: (address, mode) => {
      const matches: BacktraceMatch[] = [];
      for (const c of map.built.walker.calls) {
        if (c.mode !== mode || TIER_RANK[TIERS[c.tier]!] > TIER_RANK[lowest]) continue;
        if (!(c.at === address - 4 || (mode === 'thumb' && c.at === address - 2))) continue;
        const comp = map.set.list[c.comp]!;
        for (const f of inside(comp, c.at, mode)) {
          if (matches.some((m) => m.function.identity.address === f.fn.address)) continue;
          matches.push({
            function: fnView(f.fn, f.block),
            evidence: f.fn.tier === 'proven' ? 'after-proven-call-site' : 'after-call-site',
            callSite: c.at,
          });
        }
      }
      if (matches.length > 0) return matches;
      for (const comp of map.set.holding(address)) {
        for (const f of inside(comp, address, mode))
          matches.push({
            function: fnView(f.fn, f.block),
            evidence: f.fn.tier === 'proven' ? 'inside-proven-function' : 'inside-function',
            callSite: null,
          });
      }
      return matches;
    },
    discovery: {
      status: map.built.status === 'complete' ? 'complete' : 'truncated',
      truncation: map.built.truncation,
      functions: map.functions.length,
    },
    coverage: {
      analysis: 'program',
      lowestTier: lowest,
      executableBytes: cov.executableBytes,
      classifiedBytes: cov.classifiedBytes,
      unclassifiedBytes: cov.unclassifiedBytes,
      definitive: cov.definitive,
      notDefinitive: cov.notDefinitive,
    },
  };
}

/**
 * What ties a possible return address to proven code. A call site of a proven function ending right
 * before it (ARM BL/BLX: 4 bytes; Thumb BL pair: 4, Thumb BLX Rm: 2) is the strong evidence; else a
 * proven function's CFG block holding it in the same mode; else nothing (the word is not shown).
 */
function returnEvidence(
  discovery: Awaited<ReturnType<typeof discoverInRom>>['result'],
  address: number,
  mode: ArmMode,
): BacktraceMatch[] {
  const matches: BacktraceMatch[] = [];
  const seen = new Set<string>();
  for (const site of discovery.callSites) {
    if (site.callerIsSeed || site.caller.mode !== mode) continue;
    if (!(site.at === address - 4 || (mode === 'thumb' && site.at === address - 2))) continue;
    const inside = enclosing(
      discovery,
      site.caller.component,
      site.caller.overlayId,
      site.at,
      site.caller.autoloadIndex ?? null,
    ).find((f) => identityKey(f.identity) === identityKey(site.caller));
    if (!inside) continue;
    const key = identityKey(site.caller);
    if (seen.has(key)) continue;
    seen.add(key);
    matches.push({ function: inside, evidence: 'after-proven-call-site', callSite: site.at });
  }
  if (matches.length > 0) return matches;
  for (const component of ['main', 'overlay'] as const) {
    const ids =
      component === 'main'
        ? [null]
        : [
            ...new Set(
              discovery.functions
                .filter((f) => f.identity.component === 'overlay')
                .map((f) => f.identity.overlayId),
            ),
          ];
    for (const id of ids) {
      for (const f of enclosing(discovery, component, id, address)) {
        if (f.block.mode === mode)
          matches.push({ function: f, evidence: 'inside-proven-function', callSite: null });
      }
    }
  }
  const autoloads = new Set(discovery.functions.flatMap((f) => f.identity.autoloadIndex ?? []));
  for (const index of autoloads) {
    for (const f of enclosing(discovery, 'autoload', null, address, index)) {
      if (f.block.mode === mode)
        matches.push({ function: f, evidence: 'inside-proven-function', callSite: null });
    }
  }
  return matches;
}
