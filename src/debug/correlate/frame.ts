// One correlated frame: a runtime address and an ARM/Thumb mode mapped to every canonical static
// candidate (main, autoload, each overlapping overlay: kept apart, never collapsed), each with its
// bounded static interpretation (decoded instruction, enclosing proven function and CFG block) and,
// when live bytes were read, whether memory holds that candidate's bytes. Every fact carries its
// authority: what the stub observed, what discovery proved, or what a static candidate merely says.

import type { CandidateFunction, FunctionSource } from '../../analysis/answers/code-owners.js';
import { candidateSource, type ResolvedSource } from '../../analysis/code-source.js';
import { FUNCTION_LOOKUPS } from '../../analysis/functions/coverage.js';
import { decodeSourceWindow } from '../../analysis/linear-window.js';
import { type CopiedBlock, TIERS } from '../../analysis/program-map/types.js';
import { isLiteralPoolData } from '../../arm/literal-pools.js';
import { type ArmReference, referencesOfWindow } from '../../arm/references.js';
import type { ArmMode } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import { RUNTIME_COMPONENTS, type RuntimeRangeKind, resolveRuntimeAddress } from '../../formats/nds/index.js';
import type { RomHandle, RomStore } from '../../roms/rom-store.js';

/** A function's authority: its tier as a static fact (`static-proven`...), in TIERS' order. */
export const FUNCTION_AUTHORITIES = TIERS.map((t) => `static-${t}` as const);

/** Whether live memory holds a candidate's static bytes at the address, or why that was not checked. */
export const LIVE_STATUSES = ['live-bytes-match', 'mismatch', 'not-checked'] as const;
type LiveStatus = (typeof LIVE_STATUSES)[number];

/** Whether any static component holds a frame's address. */
export const FRAME_STATUSES = ['static-candidates', 'no-static-component'] as const;
type FrameStatus = (typeof FRAME_STATUSES)[number];

/** A candidate's component: a runtime range's, or a block the start-up code copies (copied). */
export const CANDIDATE_COMPONENTS = [...RUNTIME_COMPONENTS, 'copied'] as const;
type CandidateComponent = (typeof CANDIDATE_COMPONENTS)[number];

/**
 * Why a candidate lists the functions it does: a function lookup's answer, or not-code (none asked
 * for: the candidate is no code the analysis covers, e.g. BSS, a DSi block, autoload bytes that do not
 * decode).
 */
export const FUNCTION_REASONS = [...FUNCTION_LOOKUPS, 'not-code'] as const;
type FunctionReason = (typeof FUNCTION_REASONS)[number];

/** Bytes read from the stub around the frame's address (half before, half from it). */
export const LIVE_WINDOW_BYTES = 64;

/** Live memory around an address, as read through the stub (null: not read, with the reason). */
export interface LiveWindow {
  start: number;
  bytes: Uint8Array | null;
  reason?: string;
}

interface CandidateInstruction {
  address: number;
  size: number;
  bytes: string;
  text: string;
}

interface FrameCandidate {
  component: CandidateComponent;
  overlayId: number | null;
  autoloadIndex: number | null;
  /** Which block the start-up code copies there (component 'copied'). */
  copiedIndex: number | null;
  region: RuntimeRangeKind;
  romOffset: number | null;
  compressed: boolean;
  /** The instructions from the address in the frame's mode, decoded from this candidate's bytes. */
  instructions: CandidateInstruction[];
  /** Why there are no instructions (BSS, autoload, not decodable...), when there are none. */
  staticNote: string | null;
  live: { status: LiveStatus; reason: string | null; compared: { start: number; length: number } | null };
  /** Proven functions of this candidate whose analysed CFG holds the address. */
  functions: CandidateFunction[];
  functionReason: FunctionReason;
  /** Static references of the decoded instructions (literal-pool loads with the word they read). */
  references: Array<ArmReference & { value?: number }>;
  /** References past referenceLimit, not listed. */
  referencesOmitted: number;
}

/** The functions of the analysis enclosing the address in this candidate, or why there are none. */
function enclosingFunctions(ctx: FrameContext, candidate: FrameCandidate, address: number): void {
  candidate.functions = ctx.functions.enclosing(candidate, address);
  candidate.functionReason =
    candidate.functions.length > 0
      ? 'found'
      : ctx.functions.negativeIsDefinitive
        ? 'complete-negative'
        : 'coverage-gap';
}

