// Bounded proven-function discovery: a FIFO queue of function identities (processor + component +
// overlay + address + mode), each analysed as one bounded CFG (src/arm/cfg.ts) whose local limits are
// clipped to what is left of the whole operation's budget, so the aggregate always dominates. A
// function entry is proven only by the program entry, a resolved direct call, or (when enabled) a
// constant-register call; seeds give coverage only. Recursion terminates on identity; the same call
// site seen twice is one observation. No function ends are claimed. Pure: code arrives through the
// caller's SpanLookup.
import {
  analyzeControlFlow,
  CFG_TRUNCATIONS,
  type CfgBlock,
  type CfgLimits,
  type CfgResult,
  type CodeSpan,
  type SpanDecoder,
  type SpanLookup,
  type TruncationReason,
} from '../../arm/cfg.js';
import { DecodeCache } from '../../arm/decode-cache.js';
import type { ArmMode } from '../../arm/types.js';
import { throwIfCancelled } from '../../core/errors.js';
import type { BoundedStatus, Processor } from '../../core/vocabulary.js';
import { type ConstantCallVia, constantRegisterCalls } from './constant-register.js';

const ALL_EVIDENCE = ['program-entry', 'direct-call', 'constant-register-call'] as const;
export type Evidence = (typeof ALL_EVIDENCE)[number];

export interface FunctionIdentity {
  component: string;
  overlayId: number | null;
  /** Which ARM9 autoload block (component 'autoload' only; absent elsewhere). */
  autoloadIndex?: number;
  address: number;
  mode: ArmMode;
}

export type CfgLimitsOf = CfgLimits;

export interface DiscoveryLimits extends CfgLimits {
  components: number;
  functions: number;
  callSites: number;
}

/**
 * The standard budget of one discovery and of each function's CFG: nds_discover_functions' defaults,
 * and what runtime correlation runs.
 */
export const STANDARD_DISCOVERY: Readonly<DiscoveryLimits> = {
  components: 32,
  functions: 128,
  callSites: 512,
  blocks: 512,
  instructions: 4096,
  bytes: 32768,
  edges: 2048,
};
export const STANDARD_FUNCTION_CFG: Readonly<CfgLimits> = {
  blocks: 64,
  instructions: 512,
  bytes: 2048,
  edges: 128,
};

export const DISCOVERY_TRUNCATIONS = [
  'component-limit',
  'function-limit',
  'call-site-limit',
  ...CFG_TRUNCATIONS,
  'function-cfg-truncated',
] as const;
export type DiscoveryTruncation = (typeof DISCOVERY_TRUNCATIONS)[number];

/** How a call site proves its callee: a direct BL/BLX, or a constant-register call. */
export const CALL_SITE_KINDS = ['direct-call', 'constant-register-call'] as const;
export type CallSiteKind = (typeof CALL_SITE_KINDS)[number];

export interface CallSite {
  /** The calling function (or coverage seed) whose CFG holds the site. */
  caller: FunctionIdentity;
  callerIsSeed: boolean;
  at: number;
  kind: CallSiteKind;
  target: number;
  targetMode: ArmMode;
  condition?: string;
  via?: ConstantCallVia;
  slot?: number;
  definedAt?: number;
  /** The callee identity when the target resolved to exactly one code source. */
  callee?: FunctionIdentity;
  /** Why there is no callee: misaligned-target, ambiguous-code-source, bss, unmapped, component-limit... */
  unresolved?: string;
}

interface FunctionCfgSummary {
  status: BoundedStatus;
  truncation: TruncationReason[];
  blocks: Pick<CfgBlock, 'component' | 'overlayId' | 'autoloadIndex' | 'mode' | 'address' | 'end'>[];
  instructions: number;
  bytes: number;
  edges: number;
}

interface DiscoveredFunction {
  identity: FunctionIdentity;
  evidence: Evidence[];
  /** Null when a limit stopped the analysis before this function's CFG was built. */
  cfg: FunctionCfgSummary | null;
}

