// What every question takes and every answer says. A question is asked in one of two scopes: the
// bounded search from the program entry (and coverage seeds), proving functions only, or the
// whole-program map with its tiers; the answer chooses the analysis from the scope. This module holds
// the terms both share: the ROM an answer reads, the question's scope with its evidence classes and
// bounds, progress and cancellation, the bounded search and the map as both scopes run them, and the
// coverage, component, identity and call-site shapes either scope answers in (addresses as numbers).
import type { ArmMode } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import type { RomHandle, RomStore } from '../../roms/rom-store.js';
import {
  type AnalysisScope,
  BOUNDED_EVIDENCE_IDS,
  EVIDENCE_IDS,
  type EvidenceId,
} from '../evidence/index.js';
import type { ConstantCallVia } from '../functions/constant-register.js';
import { CoverageCollector, type SearchCoverage } from '../functions/coverage.js';
import type {
  CallSite,
  CallSiteKind,
  CfgLimitsOf,
  DiscoveryLimits,
  Evidence,
  FunctionIdentity,
} from '../functions/discover.js';
import {
  type Coverage,
  discoverInRom,
  type ScopeRequest as NdsScopeRequest,
  type ScopeResult,
  type SeedRequest,
} from '../functions/nds-bounded.js';
import type { MapComponent } from '../program-map/components.js';
import type { CallKind, MapCoverage, ProgramMap } from '../program-map/map.js';
import type { ProgramMapService } from '../program-map/service.js';
import type { ComponentKind, Tier } from '../program-map/types.js';

/** How far an answer has got: a map build's bytes of code classified, or a search's functions. */
export type AnswerProgress =
  | { phase: 'map'; codeBytes: number }
  | { phase: 'search'; analysed: number; queued: number };

/** Cancellation and progress of one answer. */
export interface AnswerOptions {
  signal?: AbortSignal | undefined;
  onProgress?: ((p: AnswerProgress) => void) | undefined;
}

/** The ROM an answer reads (held open by the caller) and where its maps are kept. */
export interface RomSource {
  store: RomStore;
  rom: RomHandle;
  maps: ProgramMapService;
}

/** The scope of a question: which analysis answers it, with which evidence, down to which tier. */
export interface Question {
  processor: Processor;
  scope: AnalysisScope;
  /** The evidence classes, as resolveEvidence checked them for the scope. */
  evidence: readonly EvidenceId[];
  /** program: the lowest tier accepted (default heuristic). */
  lowestTier?: Tier | undefined;
  /** program: the map's bounds when it must be built. */
  mapLimits: { maxCodeBytes: number; maxSeconds: number };
  /** bounded: coverage seeds (scanned, never proof) and the overlays in scope (default all). */
  seeds?: SeedRequest[] | undefined;
  overlayIds?: number[] | undefined;
}

/** A bounded search's budget: the whole discovery's, and each function's CFG's. */
export interface SearchBudget {
  limits: DiscoveryLimits;
  local: CfgLimitsOf;
}

/** An answer that chooses its analysis from the question's scope. */
export function scoped<Q extends Question, A>(
  program: (src: RomSource, q: Q, opts: AnswerOptions) => Promise<A>,
  bounded: (src: RomSource, q: Q, opts: AnswerOptions) => Promise<A>,
): (src: RomSource, q: Q, opts?: AnswerOptions) => Promise<A> {
  return (src, q, opts = {}) => (q.scope === 'program' ? program(src, q, opts) : bounded(src, q, opts));
}

/** The tier a program-scope answer accepts down to unless the caller says. */
export const DEFAULT_LOWEST: Tier = 'heuristic';

/** The evidence classes a call asked for, checked against its scope (default: the scope's own set). */
export function resolveEvidence(
  scope: AnalysisScope,
  evidence: readonly EvidenceId[] | undefined,
): EvidenceId[] {
  if (scope === 'program') return [...(evidence ?? EVIDENCE_IDS)];
  const chosen = [...(evidence ?? BOUNDED_EVIDENCE_IDS)];
  const unsupported = chosen.filter((e) => !(BOUNDED_EVIDENCE_IDS as readonly string[]).includes(e));
  if (unsupported.length > 0) {
    throw new ReMcpError(
      'invalid-argument',
      `${unsupported.join(', ')} ${unsupported.length === 1 ? 'needs' : 'need'} the whole-program map: pass scope "program"`,
      { evidence: unsupported },
    );
  }
  return chosen;
}