/** A candidate's findings before anything is decoded, checked or looked up (each list its own). */
function unexamined(): Pick<
  FrameCandidate,
  'instructions' | 'staticNote' | 'live' | 'functions' | 'functionReason' | 'references' | 'referencesOmitted'
> {
  return {
    instructions: [],
    staticNote: null,
    live: { status: 'not-checked', reason: null, compared: null },
    functions: [],
    functionReason: 'not-code',
    references: [],
    referencesOmitted: 0,
  };
}

export interface CorrelatedFrame {
  address: number;
  /** Null when nothing observed gives the instruction set (an exception mode's LR). */
  mode: ArmMode | null;
  status: FrameStatus;
  candidates: FrameCandidate[];
  /** Candidates the live bytes match, when the check ran for at least one of them. */
  liveMatches: number;
}

export interface FrameContext {
  store: RomStore;
  rom: RomHandle;
  processor: Processor;
  functions: FunctionSource;
  /** Blocks the start-up code copies (copied-code evidence): static candidates at their run address. */
  copied: readonly CopiedBlock[];
  nearbyInstructions: number;
  referenceLimit: number;
  signal?: AbortSignal;
}

/**
 * Correlates one address/mode; `live` null when the live-byte check is off. Without a known mode
 * nothing is decoded (the bytes would be read in a guessed instruction set); candidates, live bytes
 * and enclosing proven functions still are.
 */
export async function correlateFrame(
  ctx: FrameContext,
  address: number,
  mode: ArmMode | null,
  live: LiveWindow | null,
): Promise<CorrelatedFrame> {
  const r = resolveRuntimeAddress(ctx.rom.model, ctx.processor, address);
  const candidates: FrameCandidate[] = [];
  for (const block of ctx.copied) {
    if (address >= block.start && address < block.start + block.size)
      candidates.push(await copiedCandidate(ctx, block, address, mode, live));
  }
  for (const c of r.candidates) {
    const candidate: FrameCandidate = {
      component: c.component,
      overlayId: c.overlayId,
      autoloadIndex: c.autoloadIndex,
      copiedIndex: null,
      region: c.region,
      romOffset: c.romOffset,
      compressed: c.compressed,
      ...unexamined(),
    };
    let span: { start: number; bytes: Uint8Array } | null = null;
    try {
      // The candidate is explicit, so its bytes are known even where components overlap (main and
      // an overlay, two overlays): which one is loaded is what the live check answers.
      const source = await candidateSource(ctx.store, ctx.rom, ctx.processor, c, address, ctx.signal);
      if ('note' in source) candidate.staticNote = source.note;
      else {
        span = source.span;
        if (mode === null)
          candidate.staticNote = 'not decoded: the instruction set at this address is not observed';
        else if (address % (mode === 'arm' ? 4 : 2) !== 0)
          candidate.staticNote = `not decoded: ${mode} code is ${mode === 'arm' ? 4 : 2}-byte aligned`;
        else await decodeCandidate(ctx, candidate, { ...source, address, mode });
      }
    } catch (error) {
      if (!(error instanceof ReMcpError) || error.code === 'cancelled') throw error;
      candidate.staticNote = `${error.code}: ${error.message}`;
    }
    candidate.live = compareLive(live, span, address);
    // Discovery covers main, overlays and (ARM9) autoload blocks reached by proven calls. An autoload
    // candidate is asked only when it has decoded code here: its BSS stays not-code.
    const discovered =
      c.component === 'main' ||
      c.component === 'overlay' ||
      (c.component === 'autoload' && candidate.instructions.length > 0);
    if (discovered) enclosingFunctions(ctx, candidate, address);
    candidates.push(candidate);
  }
  return {
    address,
    mode,
    status: candidates.length > 0 ? 'static-candidates' : 'no-static-component',
    candidates,
    liveMatches: candidates.filter((c) => c.live.status === 'live-bytes-match').length,
  };
}