interface DiscoveryRequest {
  processor: Processor;
  /** The program entry (ARM), when 'program-entry' evidence is enabled and the entry is code. */
  entry: { span: CodeSpan; address: number } | null;
  seeds: { span: CodeSpan; address: number; mode: ArmMode }[];
  lookup: SpanLookup;
  evidence: ReadonlySet<Evidence>;
  limits: DiscoveryLimits;
  /** Per-function CFG limits before clipping. */
  local: CfgLimits;
  signal?: AbortSignal;
  onProgress?: (analysed: number, queued: number) => void;
  /** Sees every decoded block once per analysed CFG, with the span its bytes came from. */
  onBlock?: (block: CfgBlock, span: CodeSpan) => void;
  /**
   * How code is decoded. Default: one DecodeCache for the whole run, so code shared by several
   * functions' CFGs is decoded once (same answers as decoding afresh; tests compare both).
   */
  decoder?: SpanDecoder;
  /** Stop as soon as this identity is proven (focused proof search). */
  stopWhenProven?: FunctionIdentity;
}

export interface DiscoveryResult {
  functions: DiscoveredFunction[];
  seeds: { identity: FunctionIdentity; cfg: FunctionCfgSummary | null }[];
  callSites: CallSite[];
  truncation: DiscoveryTruncation[];
  /** Components (componentKey) whose code was decoded. */
  scanned: Set<string>;
  /** True when the search ended early because `stopWhenProven` was proven (work was left). */
  stoppedWhenProven: boolean;
  /** Components refused because the component limit was reached. */
  outOfLimit: Set<string>;
  totals: { blocks: number; instructions: number; bytes: number; edges: number };
}

/** component|overlayId, and |autoloadIndex for an autoload block (main and overlay keys unchanged). */
export const componentKey = (
  component: string,
  overlayId: number | null,
  autoloadIndex?: number | null,
): string =>
  autoloadIndex === undefined || autoloadIndex === null
    ? `${component}|${overlayId}`
    : `${component}|${overlayId}|${autoloadIndex}`;
export const identityKey = (id: FunctionIdentity): string =>
  `${componentKey(id.component, id.overlayId, id.autoloadIndex)}|${id.mode}|${id.address}`;

/** The identity of the function at `address` in `span` (an autoload block's index kept). */
export const identityIn = (span: CodeSpan, address: number, mode: ArmMode): FunctionIdentity => ({
  component: span.component,
  overlayId: span.overlayId,
  ...(span.autoloadIndex != null ? { autoloadIndex: span.autoloadIndex } : {}),
  address,
  mode,
});

interface Work {
  identity: FunctionIdentity;
  span: CodeSpan;
  seed: boolean;
}

/** Runs one discovery (see DiscoveryRequest). */
export async function discoverFunctions(req: DiscoveryRequest): Promise<DiscoveryResult> {
  return new Discovery(req).run();
}

/** One discovery under way: what it has proven and seen, its queue of CFGs to build, its spending. */
class Discovery {
  private readonly functions = new Map<string, DiscoveredFunction>();
  private readonly seeds: DiscoveryResult['seeds'] = [];
  private readonly callSites: CallSite[] = [];
  private readonly siteKeys = new Set<string>();
  private readonly truncation = new Set<DiscoveryTruncation>();
  private readonly scanned = new Set<string>();
  private readonly considered = new Set<string>();
  private readonly outOfLimit = new Set<string>();
  private readonly spans = new Map<string, CodeSpan>();
  private readonly totals = { blocks: 0, instructions: 0, bytes: 0, edges: 0 };
  private readonly queue: Work[] = [];
  private readonly analysedSeeds = new Set<string>();
  private readonly decoder: SpanDecoder;
  private stop = false;
  private analysed = 0;

  constructor(private readonly req: DiscoveryRequest) {
    this.decoder = req.decoder ?? new DecodeCache(req.processor).decoder;
  }

