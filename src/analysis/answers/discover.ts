// Which functions a processor has, with their callers and callees. Bounded: the proven call graph
// from the program entry (direct calls, and constant-register calls when asked), coverage seeds
// scanned but never proof. Program: every function of the whole-program map at the accepted tiers,
// each with its evidence and tier. Either way one page of functions.
import { ReMcpError } from '../../core/errors.js';
import { type BoundedStatus, paginate } from '../../core/vocabulary.js';
import type { EvidenceId } from '../evidence/index.js';
import {
  type CallSite,
  type CallSiteKind,
  type DiscoveryTruncation,
  identityKey,
} from '../functions/discover.js';
import type { ScopeStatus } from '../functions/nds-bounded.js';
import type { ProgramMap } from '../program-map/map.js';
import { TIERS, type Tier } from '../program-map/types.js';
import {
  type AnswerOptions,
  boundedSearch,
  type CallSiteAnswer,
  type ComponentAnswer,
  type CoverageAnswer,
  evidenceClasses,
  type FunctionRef,
  mapCallKind,
  mapRef,
  mapScope,
  type Page,
  type Question,
  type RomSource,
  type SearchBudget,
  type SearchTotals,
  scoped,
  searchRef,
  searchSite,
} from './question.js';

/** Callers and callees listed per function in program scope; the rest are counted. */
const MAP_CALLS_SHOWN = 16;

/** bounded: `limits` and `local` are the discovery's budget. */
/** How a page of functions is ordered: by address, largest first, or most called first. */
export const FUNCTION_ORDERS = ['address', 'size', 'callers'] as const;
type FunctionOrder = (typeof FUNCTION_ORDERS)[number];

interface DiscoverRequest extends Question, SearchBudget {
  /** full: each function's callers and callees (and, bounded, every call site). */
  detail: 'summary' | 'full';
  offset: number;
  limit: number;
  /** The order of the list (size: program scope only, where a function's size is known). */
  order?: FunctionOrder | undefined;
  /** Only functions whose name (nameOf at their entry, no offset) holds this text, any case. */
  name?: string | undefined;
  nameOf?: ((address: number, overlayId: number | null) => string | null) | undefined;
}

/** The functions `name` keeps (each entry's own name holding it, any case); all without a name. */
function named<T>(
  req: DiscoverRequest,
  list: readonly T[],
  at: (f: T) => { address: number; overlayId: number | null },
): T[] {
  const text = req.name?.toLowerCase();
  if (text === undefined) return [...list];
  return list.filter((f) => {
    const { address, overlayId } = at(f);
    const name = req.nameOf?.(address, overlayId) ?? null;
    return name !== null && !/\+0x[0-9a-f]+$/.test(name) && name.toLowerCase().includes(text);
  });
}

export interface CalleeAnswer {
  at: number;
  kind: CallSiteKind;
  target: number;
  callee?: FunctionRef;
  unresolved?: string;
}

interface DiscoveredAnswer {
  ref: FunctionRef;
  evidence: EvidenceId[];
  tier: Tier;
  /** bounded: whether its CFG was built (a limit can stop it first), and how that ended. */
  analysed: boolean;
  cfgStatus: BoundedStatus | null;
  blocks: number;
  /** program: the code bytes of its body and where its code ends; null in bounded scope. */
  bytes: number | null;
  end: number | null;
  /** detail full: the call sites naming it (program: the first MAP_CALLS_SHOWN). */
  callers: number[] | null;
  callerCount: number;
  /** detail full: the calls it makes (program: the first MAP_CALLS_SHOWN). */
  callees: CalleeAnswer[] | null;
  calleeCount: number;
}

export interface DiscoverAnswer {
  scope: 'bounded' | 'program';
  /** The evidence classes asked for. */
  evidence: EvidenceId[];
  lowestTier: Tier;
  status: ScopeStatus;
  truncation: DiscoveryTruncation[];
  components: ComponentAnswer[];
  coverage: CoverageAnswer;
  totals: SearchTotals;
  byTier: Record<Tier, number>;
  /** Functions (accepted ones, program) having each evidence class. */
  byEvidence: Partial<Record<EvidenceId, number>>;
  page: Page;
  functions: DiscoveredAnswer[];
  /** bounded, detail full: every call site. */
  callSites: CallSiteAnswer[] | null;
  /** bounded: the coverage seeds and how their CFGs ended. */
  seeds: { ref: FunctionRef; cfgStatus: BoundedStatus | null }[];
}

/** The functions of one processor, from the analysis the scope names. */
export const discoverFunctions = scoped(programFunctions, boundedFunctions);

function countEvidence(fns: readonly { evidence: readonly EvidenceId[] }[]) {
  const out: Partial<Record<EvidenceId, number>> = {};
  for (const f of fns) for (const e of f.evidence) out[e] = (out[e] ?? 0) + 1;
  return out;
}

/** The functions a program-scope page is cut from (tier, name filter, order), with their counts. */
function acceptedList(map: ProgramMap, req: DiscoverRequest, lowest: Tier) {
  const accepted = named(
    req,
    map.functions.filter((f) => TIERS.indexOf(f.tier) <= TIERS.indexOf(lowest)),
    (f) => ({ address: f.address, overlayId: f.component.overlayId }),
  );
  if (req.order === 'size') accepted.sort((a, b) => b.bytes - a.bytes || a.address - b.address);
  if (req.order === 'callers') accepted.sort((a, b) => b.callers - a.callers || a.address - b.address);
  const byTier = { proven: 0, referenced: 0, heuristic: 0 };
  for (const f of accepted) byTier[f.tier]++;
  const byEvidence = countEvidence(accepted.map((f) => ({ evidence: evidenceClasses(f.evidence) })));
  return { accepted, byTier, byEvidence };
}

