// A finished whole-program map and its questions: what each component's bytes are (by class and
// tier), the functions (each with its evidence and tier), who references an address (instructions and
// data, each with its tier), what holds an address, and how complete all that is for a caller's lowest
// accepted tier. Every answer is a lookup: the work was done when the map was built.
import type { ArmMode } from '../../arm/types.js';
import { turnTaker } from '../../core/cooperative.js';
import type { BuiltMap } from './build.js';
import type { MapCall } from './call-store.js';
import type { ComponentSet, MapComponent } from './components.js';
import type { MapFunction } from './function-record.js';
import { type MapRef, type MapRefKind, REF_KINDS } from './refs.js';
import {
  BYTE_CLASS_NAMES,
  ByteClass,
  type ByteClassName,
  byteClassName,
  type EntryEvidence,
  isCode,
  type MapTruncation,
  NO_TIER,
  TIER_RANK,
  TIERS,
  type Tier,
} from './types.js';
import { entryKey, type MapBlock } from './walker.js';

// The shapes the map's queries hand out, named here (its public surface) wherever they are made.
export type { CallKind, MapCall } from './call-store.js';
export type { MapFunction } from './function-record.js';
export { type MapRefKind, REF_KINDS } from './refs.js';
export type { MapBlock } from './walker.js';

/** A function entry (or a refused candidate) as the map knows it. */
export interface MapEntryInfo {
  key: string;
  /** The walk could not start there (data or other code): no entry, its evidence kept. */
  refused: boolean;
  tier: Tier;
  evidence: readonly EntryEvidence[];
}

export interface UnresolvedCounts {
  /** Calls whose target lies in no component (code the map cannot see). */
  unmapped: number;
  /** Calls into a range several overlays share. */
  ambiguous: number;
  /** Calls into BSS or an undecodable component. */
  runtimeOnly: number;
  /** Register calls whose target no evidence gives. */
  indirectCalls: number;
  /** Indirect branches the walk could not resolve (not returns, not bounded switches). */
  indirectBranches: number;
}

export interface MapCoverage {
  lowestTier: Tier;
  executableBytes: number;
  /** Bytes classified (code or positively non-code) at an accepted tier. */
  classifiedBytes: number;
  codeBytes: number;
  /** Bytes nothing classified. */
  unclassifiedBytes: number;
  /** Bytes classified only at a tier below the lowest accepted. */
  belowTierBytes: number;
  /** Bytes of components that could not be read (a compressed overlay that does not decode). */
  unavailableBytes: number;
  unresolved: UnresolvedCounts;
  truncated: boolean;
  /**
   * True only when nothing the answer could have missed is left (see notDefinitive otherwise): no byte
   * unclassified or classified only below the tier, none judged non-code by the sweep alone, no
   * component unreadable, no call or branch whose target is unknown or outside the map.
   */
  definitive: boolean;
  notDefinitive: string[];
}

export interface MapXref {
  from: number;
  to: number;
  kind: MapRefKind;
  component: MapComponent;
  mode: ArmMode | 'data';
  tier: Tier;
  conditional: boolean;
  /** literal-value: the literal slot. */
  slot: number | null;
  /** table-entry / data-word: the first word of the table the reference sits in. */
  table: number | null;
  /** table-entry / data-word: the instructions that load the table's address. */
  loadedBy: number[];
}

export interface MapHolder {
  component: MapComponent;
  byteClass: ByteClassName;
  /** The tier that classified the byte; null when unclassified. */
  tier: Tier | null;
  /** Functions whose bodies hold it (code), or whose code loads it (a literal or a jump table). */
  functions: { fn: MapFunction; via: 'body' | 'literal' | 'jump-table'; block: MapBlock | null }[];
}

/** The evidence classes that name a function start even where another function's code runs into it. */
const FUNCTION_NAMING = new Set([
  'program-entry',
  'direct-call',
  'constant-register-call',
  'vector',
  'unwind-index',
]);

/** Most functions have no second entry: one shared list. */
const NO_SECONDARY_ENTRIES: readonly number[] = Object.freeze([]);

