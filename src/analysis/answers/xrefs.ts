// Who references an address. Bounded: every deterministic reference in the proven-reachable code of
// the selected static scope (from the program entry and coverage seeds; proven calls expand it),
// references by value included (literal words, constant-register calls), up to a result limit.
// Program: every reference the whole-program map holds at the accepted tiers (instructions, table
// entries and data words), paged.
import type { ArmMode } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import { formatAddress, type Processor, paginate } from '../../core/vocabulary.js';
import { resolveRomOffset, resolveRuntimeAddress } from '../../formats/nds/index.js';
import type { RomHandle } from '../../roms/rom-store.js';
import type { ConstantCallVia } from '../functions/constant-register.js';
import type { CfgLimitsOf, DiscoveryTruncation } from '../functions/discover.js';
import type { ScopeStatus } from '../functions/nds-bounded.js';
import type { MapRefKind } from '../program-map/map.js';
import type { ComponentKind, Tier } from '../program-map/types.js';
import {
  type CopyEvidence,
  type RunMapping,
  runOfStored,
  type StartupCopies,
  storedOfRun,
} from '../run-address.js';
import { XrefCollector } from '../xrefs/match.js';
import {
  type AnswerOptions,
  boundedSearch,
  type ComponentAnswer,
  type CoverageAnswer,
  mapScope,
  type Page,
  type Question,
  type RomSource,
  type SearchTotals,
} from './question.js';

/** A discovery's truncations, and the xref search's own: its result limit. */
export const XREF_TRUNCATIONS = ['xref-limit'] as const;
type XrefTruncation = DiscoveryTruncation | (typeof XREF_TRUNCATIONS)[number];

interface XrefsRequest extends Question {
  /** The target: a runtime address, or a ROM offset that maps to exactly one. */
  target: { address: number } | { romOffset: number };
  /** bounded: the most xrefs collected; program: the most listed, from `offset`. */
  maxXrefs: number;
  offset: number;
  /** bounded: the search's budget (functions are bounded by blocks, call sites by instructions). */
  limits: { components: number; blocks: number; instructions: number; bytes: number; edges: number };
  /** bounded: each function's CFG budget. */
  local: CfgLimitsOf;
}

interface XrefAnswer {
  from: number;
  kind: MapRefKind;
  component: ComponentKind;
  overlayId: number | null;
  mode: ArmMode | 'data';
  tier: Tier;
  targetMode?: ArmMode;
  slot?: number;
  value?: number;
  via?: ConstantCallVia;
  condition?: string;
  /** A data reference: the first word of its table, and the instructions loading that table. */
  table?: number;
  loadedBy?: number[];
}

/**
 * Who owns the target. Statically: resolved, ambiguous, bss, compressed-overlay or unmapped (the
 * address map); `copied` where a start-up copy runs (ITCM code, a program copied below where it is
 * loaded): the copy owns the address once start-up is over, whatever holds it statically.
 */
interface XrefTarget {
  address: number;
  romOffset: number | null;
  ownership: string;
  /** copied: where the ROM stores the bytes that run at the address, and the copy (evidence). */
  storedAt?: number;
  copy?: CopyEvidence;
  /** The target is where copied bytes are stored: where they run once copied (ask there for code). */
  runsAt?: number;
  runsAtCopy?: CopyEvidence;
}

export interface XrefsAnswer {
  scope: 'bounded' | 'program';
  target: XrefTarget;
  /** program: the lowest tier accepted. */
  lowestTier: Tier;
  status: ScopeStatus;
  definitive: boolean;
  truncation: XrefTruncation[];
  components: ComponentAnswer[];
  coverage: CoverageAnswer;
  /** program: which xrefs this page lists. */
  page: Page | null;
  totals: Omit<SearchTotals, 'callSites'> & { xrefs: number };
  xrefs: XrefAnswer[];
}

/** The one runtime address a ROM offset denotes for `processor`, or a refusal. */
function runtimeOfRomOffset(rom: RomHandle, processor: Processor, offset: number): number {
  const owners = resolveRomOffset(rom.model, offset).filter(
    (o) =>
      'processor' in o &&
      o.processor === processor &&
      o.runtimeAddress !== undefined &&
      o.runtimeAddress !== null,
  );
  const addresses = [...new Set(owners.map((o) => o.runtimeAddress as number))];
  if (addresses.length === 0) {
    throw new ReMcpError(
      'not-code',
      `ROM offset ${formatAddress(offset)} maps to no ${processor} runtime address (structural, NitroFS-only or compressed bytes are not xref targets)`,
      { romOffset: offset },
    );
  }
  if (addresses.length > 1) {
    throw new ReMcpError(
      'ambiguous-code-source',
      `ROM offset ${formatAddress(offset)} maps to ${addresses.length} ${processor} runtime addresses`,
      { romOffset: offset },
    );
  }
  return addresses[0]!;
}

/** Every reference to one address, from the analysis the scope names. */
export async function findXrefs(
  src: RomSource,
  req: XrefsRequest,
  opts: AnswerOptions = {},
): Promise<XrefsAnswer> {
  const address =
    'address' in req.target
      ? req.target.address
      : runtimeOfRomOffset(src.rom, req.processor, req.target.romOffset);
  const target = await targetOf(
    src,
    req.processor,
    address,
    'romOffset' in req.target ? req.target.romOffset : null,
    opts,
  );
  return req.scope === 'program'
    ? programXrefs(src, req, target, opts)
    : boundedXrefs(src, req, target, opts);
}

