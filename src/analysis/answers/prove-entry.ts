// Whether one exact entry (processor, component, overlay, address, mode) is a function entry, by what
// evidence, and its CFG when it is. Bounded: a focused proof search from the program entry that stops
// once the entry is proven; its negative is definitive only when the search completed and left
// nothing unanalysed. Program: the entry as the whole-program map knows it (its evidence and tier, the
// calls naming it); not an entry only when the map is definitive at the proven tier.
import {
  analyzeControlFlow,
  type CfgLimits,
  type CfgResult,
  type CodeSpan,
  type SpanLookup,
} from '../../arm/cfg.js';
import type { ArmMode } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import { formatAddress } from '../../core/vocabulary.js';
import { resolveStart, spanLookup } from '../code-source.js';
import type { EvidenceId } from '../evidence/index.js';
import {
  type CfgLimitsOf,
  type DiscoveryTruncation,
  identityIn,
  identityKey,
} from '../functions/discover.js';
import { SCOPE_STATUSES } from '../functions/nds-bounded.js';
import type { ComponentSet } from '../program-map/components.js';
import { TIER_RANK, type Tier } from '../program-map/types.js';
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
  type Question,
  type RomSource,
  type SearchTotals,
  scoped,
  searchRef,
  searchSite,
} from './question.js';

/** A proven entry; a definitive negative; or neither. */
export const PROOF_STATUSES = ['proven', 'not-proven-function-entry', 'proof-inconclusive'] as const;
type ProofStatus = (typeof PROOF_STATUSES)[number];

/** How the proof search ended: a discovery's statuses, or stopped once the entry was proven. */
export const PROOF_SEARCH_STATUSES = [...SCOPE_STATUSES, 'stopped-when-proven'] as const;
type ProofSearchStatus = (typeof PROOF_SEARCH_STATUSES)[number];

interface ProveEntryRequest extends Question {
  address: number;
  mode: ArmMode;
  /** The overlay holding the entry. */
  overlayId?: number | undefined;
  /** bounded: the search's budget (functions are bounded by blocks) and each function's CFG budget. */
  limits: {
    components: number;
    blocks: number;
    instructions: number;
    bytes: number;
    edges: number;
    proofSites: number;
  };
  local: CfgLimitsOf;
  /** The entry's CFG budget, when it is proven (bounded) or accepted (program). */
  cfg: CfgLimits;
}

export interface ProveEntryAnswer {
  scope: 'bounded' | 'program';
  ref: FunctionRef;
  proof: {
    status: ProofStatus;
    evidence: EvidenceId[];
    /** program: the best tier of its evidence; null when none. */
    tier: Tier | null;
    sites: CallSiteAnswer[];
  };
  /** program: the entry's own evidence classes (a second entry's differ from its function's). */
  entryEvidence: EvidenceId[];
  /** program: the function this entry is a second way into, when it is one. */
  secondaryOf: number | null;
  search: {
    status: ProofSearchStatus;
    truncation: DiscoveryTruncation[];
    components: ComponentAnswer[];
    totals: SearchTotals;
  };
  coverage: CoverageAnswer;
  cfg: CfgResult | null;
}

/** The proof of one entry, from the analysis the scope names. */
export const proveEntry = scoped(programProof, boundedProof);

async function boundedProof(
  src: RomSource,
  req: ProveEntryRequest,
  opts: AnswerOptions,
): Promise<ProveEntryAnswer> {
  const p = req.processor;
  const start = await resolveStart(
    src.store,
    src.rom,
    { processor: p, address: req.address, overlayId: req.overlayId, mode: req.mode, autoloads: p === 'arm9' },
    opts.signal,
  );
  if (start.derived) {
    throw new ReMcpError(
      'not-code',
      `${formatAddress(req.address)} is in decoded (compressed) code; a function proof needs file-backed uncompressed code`,
      { processor: p, address: req.address },
    );
  }
  const identity = identityIn(start.span, start.address, start.mode);
  const key = identityKey(identity);
  const { limits } = req;
  const {
    result,
    components,
    status,
    coverage: covered,
  } = await boundedSearch(
    src,
    req,
    {
      // Functions are bounded by blocks (one block per function), call sites by the proof sites.
      limits: { ...limits, functions: limits.blocks, callSites: limits.proofSites },
      local: req.local,
    },
    opts,
    { stopWhenProven: identity },
  );
  const found = result.functions.find((f) => identityKey(f.identity) === key);
  const sites = result.callSites.filter((s) => s.callee && identityKey(s.callee) === key);
  const coverage = covered(status === 'truncated' || result.stoppedWhenProven);
  // A negative is definitive only when the search completed and left nothing unanalysed.
  const proofStatus: ProofStatus = found
    ? 'proven'
    : status === 'complete' && coverage.definitive
      ? 'not-proven-function-entry'
      : 'proof-inconclusive';
  const cfg = found
    ? await analyzeControlFlow({
        processor: p,
        span: start.span,
        address: start.address,
        mode: start.mode,
        limits: req.cfg,
        lookup: spanLookup(src.store, src.rom, p, opts.signal, { autoloads: p === 'arm9' }),
        signal: opts.signal,
      })
    : null;
  return {
    scope: 'bounded',
    ref: searchRef(identity),
    proof: {
      status: proofStatus,
      evidence: found?.evidence ?? [],
      tier: found ? 'proven' : null,
      sites: sites.map(searchSite),
    },
    entryEvidence: found?.evidence ?? [],
    secondaryOf: null,
    search: {
      // A search that stopped at the proof did not finish: never call it complete.
      status: result.stoppedWhenProven ? 'stopped-when-proven' : status,
      truncation: result.truncation,
      components,
      totals: {
        functions: result.functions.length,
        callSites: result.callSites.length,
        ...result.totals,
      },
    },
    coverage,
    cfg,
  };
}