export class ProgramMap {
  readonly functions: MapFunction[];

  private constructor(
    /** The build: read only inside src/analysis/ (test/architecture checks tools and the debugger). */
    readonly built: BuiltMap,
    readonly set: ComponentSet,
    readonly sha256: string,
    functions: MapFunction[],
    private readonly summary: Summary,
  ) {
    this.functions = functions;
  }

  /**
   * The map of a build: each function's record and call sites laid on its body, the functions sorted.
   * A whole program's records take a few hundred milliseconds on 12 MiB: made with event-loop turns.
   */
  static async of(built: BuiltMap, set: ComponentSet, sha256: string): Promise<ProgramMap> {
    const turn = turnTaker();
    const w = built.walker;
    // Each function's call sites and record sit on its body (no map of their own).
    for (const b of built.bodies.values()) {
      b.callSites = null;
      b.fn = null;
    }
    const called = (key: string, i: number) => {
      const b = built.bodies.get(key);
      if (!b) return;
      if (b.callSites) b.callSites.push(i);
      else b.callSites = [i];
    };
    for (let i = 0; i < w.calls.length; i++) {
      const pause = turn();
      if (pause) await pause;
      const c = w.calls.get(i);
      if (c.target === null || c.targetComp === null || c.targetMode === null) continue;
      called(entryKey(c.targetComp, c.targetMode, c.target), i);
      if (c.via !== null && c.viaMode !== null && c.kind === 'veneer') {
        const via = w.set.lookup(c.via, w.component(c.comp));
        if ('component' in via) called(entryKey(via.component.index, c.viaMode, c.via), i);
      }
    }
    // Lists of the exact size (pushing leaves room for 16 more in each).
    for (const b of built.bodies.values()) if (b.callSites) b.callSites = b.callSites.slice();
    const secondary = new Map<string, number[]>();
    for (const b of built.bodies.values()) {
      if (!b.secondaryOf) continue;
      const list = secondary.get(b.secondaryOf);
      if (list) list.push(b.entry.address);
      else secondary.set(b.secondaryOf, [b.entry.address]);
    }
    const functions: MapFunction[] = [];
    for (const b of built.bodies.values()) {
      const pause = turn();
      if (pause) await pause;
      const e = b.entry;
      if (e.orphan || e.state === 'refused') continue;
      // A second way into another function's code is a function of its own when a call or the
      // exception index names it (an assembler routine a BL calls that the one before falls into:
      // __adddf3 in __aeabi_dsub); named only by data (a table word into a body), it is not.
      if (b.secondaryOf && !e.evidence.some((ev) => FUNCTION_NAMING.has(ev.class))) continue;
      const fn: MapFunction = {
        key: e.key,
        component: w.component(e.comp),
        address: e.address,
        mode: e.mode,
        tier: TIERS[e.tier]!,
        evidence: e.evidence,
        callers: b.callSites?.length ?? 0,
        blocks: b.blockCount,
        tailCalls: b.tailCalls,
        secondaryEntries: secondary.get(e.key) ?? NO_SECONDARY_ENTRIES,
        partOf: b.secondaryOf,
        returns: e.returns,
      };
      functions.push(fn);
      b.fn = fn;
    }
    functions.sort(
      (a, b) =>
        a.component.index - b.component.index || a.address - b.address || a.mode.localeCompare(b.mode),
    );
    return new ProgramMap(built, set, sha256, functions, await summarize(built, set));
  }

  get processor() {
    return this.built.processor;
  }

  /** Complete, or stopped early (truncation says why), and how long the build took. */
  get status(): 'complete' | 'truncated' {
    return this.built.status;
  }
  get truncation(): MapTruncation[] {
    return this.built.truncation;
  }
  get millis(): number {
    return this.built.millis;
  }

  /** Basic blocks the walk made, and call instructions it met. */
  get blockCount(): number {
    return this.built.walker.blocks.length;
  }
  get callCount(): number {
    return this.built.walker.calls.length;
  }