/**
 * The target's ownership: static (the address map), unless a start-up copy runs there over nothing
 * or over the main program (then the copy owns it); and where the target is only the stored side of
 * a copy, where those bytes run.
 */
async function targetOf(
  src: RomSource,
  processor: Processor,
  address: number,
  romOffset: number | null,
  opts: AnswerOptions,
): Promise<XrefTarget> {
  const r = resolveRuntimeAddress(src.rom.model, processor, address);
  const target: XrefTarget = { address, romOffset, ownership: r.status };
  const staticMain = r.status === 'resolved' && r.candidates[0]?.component === 'main';
  if (r.status !== 'unmapped' && !staticMain) return target;
  const found = await src.maps.copied(src.store, src.rom, processor, opts.signal);
  const copies: StartupCopies = { processor, code: found.copies, data: found.dataCopies };
  const run = storedOfRun(copies, address);
  if (run !== null) return { ...target, ownership: 'copied', storedAt: run.stored, copy: run.copy };
  if (!staticMain) return target;
  let stored: RunMapping | null = null;
  try {
    stored = runOfStored(copies, address);
  } catch {
    // Copied to two places: no one run address to give.
  }
  return stored === null ? target : { ...target, runsAt: stored.run, runsAtCopy: stored.copy };
}

async function programXrefs(
  src: RomSource,
  req: XrefsRequest,
  target: XrefsAnswer['target'],
  opts: AnswerOptions,
): Promise<XrefsAnswer> {
  const { map, lowest, coverage, components, totals } = await mapScope(src, req, opts);
  const all = map.xrefs(target.address, lowest);
  const status = map.status;
  const page = paginate(all, req.offset, req.maxXrefs);
  return {
    scope: 'program',
    target,
    lowestTier: lowest,
    status,
    definitive: status === 'complete' && coverage.definitive,
    // Every xref is known here: more than a page is paged, not truncated.
    truncation: [],
    components,
    coverage,
    page: { total: page.total, offset: page.offset, nextOffset: page.nextOffset },
    totals: {
      xrefs: all.length,
      functions: map.functions.length,
      blocks: totals.blocks,
      instructions: totals.instructions,
      bytes: totals.bytes,
      edges: totals.edges,
    },
    // Fields assigned, not spread: V8 builds a literal that spreads and adds fields many times slower.
    xrefs: page.items.map((x) => {
      const out: XrefAnswer = {
        from: x.from,
        kind: x.kind,
        component: x.component.kind,
        overlayId: x.component.overlayId,
        mode: x.mode,
        tier: x.tier,
      };
      if (x.slot !== null) {
        out.slot = x.slot;
        out.value = x.to;
      }
      if (x.conditional) out.condition = 'conditional';
      if (x.table !== null) {
        out.table = x.table;
        out.loadedBy = x.loadedBy;
      }
      return out;
    }),
  };
}

async function boundedXrefs(
  src: RomSource,
  req: XrefsRequest,
  target: XrefsAnswer['target'],
  opts: AnswerOptions,
): Promise<XrefsAnswer> {
  const collector = new XrefCollector(target.address, req.maxXrefs);
  const { limits } = req;
  const found = await boundedSearch(
    src,
    req,
    {
      // Functions and call sites are bounded by blocks and instructions (one block per function,
      // one instruction per call site), so they never bind first.
      limits: { ...limits, functions: limits.blocks, callSites: limits.instructions },
      local: req.local,
    },
    opts,
    { onBlock: (block, span) => collector.block(block, span) },
  );
  const { result, status, coverage: covered } = found;
  for (const s of result.callSites) {
    if (s.kind !== 'constant-register-call' || s.target !== target.address || !s.callee) continue;
    collector.add({
      from: s.at,
      kind: 'constant-register-call',
      component: s.caller.component,
      overlayId: s.caller.overlayId,
      mode: s.caller.mode,
      targetMode: s.targetMode,
      ...(s.via ? { via: s.via } : {}),
      ...(s.condition ? { condition: s.condition } : {}),
    });
  }
  // The search's function limit is its block limit here.
  const truncation: XrefTruncation[] = result.truncation.map((t) =>
    t === 'function-limit' ? 'block-limit' : t,
  );
  if (collector.overflow) truncation.push('xref-limit');
  const finalTruncation = [...new Set(truncation)].sort();
  const finalStatus = finalTruncation.length > 0 ? 'truncated' : status;
  const coverage = covered(finalStatus === 'truncated');
  const xrefs = collector.xrefs
    .sort((a, b) => a.from - b.from || a.kind.localeCompare(b.kind))
    .map((x) => {
      const out: XrefAnswer = {
        from: x.from,
        kind: x.kind,
        component: x.component as ComponentKind,
        overlayId: x.overlayId,
        mode: x.mode,
        tier: 'proven',
      };
      if (x.targetMode) out.targetMode = x.targetMode;
      if (x.slot !== undefined) out.slot = x.slot;
      if (x.value !== undefined) out.value = x.value;
      if (x.via) out.via = x.via;
      if (x.condition) out.condition = x.condition;
      return out;
    });
  return {
    scope: 'bounded',
    target,
    lowestTier: 'proven',
    status: finalStatus,
    definitive: finalStatus === 'complete' && coverage.definitive,
    truncation: finalTruncation,
    components: found.components,
    coverage,
    page: null,
    totals: { xrefs: xrefs.length, functions: result.functions.length, ...result.totals },
    xrefs,
  };
}