  async run(): Promise<DiscoveryResult> {
    const { req, queue, functions, analysedSeeds } = this;
    if (req.entry && req.evidence.has('program-entry') && this.admit(req.entry.span)) {
      this.prove(identityIn(req.entry.span, req.entry.address, 'arm'), req.entry.span, 'program-entry');
    }
    for (const s of req.seeds) {
      if (!this.admit(s.span)) continue;
      const identity = identityIn(s.span, s.address, s.mode);
      queue.push({ identity, span: s.span, seed: true });
    }
    while (queue.length > 0 && !this.stop) {
      throwIfCancelled(req.signal);
      const work = queue.shift()!;
      const key = identityKey(work.identity);
      if (work.seed) {
        // A seed that is also a proven function is analysed once, as the function.
        if (functions.has(key) || analysedSeeds.has(key)) continue;
        analysedSeeds.add(key);
      }
      const cfg = await this.analyse(work, key);
      if (cfg === null) break;
      await this.callsOf(work, cfg);
      req.onProgress?.(this.analysed, queue.length);
    }
    return {
      functions: [...functions.values()],
      seeds: this.seeds,
      callSites: this.callSites,
      truncation: [...this.truncation].sort(),
      scanned: this.scanned,
      outOfLimit: this.outOfLimit,
      stoppedWhenProven: this.stop,
      totals: this.totals,
    };
  }

  /** Admits a component to the operation, or refuses it at the component limit. */
  private admit(span: CodeSpan): boolean {
    const { req, considered, truncation } = this;
    const key = componentKey(span.component, span.overlayId, span.autoloadIndex);
    if (considered.has(key)) return true;
    if (considered.size >= req.limits.components) {
      truncation.add('component-limit');
      this.outOfLimit.add(key);
      return false;
    }
    considered.add(key);
    this.spans.set(key, span);
    return true;
  }

  // Every cross-component lookup passes the component limit and remembers failures.
  private readonly lookup: SpanLookup = async (address, mode, from) => {
    const found = await this.req.lookup(address, mode, from);
    if ('unresolved' in found) return found;
    return this.admit(found.span) ? found : { unresolved: 'component-limit' };
  };

  private prove(identity: FunctionIdentity, span: CodeSpan, evidence: Evidence): void {
    const { req, functions } = this;
    const key = identityKey(identity);
    const known = functions.get(key);
    if (known) {
      if (!known.evidence.includes(evidence)) known.evidence.push(evidence);
      return;
    }
    if (functions.size >= req.limits.functions) {
      this.truncation.add('function-limit');
      return;
    }
    functions.set(key, { identity, evidence: [evidence], cfg: null });
    this.queue.push({ identity, span, seed: false });
    if (req.stopWhenProven && identityKey(req.stopWhenProven) === key) this.stop = true;
  }

  /**
   * Builds the CFG of one function or seed within what is left of the budget, and keeps its summary;
   * null when the budget is spent (the discovery stops).
   */
  private async analyse(work: Work, key: string): Promise<CfgResult | null> {
    const { req, totals, truncation } = this;
    const remaining: CfgLimits = {
      blocks: req.limits.blocks - totals.blocks,
      instructions: req.limits.instructions - totals.instructions,
      bytes: req.limits.bytes - totals.bytes,
      edges: req.limits.edges - totals.edges,
    };
    const exhausted = (Object.keys(remaining) as (keyof CfgLimits)[]).filter((k) => remaining[k] <= 0);
    if (exhausted.length > 0) {
      for (const k of exhausted) truncation.add(REASON[k]);
      return null;
    }
    const local: CfgLimits = {
      blocks: Math.min(req.local.blocks, remaining.blocks),
      instructions: Math.min(req.local.instructions, remaining.instructions),
      bytes: Math.min(req.local.bytes, remaining.bytes),
      edges: Math.min(req.local.edges, remaining.edges),
    };
    const cfg = await analyzeControlFlow({
      processor: req.processor,
      span: work.span,
      address: work.identity.address,
      mode: work.identity.mode,
      limits: local,
      lookup: this.lookup,
      decoder: this.decoder,
      ...(req.signal ? { signal: req.signal } : {}),
    });
    this.analysed++;
    totals.blocks += cfg.blocks.length;
    totals.instructions += cfg.totals.instructions;
    totals.bytes += cfg.totals.bytes;
    totals.edges += cfg.edges.length;
    if (cfg.status === 'truncated') {
      truncation.add('function-cfg-truncated');
      // A cut caused by the clipped (global) budget is the whole operation's truncation.
      for (const r of cfg.truncation) {
        const k = LIMIT_OF[r];
        if (local[k] < req.local[k]) truncation.add(r);
      }
    }
    const summary: FunctionCfgSummary = {
      status: cfg.status,
      truncation: cfg.truncation,
      blocks: cfg.blocks.map((b) => ({
        component: b.component,
        overlayId: b.overlayId,
        ...(b.autoloadIndex !== undefined ? { autoloadIndex: b.autoloadIndex } : {}),
        mode: b.mode,
        address: b.address,
        end: b.end,
      })),
      instructions: cfg.totals.instructions,
      bytes: cfg.totals.bytes,
      edges: cfg.edges.length,
    };
    if (work.seed) this.seeds.push({ identity: work.identity, cfg: summary });
    else this.functions.get(key)!.cfg = summary;
    return cfg;
  }