  /** Code walked as a root that is no function (landing pads after calls that never return). */
  get orphanCode(): number {
    let n = 0;
    for (const e of this.built.walker.entries.values()) if (e.orphan && e.state !== 'refused') n++;
    return n;
  }

  /** Entries that are a second way into another function (assembler labels a BL also calls). */
  get secondaryEntries(): number {
    let n = 0;
    for (const b of this.built.bodies.values()) if (b.secondaryOf) n++;
    return n;
  }

  /** Candidate entries refused, counted by reason (in the order the reasons first came up). */
  refusals(): { reason: string; candidates: number }[] {
    return [...this.built.refusals].map(([reason, candidates]) => ({ reason, candidates }));
  }

  /** The entry (or refused candidate) at `address` in `mode` code of `comp`, if the map has one. */
  entryAt(comp: MapComponent, mode: ArmMode, address: number): MapEntryInfo | null {
    const e = this.built.walker.entries.get(entryKey(comp.index, mode, address));
    if (!e) return null;
    return { key: e.key, refused: e.state === 'refused', tier: TIERS[e.tier]!, evidence: e.evidence };
  }

  /** The function entered at `address` in `mode` code of component `comp` (index), its host for a second entry. */
  functionEntered(comp: number, mode: ArmMode, address: number): MapFunction | null {
    return this.functionOf(entryKey(comp, mode, address));
  }

  /** The function of an entry key, following a secondary entry to its host. */
  functionOf(key: string): MapFunction | null {
    const b = this.built.bodies.get(key);
    if (b?.fn) return b.fn;
    const host = b?.secondaryOf;
    return host ? (this.built.bodies.get(host)?.fn ?? null) : null;
  }

  /** The call instructions naming a function. */
  callSitesOf(fn: MapFunction): MapCall[] {
    return (this.built.bodies.get(fn.key)?.callSites ?? []).map((i) => this.built.walker.calls.get(i));
  }

  /** The calls each function's body makes (blocks ascending, a block's calls in walk order). */
  callsMadeBy(fns: readonly MapFunction[]): MapCall[][] {
    const w = this.built.walker;
    const callsIn = new Map<number, number[]>();
    for (let i = 0; i < w.calls.length; i++) {
      const block = w.calls.get(i).block;
      const list = callsIn.get(block) ?? [];
      list.push(i);
      callsIn.set(block, list);
    }
    return fns.map((f) =>
      (this.built.bodies.get(f.key)?.blocks ?? [])
        .flatMap((b) => callsIn.get(b) ?? [])
        .map((i) => w.calls.get(i)),
    );
  }

  /** The `mode` calls at any of `ats`, at tiers down to `lowest`, in walk order. */
  callsAt(ats: readonly number[], mode: ArmMode, lowest: Tier): MapCall[] {
    const max = TIER_RANK[lowest];
    const out: MapCall[] = [];
    for (const c of this.built.walker.calls)
      if (c.mode === mode && c.tier <= max && ats.includes(c.at)) out.push(c);
    return out;
  }

  /** Byte counts of one component, by class and by the tier that classified them. */
  componentBytes(comp: MapComponent): {
    classes: Record<ByteClassName, number>;
    tiers: Record<Tier | 'unclassified', number>;
  } {
    const classes = Object.fromEntries(BYTE_CLASS_NAMES.map((n) => [n, 0])) as Record<ByteClassName, number>;
    const tiers: Record<Tier | 'unclassified', number> = {
      proven: 0,
      referenced: 0,
      heuristic: 0,
      unclassified: 0,
    };
    const counts = this.summary.counts[comp.index]!;
    const tierCounts = [0, 0, 0, 0];
    for (let c = 0; c < 16; c++)
      for (let r = 0; r < 4; r++) {
        const n = counts[c * 4 + r]!;
        if (n === 0) continue;
        classes[byteClassName(c)] += n;
        tierCounts[r]! += n;
      }
    tiers.proven = tierCounts[0]!;
    tiers.referenced = tierCounts[1]!;
    tiers.heuristic = tierCounts[2]!;
    tiers.unclassified = tierCounts[3]!;
    return { classes, tiers };
  }