async function programFunctions(
  src: RomSource,
  req: DiscoverRequest,
  opts: AnswerOptions,
): Promise<DiscoverAnswer> {
  const full = req.detail === 'full';
  const { map, lowest, coverage, components, totals } = await mapScope(src, req, opts);
  // Without a name filter the list and its counts depend on the map, the tier and the order alone:
  // made once per map (a warm page then costs its own functions only).
  const { accepted, byTier, byEvidence } =
    req.name === undefined
      ? map.memo(`discover:${lowest}:${req.order ?? 'address'}`, () => acceptedList(map, req, lowest))
      : acceptedList(map, req, lowest);
  const page = paginate(accepted, req.offset, req.limit);
  const made = map.callsMadeBy(page.items);
  const functions = page.items.map((f, i) => {
    const sites = map.callSitesOf(f);
    const calls = made[i]!.filter((c) => c.target !== null && c.kind !== 'helper');
    const callees = !full
      ? null
      : calls.slice(0, MAP_CALLS_SHOWN).map((c) => {
          const callee =
            c.targetComp !== null && c.targetMode !== null
              ? map.functionEntered(c.targetComp, c.targetMode, c.target!)
              : null;
          const out: CalleeAnswer = { at: c.at, kind: mapCallKind(c.kind), target: c.target! };
          if (callee) out.callee = mapRef(callee);
          if (c.unresolved) out.unresolved = c.unresolved;
          return out;
        });
    return {
      ref: mapRef(f),
      evidence: evidenceClasses(f.evidence),
      tier: f.tier,
      analysed: true,
      cfgStatus: null,
      blocks: f.blocks,
      bytes: f.bytes,
      end: f.end,
      callers: full ? sites.slice(0, MAP_CALLS_SHOWN).map((c) => c.at) : null,
      callerCount: sites.length,
      callees,
      calleeCount: calls.length,
    };
  });
  return {
    scope: 'program',
    evidence: [...req.evidence],
    lowestTier: lowest,
    status: map.status,
    truncation: [],
    components,
    coverage,
    totals: { functions: accepted.length, ...totals },
    byTier: { ...byTier },
    byEvidence: { ...byEvidence },
    page: pageOf(page),
    functions,
    callSites: null,
    seeds: [],
  };
}

async function boundedFunctions(
  src: RomSource,
  req: DiscoverRequest,
  opts: AnswerOptions,
): Promise<DiscoverAnswer> {
  const full = req.detail === 'full';
  const { result, components, status, coverage: covered } = await boundedSearch(src, req, req, opts);
  const coverage = covered(status === 'truncated');
  // One pass over the call sites (in their order) gives every function's callers and callees.
  const callersOf = new Map<string, CallSite[]>();
  const calleesOf = new Map<string, CallSite[]>();
  const push = (map: Map<string, CallSite[]>, key: string, s: CallSite) => {
    const list = map.get(key);
    if (list) list.push(s);
    else map.set(key, [s]);
  };
  for (const s of result.callSites) {
    if (s.callee) push(callersOf, identityKey(s.callee), s);
    if (!s.callerIsSeed) push(calleesOf, identityKey(s.caller), s);
  }
  if (req.order === 'size')
    throw new ReMcpError(
      'invalid-argument',
      'bounded scope knows no function sizes: order by size in program scope',
    );
  const listed = named(req, result.functions, (f) => ({
    address: f.identity.address,
    overlayId: f.identity.overlayId ?? null,
  }));
  if (req.order === 'callers')
    listed.sort(
      (a, b) =>
        (callersOf.get(identityKey(b.identity))?.length ?? 0) -
          (callersOf.get(identityKey(a.identity))?.length ?? 0) || a.identity.address - b.identity.address,
    );
  const page = paginate(listed, req.offset, req.limit);
  const functions = page.items.map((f) => {
    const key = identityKey(f.identity);
    const callers = (callersOf.get(key) ?? []).map((s) => s.at);
    const callees = (calleesOf.get(key) ?? []).map((s) => {
      const out: CalleeAnswer = { at: s.at, kind: s.kind, target: s.target };
      if (s.callee) out.callee = searchRef(s.callee);
      if (s.unresolved) out.unresolved = s.unresolved;
      return out;
    });
    return {
      ref: searchRef(f.identity),
      evidence: f.evidence,
      tier: 'proven' as const,
      analysed: f.cfg !== null,
      cfgStatus: f.cfg?.status ?? null,
      blocks: f.cfg?.blocks.length ?? 0,
      bytes: null,
      end: null,
      callers: full ? callers : null,
      callerCount: callers.length,
      callees: full ? callees : null,
      calleeCount: callees.length,
    };
  });
  return {
    scope: 'bounded',
    evidence: [...req.evidence],
    lowestTier: 'proven',
    status,
    truncation: result.truncation,
    components,
    coverage,
    totals: {
      functions: result.functions.length,
      callSites: result.callSites.length,
      ...result.totals,
    },
    byTier: { proven: result.functions.length, referenced: 0, heuristic: 0 },
    byEvidence: countEvidence(result.functions),
    page: pageOf(page),
    functions,
    callSites: full ? result.callSites.map(searchSite) : null,
    seeds: result.seeds.map((s) => ({ ref: searchRef(s.identity), cfgStatus: s.cfg?.status ?? null })),
  };
}

const pageOf = (p: Page): Page => ({ total: p.total, offset: p.offset, nextOffset: p.nextOffset });