  /** The call sites in a CFG's blocks: each recorded once, and each callee it proves queued. */
  private async callsOf(work: Work, cfg: CfgResult): Promise<void> {
    const { req } = this;
    for (const block of cfg.blocks) {
      const blockKey = componentKey(block.component, block.overlayId, block.autoloadIndex);
      const span = this.spans.get(blockKey) ?? work.span;
      if (block.instructions.length > 0) this.scanned.add(blockKey);
      req.onBlock?.(block, span);
      for (const call of block.calls) {
        if (call.target === undefined || call.targetMode === undefined) continue;
        await this.site(work, block, span, {
          at: call.at,
          kind: 'direct-call',
          target: call.target,
          targetMode: call.targetMode,
          ...(call.condition ? { condition: call.condition } : {}),
        });
      }
      if (req.evidence.has('constant-register-call')) {
        for (const c of constantRegisterCalls(block.instructions, span)) {
          await this.site(work, block, span, {
            at: c.at,
            kind: 'constant-register-call',
            target: c.target,
            targetMode: c.targetMode,
            via: c.via,
            definedAt: c.definedAt,
            ...(c.slot !== undefined ? { slot: c.slot } : {}),
            ...(c.condition ? { condition: c.condition } : {}),
          });
        }
      }
    }
  }

  /** Records one call site (once, however many CFGs hold it) and proves the callee it resolves to. */
  private async site(
    work: Work,
    block: CfgBlock,
    span: CodeSpan,
    s: Omit<CallSite, 'caller' | 'callerIsSeed'>,
  ): Promise<void> {
    const { req, siteKeys, callSites } = this;
    const key = `${componentKey(block.component, block.overlayId, block.autoloadIndex)}|${block.mode}|${s.at}|${s.kind}`;
    if (siteKeys.has(key)) return; // the same site seen from another CFG: one observation
    if (s.kind === 'direct-call' && !req.evidence.has('direct-call')) return;
    if (callSites.length >= req.limits.callSites) {
      this.truncation.add('call-site-limit');
      return;
    }
    siteKeys.add(key);
    const record: CallSite = { caller: work.identity, callerIsSeed: work.seed, ...s };
    callSites.push(record);
    if (s.target % (s.targetMode === 'arm' ? 4 : 2) !== 0) {
      record.unresolved = 'misaligned-target';
      return;
    }
    let where: CodeSpan;
    if (s.target >= span.start && s.target < span.start + span.bytes.length) where = span;
    else {
      const found = await this.lookup(s.target, s.targetMode, span);
      if ('unresolved' in found) {
        record.unresolved = found.unresolved;
        return;
      }
      where = found.span;
    }
    const callee = identityIn(where, s.target, s.targetMode);
    record.callee = callee;
    this.prove(callee, where, s.kind);
  }
}

const REASON: Record<keyof CfgLimits, TruncationReason> = {
  blocks: 'block-limit',
  instructions: 'instruction-limit',
  bytes: 'byte-limit',
  edges: 'edge-limit',
};
const LIMIT_OF: Record<TruncationReason, keyof CfgLimits> = {
  'block-limit': 'blocks',
  'instruction-limit': 'instructions',
  'byte-limit': 'bytes',
  'edge-limit': 'edges',
};