/** Cross-component lookup over the map's components (copied code included). */
function mapLookup(set: ComponentSet): SpanLookup {
  return async (address, _mode, from: CodeSpan) => {
    const home = set.list.find((c) => c.span.bytes === from.bytes && c.start === from.start);
    const found = set.lookup(address, home);
    return 'component' in found ? { span: found.component.span } : { unresolved: found.unresolved };
  };
}

/** The proof of one entry from the whole-program map: its evidence and tier, its call sites, its CFG. */
async function programProof(
  src: RomSource,
  req: ProveEntryRequest,
  opts: AnswerOptions,
): Promise<ProveEntryAnswer> {
  const { map, lowest, coverage, components, totals } = await mapScope(src, req, opts);
  const p = req.processor;
  const holders = map.set
    .holding(req.address)
    .filter((c) => req.overlayId === undefined || c.overlayId === req.overlayId);
  if (holders.length === 0)
    throw new ReMcpError('not-code', `${p} ${formatAddress(req.address)} is in no component of the map`, {
      processor: p,
      address: req.address,
    });
  if (holders.length > 1)
    throw new ReMcpError(
      'ambiguous-code-source',
      `${p} ${formatAddress(req.address)} lies in ${holders.length} components; pass overlayId`,
      { processor: p, address: req.address },
    );
  const comp = holders[0]!;
  if (req.address % (req.mode === 'arm' ? 4 : 2) !== 0)
    throw new ReMcpError(
      'invalid-argument',
      `${req.mode} code starts ${req.mode === 'arm' ? 4 : 2}-byte aligned; ${formatAddress(req.address)} is not`,
    );
  const entry = map.entryAt(comp, req.mode, req.address);
  // A refused candidate is no entry, though its evidence is said.
  const live = entry && !entry.refused ? entry : null;
  const fn = live ? map.functionOf(live.key) : null;
  const accepted = live !== null && TIER_RANK[live.tier] <= TIER_RANK[lowest];
  const status: ProofStatus =
    live?.tier === 'proven'
      ? 'proven'
      : !entry && map.coverage('proven').definitive
        ? 'not-proven-function-entry'
        : 'proof-inconclusive';
  const ref = mapRef({ component: comp, address: req.address, mode: req.mode });
  const sites: CallSiteAnswer[] = fn
    ? map.callSitesOf(fn).map((c) => {
        const caller = map
          .holders(c.at, 'heuristic')
          .find((h) => h.component.index === c.comp)
          ?.functions.find((f) => f.via === 'body')?.fn;
        return {
          at: c.at,
          kind: mapCallKind(c.kind),
          caller: caller ? mapRef(caller) : ref,
          target: c.target!,
          targetMode: c.targetMode!,
          callee: ref,
          ...(c.conditional ? { condition: 'conditional' } : {}),
          ...(c.definedAt !== null ? { definedAt: c.definedAt } : {}),
          ...(c.slot !== null ? { slot: c.slot } : {}),
        };
      })
    : [];
  const cfg = accepted
    ? await analyzeControlFlow({
        processor: p,
        span: comp.span,
        address: req.address,
        mode: req.mode,
        limits: req.cfg,
        lookup: mapLookup(map.set),
        signal: opts.signal,
      })
    : null;
  const entryEvidence = entry ? evidenceClasses(entry.evidence) : [];
  return {
    scope: 'program',
    ref,
    proof: {
      status,
      evidence: fn ? evidenceClasses(fn.evidence) : entryEvidence,
      tier: live ? live.tier : null,
      sites,
    },
    entryEvidence,
    secondaryOf: fn && live && fn.key !== live.key ? fn.address : null,
    search: {
      status: map.status,
      truncation: [],
      components,
      totals: { functions: map.functions.length, ...totals },
    },
    coverage,
    cfg,
  };
}
