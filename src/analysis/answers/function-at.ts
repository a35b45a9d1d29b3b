// Which function holds an address. Bounded: the proven functions whose analysed CFG has a block
// holding it, from one discovery. Program: every function of the whole-program map whose body holds
// it, or whose code reads it (a literal pool, a jump table), with what each component has there.
// When none: a definitive negative only if the analysis left nothing unanalysed, else a coverage gap.
import type { ArmMode } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import type { EvidenceId } from '../evidence/index.js';
import type { FunctionLookup } from '../functions/coverage.js';
import { type DiscoveryTruncation, identityKey } from '../functions/discover.js';
import type { ScopeStatus } from '../functions/nds-bounded.js';
import type { ByteClassName, ComponentKind, HOLDER_VIAS, Tier } from '../program-map/types.js';
import {
  type AnswerOptions,
  boundedSearch,
  type ComponentAnswer,
  type CoverageAnswer,
  evidenceClasses,
  type FunctionRef,
  mapRef,
  mapScope,
  type Question,
  type RomSource,
  type SearchBudget,
  scoped,
  searchRef,
} from './question.js';

/** Callers listed per match in program scope; the rest are counted. */
const MAP_CALLERS_SHOWN = 16;

/** bounded: `limits` and `local` are the discovery's budget. */
interface FunctionAtRequest extends Question, SearchBudget {
  address: number;
  /** Only this overlay's code matches. */
  overlayId?: number | undefined;
}

interface FunctionMatch {
  ref: FunctionRef;
  evidence: EvidenceId[];
  tier: Tier;
  /** The call sites naming it (program: the first MAP_CALLERS_SHOWN). */
  callers: number[];
  callerCount: number;
  /** program: its body's code bytes, where its code ends, its blocks, the functions its calls name. */
  shape: { bytes: number; end: number; blocks: number; callees: number } | null;
  /** body: the address is its code; literal / jump-table: data its code reads. */
  via: (typeof HOLDER_VIAS)[number];
  block: { address: number; end: number; mode: ArmMode } | null;
}

export interface FunctionAtAnswer {
  scope: 'bounded' | 'program';
  address: number;
  reason: FunctionLookup;
  matches: FunctionMatch[];
  /** program: what each component holding the address has there. */
  bytes: {
    component: ComponentKind;
    overlayId: number | null;
    autoloadIndex?: number;
    byteClass: ByteClassName;
    tier: Tier | null;
  }[];
  discovery: {
    status: ScopeStatus;
    truncation: DiscoveryTruncation[];
    components: ComponentAnswer[];
    functions: number;
  };
  coverage: CoverageAnswer;
}

/** The function(s) holding one address, from the analysis the scope names. */
export const functionAt = scoped(programFunctionAt, boundedFunctionAt);

async function programFunctionAt(
  src: RomSource,
  req: FunctionAtRequest,
  opts: AnswerOptions,
): Promise<FunctionAtAnswer> {
  const p = req.processor;
  const only = req.overlayId;
  if (only !== undefined && !src.rom.model.overlays[p].some((o) => o.id === only))
    throw new ReMcpError('not-found', `${p} has no overlay ${only}`, { overlayId: only });
  const { map, lowest, coverage, components } = await mapScope(src, req, opts);
  const holders = map
    .holders(req.address, lowest)
    .filter((h) => only === undefined || h.component.overlayId === only);
  const matches = holders.flatMap((h) =>
    h.functions.map((f) => {
      const sites = map.callSitesOf(f.fn);
      return {
        ref: mapRef(f.fn),
        evidence: evidenceClasses(f.fn.evidence),
        tier: f.fn.tier,
        callers: sites.slice(0, MAP_CALLERS_SHOWN).map((c) => c.at),
        callerCount: sites.length,
        shape: { bytes: f.fn.bytes, end: f.fn.end, blocks: f.fn.blocks, callees: f.fn.callees },
        via: f.via,
        block: f.block ? { address: f.block.start, end: f.block.end, mode: f.block.mode } : null,
      };
    }),
  );
  return {
    scope: 'program',
    address: req.address,
    reason: matches.length > 0 ? 'found' : coverage.definitive ? 'complete-negative' : 'coverage-gap',
    matches,
    bytes: holders.map((h) => ({
      component: h.component.kind,
      overlayId: h.component.overlayId,
      ...(h.component.autoloadIndex !== null ? { autoloadIndex: h.component.autoloadIndex } : {}),
      byteClass: h.byteClass,
      tier: h.tier,
    })),
    discovery: {
      status: map.status,
      truncation: [],
      components,
      functions: map.functions.length,
    },
    coverage,
  };
}

async function boundedFunctionAt(
  src: RomSource,
  req: FunctionAtRequest,
  opts: AnswerOptions,
): Promise<FunctionAtAnswer> {
  const { result, components, status, coverage: covered } = await boundedSearch(src, req, req, opts);
  const coverage = covered(status === 'truncated');
  const matches: FunctionMatch[] = [];
  for (const f of result.functions) {
    const block = f.cfg?.blocks.find(
      (b) =>
        req.address >= b.address &&
        req.address < b.end &&
        (req.overlayId === undefined || b.overlayId === req.overlayId),
    );
    if (!block) continue;
    const key = identityKey(f.identity);
    const callers = result.callSites
      .filter((s) => s.callee && identityKey(s.callee) === key)
      .map((s) => s.at);
    matches.push({
      ref: searchRef(f.identity),
      evidence: f.evidence,
      tier: 'proven',
      callers,
      callerCount: callers.length,
      shape: null,
      via: 'body',
      block: { address: block.address, end: block.end, mode: block.mode },
    });
  }
  return {
    scope: 'bounded',
    address: req.address,
    reason:
      matches.length > 0
        ? 'found'
        : status === 'complete' && coverage.definitive
          ? 'complete-negative'
          : 'coverage-gap',
    matches,
    bytes: [],
    discovery: { status, truncation: result.truncation, components, functions: result.functions.length },
    coverage,
  };
}