  /** How complete the map is for a caller accepting tiers down to `lowest`. */
  coverage(lowest: Tier): MapCoverage {
    const max = TIER_RANK[lowest];
    let executable = 0;
    let classified = 0;
    let code = 0;
    let unclassified = 0;
    let below = 0;
    let judged = 0;
    for (const comp of this.set.list) {
      executable += comp.cls.length;
      const counts = this.summary.counts[comp.index]!;
      for (let c = 0; c < 16; c++)
        for (let r = 0; r < 4; r++) {
          const n = counts[c * 4 + r]!;
          if (c === ByteClass.unknown) unclassified += n;
          else if (r > max) below += n;
          else {
            classified += n;
            if (isCode(c)) code += n;
            // Judged not code by the sweep alone: code could still hide there.
            else if (r === TIER_RANK.heuristic && c !== ByteClass.literalPool && c !== ByteClass.jumpTable)
              judged += n;
          }
        }
    }
    const unavailable = this.set.unavailable.reduce((n, u) => n + (u.end - u.start), 0);
    const unresolved: UnresolvedCounts = {
      unmapped: 0,
      ambiguous: 0,
      runtimeOnly: 0,
      indirectCalls: 0,
      indirectBranches: 0,
    };
    for (let t = 0; t <= max; t++) {
      const u = this.summary.unresolved[t]!;
      unresolved.unmapped += u.unmapped;
      unresolved.ambiguous += u.ambiguous;
      unresolved.runtimeOnly += u.runtimeOnly;
      unresolved.indirectCalls += u.indirectCalls;
      unresolved.indirectBranches += u.indirectBranches;
    }
    const truncated = this.built.status !== 'complete';
    const notDefinitive: string[] = [];
    if (unclassified > 0) notDefinitive.push(`${unclassified} executable bytes unclassified`);
    if (below > 0) notDefinitive.push(`${below} bytes classified only below the ${lowest} tier`);
    if (unavailable > 0) notDefinitive.push(`${unavailable} bytes of components that could not be read`);
    if (unresolved.unmapped > 0) notDefinitive.push(`${unresolved.unmapped} calls into unmapped code`);
    if (unresolved.ambiguous > 0)
      notDefinitive.push(`${unresolved.ambiguous} calls into a range several overlays share`);
    if (unresolved.runtimeOnly > 0)
      notDefinitive.push(`${unresolved.runtimeOnly} calls into BSS or undecodable code`);
    if (judged > 0) notDefinitive.push(`${judged} bytes judged not code by the sweep alone`);
    if (unresolved.indirectCalls > 0)
      notDefinitive.push(`${unresolved.indirectCalls} register calls whose target no evidence gives`);
    if (unresolved.indirectBranches > 0)
      notDefinitive.push(`${unresolved.indirectBranches} indirect branches not resolved`);
    if (truncated) notDefinitive.push(`the map stopped early (${this.built.truncation.join(', ')})`);
    return {
      lowestTier: lowest,
      executableBytes: executable,
      classifiedBytes: classified,
      codeBytes: code,
      unclassifiedBytes: unclassified,
      belowTierBytes: below,
      unavailableBytes: unavailable,
      unresolved,
      truncated,
      definitive: notDefinitive.length === 0,
      notDefinitive,
    };
  }