/** The whole-program map for a program-scope question (built, or kept from an earlier one). */
function programMap(src: RomSource, req: Question, opts: AnswerOptions): Promise<ProgramMap> {
  const report = opts.onProgress;
  return src.maps.map(src.store, src.rom, {
    processor: req.processor,
    evidence: req.evidence,
    maxCodeBytes: req.mapLimits.maxCodeBytes,
    maxSeconds: req.mapLimits.maxSeconds,
    signal: opts.signal,
    onProgress: report ? (codeBytes) => report({ phase: 'map', codeBytes }) : undefined,
  });
}

/** What a program-scope answer stands on: the map, the tier accepted down to, what it covered there. */
interface MapScope {
  map: ProgramMap;
  lowest: Tier;
  coverage: CoverageAnswer;
  components: ComponentAnswer[];
  /** The map's counts in a search's totals (it decodes no instructions and walks no edges to answer). */
  totals: Omit<SearchTotals, 'functions'>;
}

/** The whole-program map for a program-scope question (built, or kept from an earlier one). */
export async function mapScope(src: RomSource, req: Question, opts: AnswerOptions): Promise<MapScope> {
  const lowest = req.lowestTier ?? DEFAULT_LOWEST;
  const map = await programMap(src, req, opts);
  const coverage = mapCoverage(map, lowest);
  return {
    map,
    lowest,
    coverage,
    components: mapComponents(map),
    totals: {
      callSites: map.callCount,
      blocks: map.blockCount,
      instructions: 0,
      bytes: coverage.codeBytes,
      edges: 0,
    },
  };
}

/** What a search found and decoded (a program-scope answer says its map's counts in these words). */
export interface SearchTotals {
  functions: number;
  callSites: number;
  blocks: number;
  instructions: number;
  bytes: number;
  edges: number;
}

/** A bounded search of a question's scope: what it found, and what it covered. */
interface Search extends ScopeResult {
  /** The bytes the search decoded, per component; `stoppedEarly`: it did not finish. */
  coverage(stoppedEarly: boolean): CoverageAnswer;
}

/**
 * The bounded discovery of a question's scope (its seeds, overlays and evidence) within `budget`;
 * `onBlock` sees every decoded block, `stopWhenProven` ends it once that entry is proven.
 */
export async function boundedSearch(
  src: RomSource,
  req: Question,
  budget: SearchBudget,
  opts: AnswerOptions,
  hooks: Pick<NdsScopeRequest, 'onBlock' | 'stopWhenProven'> = {},
): Promise<Search> {
  const covered = new CoverageCollector();
  const report = opts.onProgress;
  const found = await discoverInRom(src.store, src.rom, {
    processor: req.processor,
    seeds: req.seeds ?? [],
    overlayIds: req.overlayIds,
    evidence: new Set(req.evidence as Evidence[]),
    limits: budget.limits,
    local: budget.local,
    signal: opts.signal,
    onProgress: report ? (analysed, queued) => report({ phase: 'search', analysed, queued }) : undefined,
    onBlock: (block, span) => {
      hooks.onBlock?.(block, span);
      covered.block(block, span);
    },
    stopWhenProven: hooks.stopWhenProven,
  });
  const { result, components } = found;
  return {
    ...found,
    coverage: (stoppedEarly) =>
      searchCoverage(
        covered.finish(src.rom.model, req.processor, components, result.callSites, stoppedEarly),
      ),
  };
}

/** What an answer covered and whether it is definitive, in bytes (both scopes). */
export type CoverageAnswer = Omit<MapCoverage, 'truncated'> & { scope: AnalysisScope };

/**
 * The map's coverage as answers say it, in the tools' field order (a result in its schema's order is
 * used without a copy: src/mcp/exact-output.ts). Made once per map and tier, frozen: answers share it.
 */
