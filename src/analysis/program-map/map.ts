// A finished whole-program map and its questions: what each component's bytes are (by class and
// tier), the functions (each with its evidence and tier), who references an address (instructions and
// data, each with its tier), what holds an address, and how complete all that is for a caller's lowest
// accepted tier. Every answer is a lookup: the work was done when the map was built.
import type { ArmMode } from '../../arm/types.js';
import type { BuiltMap } from './build.js';
import type { MapCall } from './call-store.js';
import type { ComponentSet, MapComponent } from './components.js';
import type { MapFunction } from './function-record.js';
import { functionRecords } from './map-records.js';
import { summarize } from './map-summary.js';
import type {
  MapCoverage,
  MapEntryInfo,
  MapHolder,
  MapXref,
  Summary,
  UnresolvedCounts,
} from './map-types.js';
import { type MapRef, REF_KINDS } from './refs.js';
import {
  BYTE_CLASS_NAMES,
  ByteClass,
  type ByteClassName,
  byteClassName,
  isCode,
  type MapTruncation,
  NO_TIER,
  TIER_RANK,
  TIERS,
  type Tier,
} from './types.js';
import { entryKey, type MapBlock } from './walker.js';

// The shapes the map's queries hand out, named here (its public surface) wherever they are made.
export type { CallKind } from './call-store.js';
export type { MapFunction } from './function-record.js';
export type { MapCoverage, UnresolvedCounts } from './map-types.js';
export { type MapRefKind, REF_KINDS } from './refs.js';
export type { MapBlock } from './walker.js';

export class ProgramMap {
  readonly functions: MapFunction[];
  /** Answers computed once per map (its coverage per tier, callers' views): see `memo`. */
  private readonly memos = new Map<string, unknown>();
  /** The calls of each block (indexes into the walk's calls), made on first use. */
  private callsByBlock: Map<number, number[]> | null = null;

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
    const functions = await functionRecords(built);
    built.summary ??= await summarize(built, set);
    return new ProgramMap(built, set, sha256, functions, built.summary);
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

  /**
   * `make()` once per map and key, then the same value: for what callers derive from the map alone
   * (never from a request's other inputs). A map never changes once built, so nothing goes stale; the
   * keys are the callers' own, a handful per map. The value is frozen (shared by every later answer).
   */
  memo<T>(key: string, make: () => T): T {
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const value = make();
    this.memos.set(key, typeof value === 'object' && value !== null ? Object.freeze(value) : value);
    return value;
  }

  /** The calls each function's body makes (blocks ascending, a block's calls in walk order). */
  callsMadeBy(fns: readonly MapFunction[]): MapCall[][] {
    const w = this.built.walker;
    if (this.callsByBlock === null) {
      const callsIn = new Map<number, number[]>();
      for (let i = 0; i < w.calls.length; i++) {
        const block = w.calls.get(i).block;
        const list = callsIn.get(block);
        if (list) list.push(i);
        else callsIn.set(block, [i]);
      }
      this.callsByBlock = callsIn;
    }
    const callsIn = this.callsByBlock;
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
  /** What the map covered down to `lowest`, and whether that is definitive (computed once per tier). */
  coverage(lowest: Tier): MapCoverage {
    return this.memo(`coverage:${lowest}`, () => {
      const c = this.computeCoverage(lowest);
      Object.freeze(c.unresolved);
      Object.freeze(c.notDefinitive);
      return c;
    });
  }

  private computeCoverage(lowest: Tier): MapCoverage {
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