  /** Every reference to `target` (a Thumb function also through its address + 1) at accepted tiers. */
  xrefs(target: number, lowest: Tier): MapXref[] {
    const w = this.built.walker;
    const max = TIER_RANK[lowest];
    const out: MapXref[] = [];
    const seen = new Set<string>();
    const loaders = (table: number) =>
      w.refs
        .to_(table)
        .map((i) => w.refs.get(i))
        .filter((r) => r.kind === 'literal-value' || r.kind === 'pc-relative-address')
        .filter((r) => TIER_RANK[r.tier] <= max)
        .map((r) => r.from);
    const push = (r: MapRef) => {
      if (TIER_RANK[r.tier] > max) return;
      const key = `${r.component}|${r.mode}|${r.from}|${r.kind}`;
      if (seen.has(key)) return;
      seen.add(key);
      const table = r.kind === 'table-entry' || r.kind === 'data-word' ? r.extra : null;
      out.push({
        from: r.from,
        to: r.to,
        kind: r.kind,
        component: w.component(r.component),
        mode: r.mode,
        tier: r.tier,
        conditional: r.conditional,
        slot: r.kind === 'literal-value' ? r.extra : null,
        table,
        loadedBy: table === null ? [] : loaders(table),
      });
    };
    for (const i of w.refs.to_(target)) push(w.refs.get(i));
    if (target % 2 === 0) {
      for (const i of w.refs.to_(target + 1)) {
        const r = w.refs.get(i);
        if (r.kind === 'literal-value' || r.kind === 'table-entry' || r.kind === 'data-word') push(r);
      }
    }
    return out.sort((a, b) => a.from - b.from || REF_KINDS.indexOf(a.kind) - REF_KINDS.indexOf(b.kind));
  }

  /** The block of `mode` code holding `address` in `comp`, if any. */
  blockHolding(comp: MapComponent, mode: ArmMode, address: number): MapBlock | null {
    const w = this.built.walker;
    const unit = mode === 'arm' ? 4 : 2;
    for (let at = address - (address % unit); at >= comp.start && address - at <= 0x10000; at -= unit) {
      const b = w.blockAt(comp, mode, at);
      if (b) return b.end > address ? b : null;
    }
    return null;
  }

  /** What every component holding `address` has there, and the functions it belongs to. */
  holders(address: number, lowest: Tier): MapHolder[] {
    const w = this.built.walker;
    const max = TIER_RANK[lowest];
    const out: MapHolder[] = [];
    for (const comp of this.set.holding(address)) {
      const o = address - comp.start;
      const c = comp.cls[o]!;
      const t = comp.tier[o]!;
      const holder: MapHolder = {
        component: comp,
        byteClass: byteClassName(c),
        tier: t === NO_TIER ? null : TIERS[t]!,
        functions: [],
      };
      const add = (key: string, via: 'body' | 'literal' | 'jump-table', block: MapBlock | null) => {
        const fn = this.functionOf(key);
        if (!fn || TIER_RANK[fn.tier] > max) return;
        if (holder.functions.some((f) => f.fn === fn && f.via === via)) return;
        holder.functions.push({ fn, via, block });
      };
      if (isCode(c)) {
        const mode: ArmMode = c === ByteClass.armHead || c === ByteClass.armBody ? 'arm' : 'thumb';
        const block = this.blockHolding(comp, mode, address);
        if (block) for (const key of this.built.owners.of(block.id)) add(key, 'body', block);
      } else if (c === ByteClass.literalPool || c === ByteClass.jumpTable) {
        // The code that reads it: the loads naming its word (a literal), or the dispatch reading the table.
        const word = address - (address % 4);
        for (const i of [...w.refs.to_(word), ...w.refs.to_(address)]) {
          const r = w.refs.get(i);
          if (r.component !== comp.index || r.mode === 'data') continue;
          if (r.kind !== 'literal-pool' && r.kind !== 'switch-case') continue;
          const block = this.blockHolding(comp, r.mode, r.from);
          if (block)
            for (const key of this.built.owners.of(block.id))
              add(key, c === ByteClass.literalPool ? 'literal' : 'jump-table', block);
        }
      }
      out.push(holder);
    }
    return out;
  }

  /** Unclassified runs (gaps) of every component, in address order, for the caller's lowest tier. */
  gaps(lowest: Tier): { component: MapComponent; start: number; end: number }[] {
    const max = TIER_RANK[lowest];
    const out: { component: MapComponent; start: number; end: number }[] = [];
    for (const comp of this.set.list) {
      const { starts, levels } = this.summary.runs[comp.index]!;
      const n = comp.cls.length;
      // Runs whose level is above `max` are open; neighbouring open runs make one gap.
      for (let i = 0; i < levels.length; ) {
        if (levels[i]! <= max) {
          i++;
          continue;
        }
        const o = starts[i]!;
        while (i < levels.length && levels[i]! > max) i++;
        out.push({
          component: comp,
          start: comp.start + o,
          end: comp.start + (i < starts.length ? starts[i]! : n),
        });
      }
    }
    return out;
  }