export function mapCoverage(map: ProgramMap, lowest: Tier): CoverageAnswer {
  return map.memo(`coverage-answer:${lowest}`, () => {
    const c = map.coverage(lowest);
    return Object.freeze({
      scope: 'program' as const,
      lowestTier: c.lowestTier,
      executableBytes: c.executableBytes,
      classifiedBytes: c.classifiedBytes,
      codeBytes: c.codeBytes,
      unclassifiedBytes: c.unclassifiedBytes,
      belowTierBytes: c.belowTierBytes,
      unavailableBytes: c.unavailableBytes,
      unresolved: c.unresolved,
      definitive: c.definitive,
      notDefinitive: c.notDefinitive,
    });
  });
}

function searchCoverage(c: SearchCoverage): CoverageAnswer {
  return { scope: 'bounded', lowestTier: 'proven', belowTierBytes: 0, unavailableBytes: 0, ...c };
}

/** Which items of a list a page holds. */
export interface Page {
  total: number;
  offset: number;
  nextOffset: number | null;
}

/** One component of an answer's scope and how it was covered. */
export interface ComponentAnswer {
  component: ComponentKind;
  overlayId: number | null;
  autoloadIndex?: number;
  coverage: Coverage;
}

/** Component coverage in the bounded vocabulary: a map scans every component it could read. */
function mapComponents(map: ProgramMap): ComponentAnswer[] {
  return [
    ...map.set.list.map((c) => ({
      component: c.kind,
      overlayId: c.overlayId,
      ...(c.autoloadIndex !== null ? { autoloadIndex: c.autoloadIndex } : {}),
      coverage: 'scanned' as const,
    })),
    ...map.set.unavailable.map((u) => ({
      component: u.kind,
      overlayId: u.overlayId,
      coverage: 'compressed-overlay-not-decodable' as const,
    })),
  ];
}

/** A function (or a place in one) as other questions take it back: the address, mode and overlay. */
export interface FunctionRef {
  component: ComponentKind;
  overlayId: number | null;
  address: number;
  mode: ArmMode;
}

/** A bounded search's function identity as a FunctionRef. */
export function searchRef(id: FunctionIdentity): FunctionRef {
  return {
    component: id.component as ComponentKind,
    overlayId: id.overlayId,
    address: id.address,
    mode: id.mode,
  };
}

/** A map function (or an entry of a map component) as a FunctionRef. */
export function mapRef(f: { component: MapComponent; address: number; mode: ArmMode }): FunctionRef {
  return { component: f.component.kind, overlayId: f.component.overlayId, address: f.address, mode: f.mode };
}

/** The evidence classes of a map function, each once, best tier first. */
export function evidenceClasses(evidence: readonly { class: string }[]): EvidenceId[] {
  return [...new Set(evidence.map((e) => e.class as EvidenceId))];
}

/** A call site proving (or failing to prove) a callee, in either scope. */
export interface CallSiteAnswer {
  at: number;
  kind: CallSiteKind;
  caller: FunctionRef;
  /** The caller is a coverage seed (bounded), not a proven function. */
  callerIsSeed?: true;
  target: number;
  targetMode: ArmMode;
  callee?: FunctionRef;
  unresolved?: string;
  condition?: string;
  via?: ConstantCallVia;
  definedAt?: number;
  slot?: number;
}

/** A map call's kind as the searches name it: through a constant register (or a stub), or direct. */
export function mapCallKind(kind: CallKind): CallSiteKind {
  return kind === 'register' || kind === 'stub' ? 'constant-register-call' : 'direct-call';
}

/** A bounded search's call site as an answer (the facts it has, each only when it has it). */
export function searchSite(s: CallSite): CallSiteAnswer {
  return {
    at: s.at,
    kind: s.kind,
    caller: searchRef(s.caller),
    ...(s.callerIsSeed ? { callerIsSeed: true as const } : {}),
    target: s.target,
    targetMode: s.targetMode,
    ...(s.callee ? { callee: searchRef(s.callee) } : {}),
    ...(s.unresolved ? { unresolved: s.unresolved } : {}),
    ...(s.condition ? { condition: s.condition } : {}),
    ...(s.via ? { via: s.via } : {}),
    ...(s.definedAt !== undefined ? { definedAt: s.definedAt } : {}),
    ...(s.slot !== undefined ? { slot: s.slot } : {}),
  };
}