/** The candidate a copied block gives: its bytes are main's at the copy's source. */
async function copiedCandidate(
  ctx: FrameContext,
  block: CopiedBlock,
  address: number,
  mode: ArmMode | null,
  live: LiveWindow | null,
): Promise<FrameCandidate> {
  const main = await ctx.store.decoded.runtimeImage(ctx.rom, ctx.processor, null, ctx.signal);
  const from = block.source - main.ramAddress;
  const span = {
    component: 'copied',
    overlayId: null,
    copiedIndex: block.index,
    start: block.start,
    bytes: main.bytes.subarray(from, from + block.size),
  };
  const romOffset = main.romOffset === null ? null : main.romOffset + from + (address - block.start);
  const candidate: FrameCandidate = {
    component: 'copied',
    overlayId: null,
    autoloadIndex: null,
    copiedIndex: block.index,
    region: main.derived ? 'initialized-derived' : 'file-backed',
    romOffset,
    compressed: main.derived,
    ...unexamined(),
  };
  if (mode === null)
    candidate.staticNote = 'not decoded: the instruction set at this address is not observed';
  else if (address % (mode === 'arm' ? 4 : 2) !== 0)
    candidate.staticNote = `not decoded: ${mode} code is ${mode === 'arm' ? 4 : 2}-byte aligned`;
  else
    await decodeCandidate(ctx, candidate, {
      span,
      romOffset: main.romOffset === null ? null : main.romOffset + from,
      derived: main.derived,
      address,
      mode,
    });
  candidate.live = compareLive(live, span, address);
  enclosingFunctions(ctx, candidate, address);
  return candidate;
}

/**
 * Decodes the candidate's instructions from the address (stopping at a proven literal-pool word) and
 * lists their static references, at most ctx.referenceLimit (the omitted count said).
 */
async function decodeCandidate(ctx: FrameContext, candidate: FrameCandidate, src: ResolvedSource) {
  const w = await decodeSourceWindow(
    ctx.rom,
    ctx.processor,
    src,
    ctx.nearbyInstructions,
    ctx.nearbyInstructions * 4,
  );
  const shown = new Set<number>();
  for (const item of w.items) {
    if (isLiteralPoolData(item)) break;
    shown.add(item.address);
    candidate.instructions.push({
      address: item.address,
      size: item.size,
      bytes: item.bytes,
      text: item.operands ? `${item.mnemonic} ${item.operands}` : item.mnemonic,
    });
  }
  if (candidate.instructions.length === 0) candidate.staticNote ??= 'the bytes here do not decode';
  const refs = referencesOfWindow(w.instructions.filter((i) => shown.has(i.address)));
  candidate.referencesOmitted = Math.max(0, refs.length - ctx.referenceLimit);
  for (const ref of refs.slice(0, ctx.referenceLimit)) {
    const word = ref.kind === 'literal-pool' ? w.literalWords.get(ref.to) : undefined;
    candidate.references.push(word ? { ...ref, value: word.value } : ref);
  }
}

/**
 * Compares the live window with the candidate's static bytes where both exist. The compared range
 * must hold the frame's address: bytes elsewhere could match by chance without saying anything
 * about the code here.
 */
function compareLive(
  live: LiveWindow | null,
  span: { start: number; bytes: Uint8Array } | null,
  address: number,
): FrameCandidate['live'] {
  if (live === null) return { status: 'not-checked', reason: 'live-byte check skipped', compared: null };
  if (live.bytes === null)
    return { status: 'not-checked', reason: live.reason ?? 'live read failed', compared: null };
  if (span === null)
    return { status: 'not-checked', reason: 'no static bytes to compare (see staticNote)', compared: null };
  const start = Math.max(live.start, span.start);
  const end = Math.min(live.start + live.bytes.length, span.start + span.bytes.length);
  if (!(start <= address && address < end))
    return { status: 'not-checked', reason: 'no overlap with the live window', compared: null };
  for (let a = start; a < end; a++) {
    if (live.bytes[a - live.start] !== span.bytes[a - span.start]) {
      return {
        status: 'mismatch',
        reason: `first difference at 0x${a.toString(16).padStart(8, '0')}`,
        compared: { start, length: end - start },
      };
    }
  }
  return { status: 'live-bytes-match', reason: null, compared: { start, length: end - start } };
}