  /** Approximate bytes held (for the cache's bound). */
  bytes(): number {
    const w = this.built.walker;
    // Blocks: six integer columns, an owner and a body slot each; an entry with its key, evidence,
    // body and function record; a call object; per component byte its class, tier and block-start slot.
    let n = w.refs.bytes() + w.blocks.length * 32 + w.entries.size * 250 + w.calls.length * 170;
    for (const c of this.set.list) n += c.cls.length * 4;
    for (const r of this.summary.runs) n += r.starts.byteLength + r.levels.byteLength;
    return n;
  }
}

/**
 * What componentBytes, coverage and gaps answer from: counted once when the map is made, in slices,
 * so a question about a 12 MiB program does not walk its 12 million bytes (and its calls and blocks)
 * on the event loop.
 */
interface Summary {
  /** Per component: bytes by class and tier rank, at class * 4 + rank (rank 3: no tier). */
  counts: Uint32Array[];
  /**
   * Per component: runs of bytes of one level (the tier rank 0..2, 3 for no tier, 4 for unclassified
   * bytes): a byte is in a gap for a lowest accepted rank below its level. `starts` are offsets.
   */
  runs: { starts: Int32Array; levels: Uint8Array }[];
  /** Per tier rank 0..2: the unresolved calls and indirect branches found at that rank. */
  unresolved: UnresolvedCounts[];
}

/** Bytes counted between two checks of the clock in summarize. */
const SUMMARY_STRIDE = 1 << 16;

async function summarize(built: BuiltMap, set: ComponentSet): Promise<Summary> {
  const turn = turnTaker(undefined, 1);
  const pause = async () => {
    const p = turn();
    if (p) await p;
  };
  const counts: Uint32Array[] = [];
  const runs: Summary['runs'] = [];
  for (const comp of set.list) {
    const count = new Uint32Array(64);
    const starts: number[] = [];
    const levels: number[] = [];
    let level = -1;
    for (let from = 0; from < comp.cls.length; from += SUMMARY_STRIDE) {
      await pause();
      const to = Math.min(comp.cls.length, from + SUMMARY_STRIDE);
      for (let i = from; i < to; i++) {
        const c = comp.cls[i]!;
        const t = comp.tier[i]!;
        const rank = t === NO_TIER ? 3 : t;
        count[c * 4 + rank]!++;
        const l = c === ByteClass.unknown ? 4 : rank;
        if (l !== level) {
          starts.push(i);
          levels.push(l);
          level = l;
        }
      }
    }
    counts.push(count);
    runs.push({ starts: Int32Array.from(starts), levels: Uint8Array.from(levels) });
  }
  const unresolved: UnresolvedCounts[] = [0, 1, 2].map(() => ({
    unmapped: 0,
    ambiguous: 0,
    runtimeOnly: 0,
    indirectCalls: 0,
    indirectBranches: 0,
  }));
  const w = built.walker;
  let n = 0;
  for (const c of w.calls) {
    if ((++n & 0xfff) === 0) await pause();
    const u = unresolved[c.tier];
    if (!u) continue;
    if (c.unresolved === 'unmapped') u.unmapped++;
    else if (c.unresolved === 'ambiguous-code-source') u.ambiguous++;
    else if (c.unresolved !== null) u.runtimeOnly++;
    else if ((c.kind === 'register' || c.kind === 'stub') && c.target === null) u.indirectCalls++;
  }
  for (let id = 0; id < w.blocks.length; id++) {
    if ((id & 0xffff) === 0) await pause();
    if (w.blocks.termOf(id) !== 'indirect') continue;
    const u = unresolved[w.blocks.tierOf(id)];
    if (u) u.indirectBranches++;
  }
  return { counts, runs, unresolved };
}
