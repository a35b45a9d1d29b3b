// Which functions own code at many addresses of one program, and which call precedes a return
// address: what a stopped CPU's correlation asks of the static analysis (its PC, its LR, each stack
// word). One analysis answers every lookup: the standard bounded discovery (nds_discover_functions'
// defaults, the bounded evidence), or the whole-program map at tiers down to the lowest accepted.
import type { ArmMode } from '../../arm/types.js';
import type { AnalysisScope } from '../evidence/index.js';
import {
  type DiscoveryResult,
  type DiscoveryTruncation,
  type FunctionIdentity,
  identityKey,
  STANDARD_DISCOVERY,
  STANDARD_FUNCTION_CFG,
} from '../functions/discover.js';
import type { ScopeStatus } from '../functions/nds-bounded.js';
import type { MapComponent } from '../program-map/components.js';
import type { MapBlock, MapFunction } from '../program-map/map.js';
import type { MapTruncation, Tier } from '../program-map/types.js';
import {
  type AnswerOptions,
  boundedSearch,
  mapScope,
  type Question,
  type RomSource,
  scoped,
} from './question.js';

/** A function owning an address, with the block of its code holding it. */
export interface CandidateFunction {
  identity: FunctionIdentity;
  evidence: string[];
  block: { address: number; end: number; mode: ArmMode };
  /** How strongly the function is known (the bounded search proves only). */
  tier: Tier;
}

/** One static component an address may lie in (copied: a block the start-up code copies there). */
interface OwnerComponent {
  component: string;
  overlayId: number | null;
  autoloadIndex: number | null;
  copiedIndex: number | null;
}

/** Where the functions owning an address come from: the bounded discovery, or the whole-program map. */
export interface FunctionSource {
  /** The functions of one static component whose analysed code holds the address. */
  enclosing(component: OwnerComponent, address: number): CandidateFunction[];
  /** Whether finding none there is a definitive negative (nothing left unanalysed). */
  negativeIsDefinitive: boolean;
}

/**
 * Why a word is taken for a return address: what static evidence ties it to code. `after-call-site`
 * / `inside-function` are the map's weaker tiers (the function says which).
 */
export const RETURN_EVIDENCE = [
  'after-proven-call-site',
  'inside-proven-function',
  'after-call-site',
  'inside-function',
] as const;
type ReturnEvidence = (typeof RETURN_EVIDENCE)[number];

export interface BacktraceMatch {
  function: CandidateFunction;
  evidence: ReturnEvidence;
  /** The call instruction just before the return address (after-call-site evidence only). */
  callSite: number | null;
}

export interface CodeOwners {
  functions: FunctionSource;
  /** What ties a possible return address (in `mode`) to code; none: the word is no return address. */
  returns(address: number, mode: ArmMode): BacktraceMatch[];
  discovery: { status: ScopeStatus; truncation: (DiscoveryTruncation | MapTruncation)[]; functions: number };
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
}

/** The analysis the scope names, as owners of code and return addresses. */
export const codeOwners = scoped(programOwners, boundedOwners);

/** The standard bounded discovery (nds_discover_functions' defaults, the bounded evidence). */
async function boundedOwners(src: RomSource, req: Question, opts: AnswerOptions): Promise<CodeOwners> {
  const { result, status, coverage } = await boundedSearch(
    src,
    req,
    { limits: { ...STANDARD_DISCOVERY }, local: { ...STANDARD_FUNCTION_CFG } },
    opts,
  );
  const c = coverage(status === 'truncated');
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

/** The whole-program map (built, or kept from an earlier call), at tiers down to the lowest accepted. */
async function programOwners(src: RomSource, req: Question, opts: AnswerOptions): Promise<CodeOwners> {
  const { map, lowest, coverage: cov } = await mapScope(src, req, opts);
  const componentOf = (k: OwnerComponent) =>
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
      // A call ending right before the address: ARM BL/BLX and the Thumb BL pair are 4 bytes, Thumb
      // BLX Rm 2.
      const ats = mode === 'thumb' ? [address - 4, address - 2] : [address - 4];
      for (const c of map.callsAt(ats, mode, lowest)) {
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
      status: map.status === 'complete' ? 'complete' : 'truncated',
      truncation: map.truncation,
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

/** A bounded discovery as the source of the functions owning an address. */
export function discoveryFunctions(
  discovery: DiscoveryResult,
  negativeIsDefinitive: boolean,
): FunctionSource {
  return {
    enclosing: (k, address) =>
      k.component === 'dsi-main' || k.component === 'copied'
        ? []
        : enclosing(discovery, k.component, k.overlayId, address, k.autoloadIndex),
    negativeIsDefinitive,
  };
}

/** Proven functions of one component whose analysed CFG has a block holding the address. */
function enclosing(
  discovery: DiscoveryResult,
  component: string,
  overlayId: number | null,
  address: number,
  autoloadIndex: number | null = null,
): CandidateFunction[] {
  const out: CandidateFunction[] = [];
  for (const f of discovery.functions) {
    const block = f.cfg?.blocks.find(
      (b) =>
        address >= b.address &&
        address < b.end &&
        b.component === component &&
        b.overlayId === overlayId &&
        (b.autoloadIndex ?? null) === autoloadIndex,
    );
    if (block)
      out.push({
        identity: f.identity,
        evidence: f.evidence,
        block: { address: block.address, end: block.end, mode: block.mode },
        tier: 'proven',
      });
  }
  return out;
}

/**
 * What ties a possible return address to proven code. A call site of a proven function ending right
 * before it (ARM BL/BLX: 4 bytes; Thumb BL pair: 4, Thumb BLX Rm: 2) is the strong evidence; else a
 * proven function's CFG block holding it in the same mode; else nothing (the word is not shown).
 */
function returnEvidence(discovery: DiscoveryResult, address: number, mode: ArmMode): BacktraceMatch[] {
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
