// The whole-program walk: recursive-descent decoding of every executable component of one processor,
// function by function, depth first (a callee is walked before the code after its call, so a call to a
// function that never returns is not followed by decoding whatever bytes come next: a literal pool,
// the next function). Each byte it decodes is classified once (code of a mode, or the literal pool a
// load names) with the tier of the function being walked; blocks end at calls, branches and returns;
// the idioms of idioms.ts decide what a BL or an indirect branch really is. Evidence classes see every
// block (hooks) and name the function entries; the walk only follows what they name.
// Pure: code comes from the components; bounded by the caller's budget (bytes of code, deadline).

import { literalSlotOf } from '../../arm/literal-pools.js';
import type { ArmMode, DecodedInstruction, DecodeWindowResult } from '../../arm/types.js';
import { throwIfCancelled } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import { type CallKind, CallStore, type MapCall } from './call-store.js';
import { Column } from './columns.js';
import type { ComponentSet, MapComponent } from './components.js';
import {
  baseOf,
  blockValue,
  decodeAt,
  decodeSpan,
  guardMax,
  guardOf,
  isDispatchHelper,
  lastCompare,
  mentionsRegister,
  readsLrEarly,
  registerList,
  regNumber,
  restoresForeignFrame,
  runSwitch,
  type SwitchGuard,
  stubRegister,
  veneerLanding,
} from './idioms.js';
import { RefStore } from './refs.js';
import { ByteClass, bodyOf, type EntryEvidence, headOf, TIER_RANK, TIERS, type Tier } from './types.js';

export type Term =
  | 'fallthrough'
  | 'branch'
  | 'conditional'
  | 'return'
  | 'indirect'
  | 'call'
  | 'switch'
  | 'end'
  | 'stop'
  | 'conflict';

/** Intra-function edges: what a function body is made of. Calls are not edges. */
export type EdgeKind = 'branch' | 'taken' | 'fallthrough' | 'return' | 'switch';
const EDGE_KINDS: readonly EdgeKind[] = ['branch', 'taken', 'fallthrough', 'return', 'switch'];

/**
 * Every block's successor edges in three growable columns (a list per block, in the order the
 * edges were made): a few bytes an edge instead of two small arrays a block.
 */
export class EdgeStore {
  private readonly to = new Column(Int32Array);
  private readonly kind = new Column(Uint8Array);
  private readonly next = new Column(Int32Array);
  size = 0;

  /** Appends `to` to the list starting at `head` (-1: empty) unless it is there; returns the head. */
  add(head: number, to: number, kind: EdgeKind): number {
    let last = -1;
    for (let e = head; e >= 0; e = this.next.get(e)) {
      if (this.to.get(e) === to) return head;
      last = e;
    }
    const e = this.size++;
    this.to.ensure(this.size);
    this.kind.ensure(this.size);
    this.next.ensure(this.size);
    this.to.set(e, to);
    this.kind.set(e, EDGE_KINDS.indexOf(kind));
    this.next.set(e, -1);
    if (last < 0) return e;
    this.next.set(last, e);
    return head;
  }

  /** The edge after `e` in its list, -1 at the end (with toOf: a walk over a list without allocating). */
  nextOf(e: number): number {
    return this.next.get(e);
  }

  /** The kind of edge `e`. */
  kindOf(e: number): EdgeKind {
    return EDGE_KINDS[this.kind.get(e)]!;
  }

  /** The target block of edge `e`. */
  toOf(e: number): number {
    return this.to.get(e);
  }

  /** The successors of a list, in order. */
  targets(head: number): number[] {
    const out: number[] = [];
    for (let e = head; e >= 0; e = this.next.get(e)) out.push(this.to.get(e));
    return out;
  }

  /** Each edge of a list: its target and kind. */
  forEach(head: number, visit: (to: number, kind: EdgeKind) => void): void {
    for (let e = head; e >= 0; e = this.next.get(e)) visit(this.to.get(e), EDGE_KINDS[this.kind.get(e)]!);
  }
}

const TERMS: readonly Term[] = [
  'fallthrough',
  'branch',
  'conditional',
  'return',
  'indirect',
  'call',
  'switch',
  'end',
  'stop',
  'conflict',
];
const TERM_CODE = new Map(TERMS.map((t, i) => [t, i]));

/** Grows a column to hold `size` entries (by half again: 10^5 blocks per MiB of code). */
function grown(a: Int32Array<ArrayBuffer>, size: number): Int32Array<ArrayBuffer> {
  if (size <= a.length) return a;
  const next = new Int32Array(Math.max(size, a.length + (a.length >>> 1)));
  next.set(a);
  return next;
}

/**
 * The walk's basic blocks, one column of small integers per field (there are 10^5 of them per MiB of
 * code: an object each would cost four times the bytes). The small facts (term, mode, tier, the
 * tail-veneer flag, the component) share one word; addresses are small integers (components lie below
 * 2^31: see components.ts). `get` hands out a view of one block that reads and writes the columns.
 */
export class BlockStore {
  /** Bits 0-3 term, 4 thumb, 5-6 tier, 7 tail veneer, 8 and up the component index. */
  bits: Int32Array<ArrayBuffer>;
  start: Int32Array<ArrayBuffer>;
  /** Exclusive. */
  end: Int32Array<ArrayBuffer>;
  /** The first of its successor edges in the walker's EdgeStore, -1 when none. */
  edges: Int32Array<ArrayBuffer>;
  /** The call this block ends with (term 'call'), as an index into the walker's calls; -1 when none. */
  call: Int32Array<ArrayBuffer>;
  /** Edges queued from this block whose target block is not made yet. */
  pendingOut: Int32Array<ArrayBuffer>;
  /** An unsigned compare + conditional branch ending a block bounds the index of a dispatch after it. */
  readonly guards = new Map<number, SwitchGuard>();
  length = 0;

  /**
   * `capacity`: the rows to make room for at once. Room no block uses costs address space, not
   * memory (the pages are never touched), and a store that never grows leaves no old copies behind.
   */
  constructor(capacity: number) {
    const n = Math.max(1024, capacity);
    this.bits = new Int32Array(n);
    this.start = new Int32Array(n);
    this.end = new Int32Array(n);
    this.edges = new Int32Array(n);
    this.call = new Int32Array(n);
    this.pendingOut = new Int32Array(n);
  }

  /** A new block (no edges, no call); returns its view. */
  add(comp: number, mode: ArmMode, start: number, end: number, tier: number, term: Term): MapBlock {
    const id = this.length++;
    if (id >= this.bits.length) {
      const n = this.length;
      this.bits = grown(this.bits, n);
      this.start = grown(this.start, n);
      this.end = grown(this.end, n);
      this.edges = grown(this.edges, n);
      this.call = grown(this.call, n);
      this.pendingOut = grown(this.pendingOut, n);
    }
    this.bits[id] = (comp << 8) | (tier << 5) | (mode === 'thumb' ? 16 : 0) | TERM_CODE.get(term)!;
    this.start[id] = start | 0;
    this.end[id] = end | 0;
    this.edges[id] = -1;
    this.call[id] = -1;
    this.pendingOut[id] = 0;
    return new MapBlock(this, id);
  }

  /** The first successor edge of block `id` in the walker's EdgeStore, -1 when none. */
  edgesOf(id: number): number {
    return this.edges[id]!;
  }

  /** The mode of block `id`. */
  modeOf(id: number): ArmMode {
    return this.bits[id]! & 16 ? 'thumb' : 'arm';
  }

  /** How block `id` ends and the tier of its code (for scans over every block without views). */
  termOf(id: number): Term {
    return TERMS[this.bits[id]! & 15]!;
  }
  tierOf(id: number): number {
    return (this.bits[id]! >>> 5) & 3;
  }

  /** Forgets the newest block (one that decoded nothing). */
  pop(): void {
    this.length--;
    this.guards.delete(this.length);
  }

  get(id: number): MapBlock {
    if (id < 0 || id >= this.length) throw new RangeError(`no block ${id}`);
    return new MapBlock(this, id);
  }

  *[Symbol.iterator](): IterableIterator<MapBlock> {
    for (let id = 0; id < this.length; id++) yield new MapBlock(this, id);
  }
}

/** One basic block of the walk: a view of its row in the BlockStore (compare blocks by id). */
export class MapBlock {
  constructor(
    private readonly s: BlockStore,
    readonly id: number,
  ) {}

  get start(): number {
    return this.s.start[this.id]!;
  }
  /** Exclusive. */
  get end(): number {
    return this.s.end[this.id]!;
  }
  set end(v: number) {
    this.s.end[this.id] = v | 0;
  }
  /** The first of its successor edges in the walker's EdgeStore, -1 when none. */
  get edges(): number {
    return this.s.edges[this.id]!;
  }
  set edges(v: number) {
    this.s.edges[this.id] = v;
  }
  /** The call this block ends with (term 'call'), as an index into the walker's calls. */
  get call(): number {
    return this.s.call[this.id]!;
  }
  set call(v: number) {
    this.s.call[this.id] = v;
  }
  /** A compare + conditional branch ending this block bounds the index of a dispatch after it. */
  get guard(): SwitchGuard | null {
    return this.s.guards.get(this.id) ?? null;
  }
  set guard(g: SwitchGuard | null) {
    if (g === null) this.s.guards.delete(this.id);
    else this.s.guards.set(this.id, g);
  }
  /** Edges queued from this block whose target block is not made yet. */
  get pendingOut(): number {
    return this.s.pendingOut[this.id]!;
  }
  set pendingOut(v: number) {
    this.s.pendingOut[this.id] = v;
  }
  get comp(): number {
    return this.s.bits[this.id]! >>> 8;
  }
  get mode(): ArmMode {
    return this.s.bits[this.id]! & 16 ? 'thumb' : 'arm';
  }
  get tier(): number {
    return (this.s.bits[this.id]! >>> 5) & 3;
  }
  get term(): Term {
    return TERMS[this.s.bits[this.id]! & 15]!;
  }
  set term(t: Term) {
    this.s.bits[this.id] = (this.s.bits[this.id]! & ~15) | TERM_CODE.get(t)!;
  }
  /** The block ends with an unconditional branch to a mode-switch veneer (a tail call of it). */
  get tailVeneer(): boolean {
    return (this.s.bits[this.id]! & 128) !== 0;
  }
  set tailVeneer(v: boolean) {
    const b = this.s.bits[this.id]!;
    this.s.bits[this.id] = v ? b | 128 : b & ~128;
  }
}

export interface MapEntry {
  key: string;
  comp: number;
  mode: ArmMode;
  address: number;
  evidence: EntryEvidence[];
  tier: number;
  state: 'new' | 'active' | 'done' | 'refused';
  /** Null until walked. */
  returns: boolean | null;
  block: number;
  /** Why the walk could not start here (the bytes are data or other code). */
  refused: string | null;
  /** Code walked as a root that is no function: code after a call that never returns (a landing pad). */
  orphan: boolean;
}

export interface EmitRequest {
  component: MapComponent;
  address: number;
  mode: ArmMode;
  class: string;
  /** The class's own tier; the entry's tier is the worse of it and the observing code's. */
  classTier: Tier;
  from?: number;
  fromComponent?: number;
  /** Walk the code as a root without naming a function (see MapEntry.orphan). */
  orphan?: boolean;
}

/** What an evidence class sees of one decoded block. */
export interface BlockView {
  readonly walker: Walker;
  readonly component: MapComponent;
  readonly block: MapBlock;
  readonly instructions: readonly DecodedInstruction[];
  readonly call: MapCall | null;
  /** The tier of the code being walked. */
  readonly tier: Tier;
  readonly processor: Processor;
  emit(request: Omit<EmitRequest, 'fromComponent'>): void;
}

export interface WalkHooks {
  onBlock(view: BlockView): void;
}

export interface WalkBudget {
  /** Bytes of code the walk may classify in all. */
  codeBytes: number;
  /** Date.now() past which the walk stops. */
  deadline: number;
  signal?: AbortSignal | undefined;
  onProgress?: ((done: number) => void) | undefined;
}

interface Pending {
  comp: number;
  mode: ArmMode;
  address: number;
  from: number;
  /** Null for the entry itself and for code walked without an edge (a call stub). */
  kind: EdgeKind | null;
  stub?: true;
}

interface Context {
  entry: MapEntry;
  tier: number;
  work: Pending[];
  /** Literal words this function's code has loaded so far (candidates for a spilled table address). */
  literals: number[];
}

interface Waiter {
  ctx: Context;
  item: Pending;
  call: MapCall;
}

/** The walk stopped at its budget: the map is partial and says so. */
export class WalkStopped extends Error {
  constructor(readonly reason: 'code-byte-limit' | 'time-limit') {
    super(reason);
  }
}

const unitOf = (mode: ArmMode) => (mode === 'arm' ? 4 : 2);
/** Instructions of probe runs kept for the walk at most (about a MB; 4x as many took 5% more runs, on 4 MiB). */
const PROBE_RUNS_MAX = 1 << 13;
/**
 * The block-index slot of `address` (aligned for its mode) in `comp`. Offsets are floored: a component
 * whose table puts it at an address unaligned for the mode still gives every aligned address a slot of
 * its own, never a fractional index.
 */
const slotOf = (comp: MapComponent, unit: number, address: number): number =>
  Math.floor((address - comp.start) / unit);
/** Literal words remembered per function walk, and spilled-table candidates tried per dispatch. */
const MAX_CONTEXT_LITERALS = 1024;
const MAX_TABLE_CANDIDATES = 64;
/** Instructions of a callee looked at for a read of LR before the dispatch-helper run. */
const HELPER_PREFIX = 8;
/** How far a spilled table's cases may lie from their dispatch. */
const CASE_REACH = 0x20000;
/** Evidence without a source (class and tier only), one frozen object per class and tier. */
const SOURCELESS = new Map<string, EntryEvidence>();
/**
 * One piece of evidence, made whole in one literal of its final shape: an object given its optional
 * fields after creation keeps them outside itself (one more allocation each, 10^5 of them).
 */
function evidenceOf(
  cls: string,
  tier: Tier,
  from: number | undefined,
  fromComponent: number | undefined,
): EntryEvidence {
  if (from === undefined) {
    if (fromComponent !== undefined) return { class: cls, tier, fromComponent };
    // Without a source, one shared object per class and tier (most entries carry two or three).
    const k = `${cls}|${tier}`;
    let shared = SOURCELESS.get(k);
    if (!shared) {
      shared = Object.freeze({ class: cls, tier });
      SOURCELESS.set(k, shared);
    }
    return shared;
  }
  return fromComponent === undefined ? { class: cls, tier, from } : { class: cls, tier, from, fromComponent };
}

/** Yes/no answers per component and placeKey. */
class PlaceMemo {
  private byComp: (Map<number, boolean> | undefined)[] = [];
  get(comp: number, key: number): boolean | undefined {
    return this.byComp[comp]?.get(key);
  }
  set(comp: number, key: number, value: boolean): void {
    let m = this.byComp[comp];
    if (m === undefined) {
      m = new Map();
      this.byComp[comp] = m;
    }
    m.set(key, value);
  }
  clear(): void {
    this.byComp = [];
  }
}

export const entryKey = (comp: number, mode: ArmMode, address: number) => `${comp}|${mode}|${address}`;
/** A place of code inside one component as a small integer (below 2^30 for DS addresses): address and mode. */
export const placeKey = (mode: ArmMode, address: number): number => address * 2 + (mode === 'thumb' ? 1 : 0);

export class Walker {
  /** Room for a block per 8 bytes of code at first (the kit's programs have one per 11). */
  readonly blocks: BlockStore;
  readonly edges = new EdgeStore();
  readonly entries = new Map<string, MapEntry>();
  /** The same entries per component, by placeKey (the walk's lookups make no key text). */
  private readonly places: Map<number, MapEntry>[] = [];
  readonly calls = new CallStore();
  readonly refs = new RefStore();
  /** Counters of what the walk met but could not follow. */
  readonly gaps = {
    indirectBranches: 0,
    indirectCalls: 0,
    conflicts: 0,
    decodeStops: 0,
    unresolvedSwitches: 0,
  };
  codeBytes = 0;
  private readonly starts = new Map<number, Int32Array>();
  private readonly queues: MapEntry[][] = [[], [], []];
  /** Per tier: how far walkTier has taken its queue (a head index, not shift(): queues grow to 10^5). */
  private readonly queueHeads = [0, 0, 0];
  private readonly waiters = new Map<string, Waiter[]>();
  /** Per component by placeKey: whether the routine there is a dispatch helper / restores a foreign frame. */
  private readonly helperCache = new PlaceMemo();
  private readonly frameCache = new PlaceMemo();
  private lastYield = Date.now();
  private ticks = 0;
  /** Split blocks: a block's id -> the tail that now owns its end (and its outgoing edges). */
  private readonly splitInto = new Map<number, number>();
  /** The item being processed (its predecessor bounds a dispatch in the new block). */
  private current: Pending | null = null;
  /**
   * Runs the probes decoded (see probeRun), per component by placeKey, until the walk decodes a block there: a
   * candidate that passes its probe is walked next, over the same code. Bounded by PROBE_RUNS_MAX
   * instructions (all dropped past it: a dropped run is decoded again, never changed).
   */
  private probeRuns: (Map<number, DecodeWindowResult> | undefined)[] = [];
  private probeRunInstructions = 0;

  constructor(
    readonly set: ComponentSet,
    readonly processor: Processor,
    /** The header entry point (in the main component), or null when there is none to walk. */
    readonly entryPoint: number | null,
    readonly hooks: WalkHooks,
    readonly budget: WalkBudget,
  ) {
    let bytes = 0;
    for (const c of set.list) bytes += c.bytes.length;
    this.blocks = new BlockStore(Math.ceil(bytes / 8));
  }

  /**
   * Classifies bytes a detector established (vector slots, table words) when they are still
   * unclassified; false when some byte already is something else.
   */
  classify(
    comp: MapComponent,
    address: number,
    size: number,
    what: 'arm' | 'thumb' | 'literal' | 'table' | 'string' | 'padding' | 'data',
    tier: Tier,
  ): boolean {
    if (!this.free(comp, address, size)) return false;
    const o = address - comp.start;
    const t = TIER_RANK[tier];
    if (what === 'arm' || what === 'thumb') {
      comp.cls[o] = headOf(what);
      comp.cls.fill(bodyOf(what), o + 1, o + size);
      this.codeBytes += size;
    } else {
      const code = {
        literal: ByteClass.literalPool,
        table: ByteClass.pointerTable,
        string: ByteClass.string,
        padding: ByteClass.padding,
        data: ByteClass.data,
      }[what];
      comp.cls.fill(code, o, o + size);
    }
    comp.tier.fill(t, o, o + size);
    return true;
  }

  component(index: number): MapComponent {
    return this.set.list[index]!;
  }

  /** The entry of `mode` code at `address` in component `comp`, if any (a lookup that makes no key text). */
  entryAt(comp: number, mode: ArmMode, address: number): MapEntry | undefined {
    return this.places[comp]?.get(placeKey(mode, address));
  }

  /** Adds a function entry (or evidence to a known one). Returns the entry, or null when refused. */
  addEntry(req: EmitRequest, sourceTier: Tier): MapEntry | null {
    const comp = req.component;
    const unit = unitOf(req.mode);
    if (req.address % unit !== 0 || req.address < comp.start || req.address >= comp.end) return null;
    const tier = Math.max(TIER_RANK[req.classTier], TIER_RANK[sourceTier]);
    let places = this.places[comp.index];
    if (places === undefined) {
      places = new Map();
      this.places[comp.index] = places;
    }
    const place = placeKey(req.mode, req.address);
    const known = places.get(place);
    if (known) {
      if (!this.hasEvidence(known, req.class, req.from)) {
        const ev = evidenceOf(req.class, TIERS[tier]!, req.from, req.fromComponent);
        // Short lists are remade at their exact size (a push leaves room for 16 more, and most
        // entries have two or three); long ones grow in place.
        if (known.evidence.length < 16) known.evidence = known.evidence.concat(ev);
        else known.evidence.push(ev);
      }
      if (tier < known.tier) known.tier = tier;
      if (!req.orphan) known.orphan = false;
      return known.state === 'refused' ? null : known;
    }
    const key = entryKey(comp.index, req.mode, req.address);
    const evidence = evidenceOf(req.class, TIERS[tier]!, req.from, req.fromComponent);
    const entry: MapEntry = {
      key,
      comp: comp.index,
      mode: req.mode,
      address: req.address | 0,
      evidence: [evidence],
      tier,
      state: 'new',
      returns: null,
      block: -1,
      refused: null,
      orphan: req.orphan === true,
    };
    this.entries.set(key, entry);
    places.set(place, entry);
    this.queues[tier]!.push(entry);
    return entry;
  }

  /** Per entry with many pieces of evidence: the class and source of each, to keep them distinct in O(1). */
  private readonly evidenceSeen = new Map<MapEntry, Set<string>>();

  private hasEvidence(e: MapEntry, cls: string, from: number | undefined): boolean {
    const list = e.evidence;
    if (list.length < 16) {
      for (let i = 0; i < list.length; i++) if (list[i]!.class === cls && list[i]!.from === from) return true;
      return false;
    }
    let seen = this.evidenceSeen.get(e);
    if (!seen) {
      seen = new Set(list.map((x) => `${x.class}@${x.from}`));
      this.evidenceSeen.set(e, seen);
    }
    const k = `${cls}@${from}`;
    if (seen.has(k)) return true;
    seen.add(k);
    return false;
  }

  /** Walks every queued entry of `tier` (and everything they reach) to a fixed point. */
  async walkTier(tier: number): Promise<void> {
    const queue = this.queues[tier]!;
    while (this.queueHeads[tier]! < queue.length) {
      const entry = queue[this.queueHeads[tier]!++]!;
      if (entry.state !== 'new') continue;
      await this.explore(entry);
    }
    queue.length = 0;
    this.queueHeads[tier] = 0;
  }

  /** Entries still waiting at tiers up to `tier`. */
  pending(tier: number): boolean {
    for (let t = 0; t <= tier; t++) {
      const queue = this.queues[t]!;
      for (let i = this.queueHeads[t]!; i < queue.length; i++) if (queue[i]!.state === 'new') return true;
    }
    return false;
  }

  /**
   * The walk's and the detectors' checkpoint, every 64 calls: cancellation and the deadline are checked
   * (WalkStopped, or the cancellation error), and past 15 ms since the last yield, progress is reported
   * and a promise returned that lets the event loop run (a cancellation arrives that way). Undefined
   * when there is nothing to wait for: the caller awaits only then (most calls cost a counter).
   */
  checkpoint(): Promise<void> | undefined {
    if ((++this.ticks & 63) !== 0) return undefined;
    throwIfCancelled(this.budget.signal);
    const now = Date.now();
    if (now > this.budget.deadline) throw new WalkStopped('time-limit');
    if (now - this.lastYield <= 15) return undefined;
    this.budget.onProgress?.(this.codeBytes);
    return new Promise<void>((resolve) => {
      setImmediate(() => {
        this.lastYield = Date.now();
        resolve();
      });
    });
  }

  private async explore(first: MapEntry): Promise<void> {
    const stack: Context[] = [];
    const start = (e: MapEntry): boolean => {
      const comp = this.component(e.comp);
      const cls = comp.cls[e.address - comp.start]!;
      if (cls !== ByteClass.unknown && cls !== headOf(e.mode)) {
        e.state = 'refused';
        e.refused = `the bytes at the entry are ${cls === headOf(e.mode === 'arm' ? 'thumb' : 'arm') ? 'code of the other mode' : 'not code'}`;
        this.release(e);
        return false;
      }
      e.state = 'active';
      stack.push({
        entry: e,
        tier: e.tier,
        work: [{ comp: e.comp, mode: e.mode, address: e.address, from: -1, kind: null }],
        literals: [],
      });
      return true;
    };
    if (!start(first)) return;
    while (stack.length > 0) {
      const pause = this.checkpoint();
      if (pause) await pause;
      const ctx = stack[stack.length - 1]!;
      const item = ctx.work.shift();
      if (!item) {
        stack.pop();
        this.finish(ctx.entry);
        continue;
      }
      const callee = this.step(ctx, item);
      if (callee) start(callee);
    }
  }

  /** A finished (or refused) entry: whether it may return, and the continuations that waited on it. */
  private finish(e: MapEntry): void {
    e.state = 'done';
    e.returns = e.block < 0 ? true : this.mayReturn(e.block);
    this.release(e);
  }

  private release(e: MapEntry): void {
    const waiting = this.waiters.get(e.key);
    if (!waiting) return;
    this.waiters.delete(e.key);
    for (const w of waiting) {
      if (e.returns !== false) {
        w.call.continuation = 'walked';
        w.ctx.work.push(w.item);
        this.blocks.get(this.owner(w.item.from)).pendingOut++;
      } else w.call.continuation = 'none';
    }
  }

  /** Whether some path from `block` reaches a return (or anything the walk cannot see the end of). */
  private mayReturn(block: number): boolean {
    const seen = new Set<number>([block]);
    const work = [block];
    while (work.length > 0) {
      const b = this.blocks.get(work.pop()!);
      if (b.pendingOut > 0) return true;
      switch (b.term) {
        case 'return':
        case 'indirect':
        case 'stop':
        case 'end':
        case 'conflict':
          return true;
        case 'call': {
          const c = this.calls.get(b.call);
          if (c.continuation === 'pending') return true;
          break;
        }
        default:
          break;
      }
      for (const s of this.edges.targets(b.edges)) {
        if (!seen.has(s)) {
          seen.add(s);
          work.push(s);
        }
      }
    }
    return false;
  }

  /**
   * The component's block starts: block id + 1 per halfword slot (0: none). One index serves both
   * modes: a byte is the head of code of one mode only, so blocks of the two modes never share a
   * start; readers check the mode of what they find.
   */
  private index(comp: MapComponent): Int32Array {
    let idx = this.starts.get(comp.index);
    if (!idx) {
      idx = new Int32Array(Math.ceil(comp.bytes.length / 2));
      this.starts.set(comp.index, idx);
    }
    return idx;
  }

  /** The block of `mode` code ending exactly at `address` (the nearest block start below it), if any. */
  blockEndingAt(comp: MapComponent, mode: ArmMode, address: number): MapBlock | null {
    const unit = unitOf(mode);
    const idx = this.index(comp);
    for (let at = address - unit; at >= comp.start && address - at <= 0x4000; at -= unit) {
      const id = idx[slotOf(comp, 2, at)] ?? 0;
      if (id === 0 || this.blocks.modeOf(id - 1) !== mode) continue;
      const b = this.blocks.get(id - 1);
      return b.end === address ? b : null;
    }
    return null;
  }

  /** The block starting at `address`, if any. */
  blockAt(comp: MapComponent, mode: ArmMode, address: number): MapBlock | null {
    const id = this.index(comp)[slotOf(comp, 2, address)] ?? 0;
    if (id === 0 || this.blocks.modeOf(id - 1) !== mode) return null;
    const b = this.blocks.get(id - 1);
    return b.start === address ? b : null;
  }

  /** The block that owns what `id` ended with before any split. */
  private owner(id: number): number {
    let b = id;
    for (let next = this.splitInto.get(b); next !== undefined; next = this.splitInto.get(b)) b = next;
    return b;
  }

  private link(from: number, to: number, kind: EdgeKind | null): void {
    if (from < 0 || kind === null) return;
    const f = this.blocks.get(this.owner(from));
    f.edges = this.edges.add(f.edges, to, kind);
  }

  /**
   * The code from `address` in `mode` up to its first PC write (at most 64 instructions), as a probe
   * reads it: kept for the walk that follows an accepted probe (decodeBlock takes it). None outside
   * the component or at an address unaligned for the mode.
   */
  probeRun(comp: MapComponent, address: number, mode: ArmMode): readonly DecodedInstruction[] {
    if (address < comp.start || address >= comp.end || address % unitOf(mode) !== 0) return [];
    const key = placeKey(mode, address);
    let runs = this.probeRuns[comp.index];
    const kept = runs?.get(key);
    if (kept) return kept.instructions;
    const r = decodeSpan(comp, address, mode, this.processor, 64, true);
    if (this.probeRunInstructions + r.instructions.length > PROBE_RUNS_MAX) {
      this.probeRuns = [];
      this.probeRunInstructions = 0;
      runs = undefined;
    }
    if (runs === undefined) {
      runs = new Map();
      this.probeRuns[comp.index] = runs;
    }
    runs.set(key, r);
    this.probeRunInstructions += r.instructions.length;
    return r.instructions;
  }

  /** The probe's run at `address`, forgotten once taken (a block is decoded once). */
  private takeRun(comp: MapComponent, address: number, mode: ArmMode): DecodeWindowResult | undefined {
    const runs = this.probeRuns[comp.index];
    if (runs === undefined || runs.size === 0) return undefined;
    const key = placeKey(mode, address);
    const r = runs.get(key);
    if (r === undefined) return undefined;
    runs.delete(key);
    this.probeRunInstructions -= r.instructions.length;
    return r;
  }

  /** Processes one pending item; returns an entry to walk first (depth first) when a call needs it. */
  private step(ctx: Context, item: Pending): MapEntry | null {
    if (item.from >= 0) this.blocks.get(this.owner(item.from)).pendingOut--;
    this.current = item;
    const isEntry = item.kind === null && !item.stub;
    const comp = this.component(item.comp);
    const existing = this.blockAt(comp, item.mode, item.address);
    if (existing) {
      this.link(item.from, existing.id, item.kind);
      if (isEntry && ctx.entry.block < 0) ctx.entry.block = existing.id;
      return null;
    }
    const o = item.address - comp.start;
    const cls = comp.cls[o]!;
    if (cls === headOf(item.mode)) {
      const tail = this.split(comp, item.mode, item.address);
      if (tail) {
        this.link(item.from, tail.id, item.kind);
        if (isEntry && ctx.entry.block < 0) ctx.entry.block = tail.id;
      } else this.gaps.conflicts++;
      return null;
    }
    if (cls !== ByteClass.unknown) {
      this.gaps.conflicts++;
      return null;
    }
    const decoded = this.decodeBlock(ctx, comp, item);
    if (!decoded) return null;
    const { block, instructions } = decoded;
    if (isEntry && ctx.entry.block < 0) ctx.entry.block = block.id;
    this.link(item.from, block.id, item.kind);
    return this.finishBlock(ctx, comp, block, instructions);
  }

  private split(comp: MapComponent, mode: ArmMode, address: number): MapBlock | null {
    const unit = unitOf(mode);
    const idx = this.index(comp);
    for (let at = address - unit; at >= comp.start && address - at <= 0x10000; at -= unit) {
      const id = idx[slotOf(comp, 2, at)] ?? 0;
      if (id === 0 || this.blocks.modeOf(id - 1) !== mode) continue;
      const head = this.blocks.get(id - 1);
      if (head.end <= address) return null;
      const tail = this.blocks.add(comp.index, mode, address, head.end, head.tier, head.term);
      tail.edges = head.edges;
      tail.call = head.call;
      tail.guard = head.guard;
      tail.pendingOut = head.pendingOut;
      tail.tailVeneer = head.tailVeneer;
      idx[slotOf(comp, 2, address)] = tail.id + 1;
      if (tail.call >= 0) this.calls.get(tail.call).block = tail.id;
      head.end = address | 0;
      head.term = 'fallthrough';
      head.edges = this.edges.add(-1, tail.id, 'fallthrough');
      head.call = -1;
      head.guard = null;
      head.pendingOut = 0;
      head.tailVeneer = false;
      // Queued edges recorded `from` the head now leave the tail: keep the chain head -> tail -> the
      // head's former tail, so owner() finds the last piece.
      const former = this.splitInto.get(head.id);
      if (former !== undefined) this.splitInto.set(tail.id, former);
      this.splitInto.set(head.id, tail.id);
      return tail;
    }
    return null;
  }

  private mark(
    comp: MapComponent,
    address: number,
    size: number,
    head: number,
    body: number,
    tier: number,
  ): void {
    const o = address - comp.start;
    comp.cls[o] = head;
    comp.tier[o] = tier;
    for (let i = 1; i < size; i++) {
      comp.cls[o + i] = body;
      comp.tier[o + i] = tier;
    }
    this.codeBytes += size;
    if (this.codeBytes > this.budget.codeBytes) throw new WalkStopped('code-byte-limit');
  }

  private free(comp: MapComponent, address: number, size: number): boolean {
    const o = address - comp.start;
    if (o < 0 || o + size > comp.bytes.length) return false;
    for (let i = 0; i < size; i++) if (comp.cls[o + i] !== ByteClass.unknown) return false;
    return true;
  }

  private decodeBlock(
    ctx: Context,
    comp: MapComponent,
    item: Pending,
  ): { block: MapBlock; instructions: DecodedInstruction[] } | null {
    const mode = item.mode;
    const idx = this.index(comp);
    const tier = ctx.tier;
    const block = this.blocks.add(comp.index, mode, item.address, item.address, tier, 'end');
    idx[slotOf(comp, 2, item.address)] = block.id + 1;
    const instructions: DecodedInstruction[] = [];
    let at = item.address;
    let window = 8;
    const head = headOf(mode);
    const body = bodyOf(mode);
    const fall = (to: number) => {
      block.term = 'fallthrough';
      this.edge(ctx, block, comp, mode, to, 'fallthrough');
    };
    for (;;) {
      if (at >= comp.end) {
        block.term = 'end';
        break;
      }
      if (at !== item.address && this.stopsBefore(comp, mode, at)) {
        if (comp.cls[at - comp.start] === head) fall(at);
        else {
          block.term = 'conflict';
          this.gaps.conflicts++;
        }
        break;
      }
      const r = this.takeRun(comp, at, mode) ?? decodeSpan(comp, at, mode, this.processor, window, true);
      window = Math.min(64, window * 2);
      let ended = false;
      for (const ins of r.instructions) {
        if (ins.address !== item.address && this.stopsBefore(comp, mode, ins.address)) {
          if (comp.cls[ins.address - comp.start] === head) fall(ins.address);
          else {
            block.term = 'conflict';
            this.gaps.conflicts++;
          }
          ended = true;
          break;
        }
        if (!this.free(comp, ins.address, ins.size)) {
          block.term = 'conflict';
          this.gaps.conflicts++;
          ended = true;
          break;
        }
        this.mark(comp, ins.address, ins.size, head, body, tier);
        instructions.push(ins);
        block.end = (ins.address + ins.size) | 0;
        this.references(comp, block, ins, tier, ctx);
        if (ins.flow !== undefined && this.flow(ctx, comp, block, instructions, ins)) {
          ended = true;
          break;
        }
      }
      if (ended) break;
      if (r.stop) {
        block.term = r.stop.reason === 'truncated-instruction' && block.end >= comp.end ? 'end' : 'stop';
        if (block.term === 'stop') this.gaps.decodeStops++;
        break;
      }
      if (r.instructions.length === 0) {
        block.term = 'stop';
        this.gaps.decodeStops++;
        break;
      }
      at = block.end;
    }
    if (instructions.length === 0) {
      // Nothing decoded at the start: no block after all.
      this.blocks.pop();
      idx[slotOf(comp, 2, item.address)] = 0;
      if (block.term !== 'conflict') this.gaps.decodeStops++;
      return null;
    }
    return { block, instructions };
  }

  /** Whether decoding must stop before `address`: a block starts there or the byte is classified. */
  private stopsBefore(comp: MapComponent, mode: ArmMode, address: number): boolean {
    return this.blockAt(comp, mode, address) !== null || comp.cls[address - comp.start] !== ByteClass.unknown;
  }

  /** Queues an intra-function edge to `target` (resolved across components when it leaves `comp`). */
  private edge(
    ctx: Context,
    block: MapBlock,
    comp: MapComponent,
    mode: ArmMode,
    target: number,
    kind: EdgeKind,
  ): void {
    if (target % unitOf(mode) !== 0) return;
    let where = comp;
    if (target < comp.start || target >= comp.end) {
      const found = this.set.lookup(target, comp);
      if (!('component' in found)) return;
      where = found.component;
    }
    block.pendingOut++;
    ctx.work.push({ comp: where.index, mode, address: target, from: block.id, kind });
  }

  private references(
    comp: MapComponent,
    block: MapBlock,
    ins: DecodedInstruction,
    tier: number,
    ctx: Context,
  ): void {
    const t = TIERS[tier]!;
    const conditional = ins.condition !== undefined;
    if (ins.flow === 'branch' && ins.target !== undefined) {
      this.refs.add({
        from: ins.address,
        to: ins.target,
        kind: 'direct-branch',
        component: comp.index,
        mode: block.mode,
        tier: t,
        conditional,
      });
    }
    if (ins.pcRelative) {
      this.refs.add({
        from: ins.address,
        to: ins.pcRelative.address,
        kind: ins.pcRelative.kind,
        component: comp.index,
        mode: block.mode,
        tier: t,
        conditional,
      });
    }
    const slot = literalSlotOf(ins);
    if (slot === null) return;
    const o = slot - comp.start;
    if (o < 0 || o + 4 > comp.bytes.length) return;
    const value =
      (comp.bytes[o]! |
        (comp.bytes[o + 1]! << 8) |
        (comp.bytes[o + 2]! << 16) |
        (comp.bytes[o + 3]! << 24)) >>>
      0;
    if (ctx.literals.length < MAX_CONTEXT_LITERALS) ctx.literals.push(value);
    // The word as stored; a query for a Thumb function also matches its address + 1.
    this.refs.add({
      from: ins.address,
      to: value,
      kind: 'literal-value',
      component: comp.index,
      mode: block.mode,
      tier: t,
      extra: slot,
      conditional,
    });
    if (this.free(comp, slot, 4)) {
      comp.cls.fill(ByteClass.literalPool, o, o + 4);
      comp.tier.fill(tier, o, o + 4);
    }
  }

  /** Applies one control-flow instruction; true when it ends the block. */
  private flow(
    ctx: Context,
    comp: MapComponent,
    block: MapBlock,
    instructions: DecodedInstruction[],
    ins: DecodedInstruction,
  ): boolean {
    const mode = block.mode;
    const next = ins.address + ins.size;
    const i = instructions.length - 1;
    switch (ins.flow) {
      case 'call':
        block.term = 'call';
        block.call = this.newCall(comp, block, ins, 'direct', ins.target!, ins.targetMode!);
        return true;
      case 'call-indirect':
        block.term = 'call';
        block.call = this.newCall(comp, block, ins, 'register', null, null);
        this.calls.get(block.call).register = ins.operands.trim();
        return true;
      case 'branch':
        if (ins.condition) {
          block.term = 'conditional';
          const cmp = lastCompare(instructions, i);
          const guard = guardOf(cmp, ins.condition);
          // Kept only when it bounds one of the two paths (an unsigned compare): no other is ever read.
          if (
            guard &&
            cmp &&
            (guardMax(guard, true) !== null || guardMax(guard, false) !== null) &&
            !mentionsRegister(instructions, instructions.indexOf(cmp) + 1, i, guard.register)
          )
            block.guard = guard;
          this.edge(ctx, block, comp, ins.targetMode!, ins.target!, 'taken');
          if (next < comp.end) this.edge(ctx, block, comp, mode, next, 'fallthrough');
        } else {
          block.term = 'branch';
          block.tailVeneer = this.veneerTarget(comp, ins.target!, ins.targetMode!);
          this.edge(ctx, block, comp, ins.targetMode!, ins.target!, 'branch');
        }
        return true;
      case 'return':
        block.term = 'return';
        if (ins.condition && next < comp.end) this.edge(ctx, block, comp, mode, next, 'fallthrough');
        return true;
      default:
        return this.indirectBranch(ctx, comp, block, instructions, ins);
    }
  }

  /** Whether the instruction at `address` saves LR on the stack: a function's first act. */
  private prologueAt(comp: MapComponent, address: number, mode: ArmMode): boolean {
    if (
      comp.cls[address - comp.start] !== ByteClass.unknown &&
      comp.cls[address - comp.start] !== headOf(mode)
    )
      return false;
    const [ins] = decodeAt(comp, address, mode, this.processor, 1);
    if (!ins || ins.condition) return false;
    const base = baseOf(ins);
    if (base !== 'push' && !((base === 'stmdb' || base === 'stmfd') && ins.operands.startsWith('sp!')))
      return false;
    return registerList(ins.operands)?.includes(14) === true;
  }

  /** Whether `target` is a mode-switch veneer (its first bytes have the shape, and veneerLanding agrees). */
  private veneerTarget(comp: MapComponent, target: number, mode: ArmMode): boolean {
    const found = this.set.lookup(target, comp);
    if (!('component' in found)) return false;
    const c = found.component;
    const o = target - c.start;
    const b = c.bytes;
    if (o < 0 || o + 4 > b.length) return false;
    const word = (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
    const shaped =
      mode === 'thumb'
        ? (word & 0xffff) === 0x4778
        : (word & 0xfffff000) >>> 0 === 0xe59fc000 || word === 0xe51ff004;
    return shaped && veneerLanding(this.set, c, target, mode, this.processor) !== null;
  }

  private newCall(
    comp: MapComponent,
    block: MapBlock,
    ins: DecodedInstruction,
    kind: CallKind,
    target: number | null,
    targetMode: ArmMode | null,
  ): number {
    return this.calls.add({
      at: ins.address | 0,
      comp: comp.index,
      mode: block.mode,
      tier: block.tier,
      kind,
      target,
      targetMode,
      conditional: ins.condition !== undefined,
      block: block.id,
    });
  }

  private indirectBranch(
    ctx: Context,
    comp: MapComponent,
    block: MapBlock,
    instructions: DecodedInstruction[],
    ins: DecodedInstruction,
  ): boolean {
    const mode = block.mode;
    const i = instructions.length - 1;
    const base = baseOf(ins);
    const prev = instructions[i - 1];
    const next = ins.address + ins.size;
    // MOV LR, PC right before a PC write (ARM): LR is the next instruction, so this is a call.
    if (
      mode === 'arm' &&
      prev &&
      baseOf(prev) === 'mov' &&
      !prev.condition &&
      prev.operands.replace(/\s/g, '') === 'lr,pc'
    ) {
      block.term = 'call';
      block.call = this.newCall(comp, block, ins, 'register', null, null);
      const c = this.calls.get(block.call);
      c.register = base === 'bx' || base === 'mov' ? (ins.operands.split(',').pop() ?? '').trim() : null;
      return true;
    }
    // Thumb BX PC: to ARM at the next word.
    if (mode === 'thumb' && base === 'bx' && ins.operands.trim() === 'pc' && !ins.condition) {
      block.term = 'branch';
      // From a word-aligned BX PC the halfword after it is skipped (ARM resumes at the next word).
      if (ins.address % 4 === 0) this.classify(comp, ins.address + 2, 2, 'padding', TIERS[block.tier]!);
      this.edge(ctx, block, comp, 'arm', (ins.address + 4) & ~3, 'branch');
      return true;
    }
    // ARM BX PC: to ARM at the instruction + 8 (the word after it is skipped).
    if (mode === 'arm' && base === 'bx' && ins.operands.trim() === 'pc' && !ins.condition) {
      block.term = 'branch';
      this.classify(comp, ins.address + 4, 4, 'padding', TIERS[block.tier]!);
      this.edge(ctx, block, comp, 'arm', ins.address + 8, 'branch');
      return true;
    }
    // LDR PC, [PC, #k] (ARM): to the literal word.
    if (
      mode === 'arm' &&
      base === 'ldr' &&
      ins.pcRelative?.kind === 'literal-pool' &&
      ins.operands.startsWith('pc,') &&
      !ins.condition
    ) {
      const o = ins.pcRelative.address - comp.start;
      if (o >= 0 && o + 4 <= comp.bytes.length) {
        const w =
          (comp.bytes[o]! |
            (comp.bytes[o + 1]! << 8) |
            (comp.bytes[o + 2]! << 16) |
            (comp.bytes[o + 3]! << 24)) >>>
          0;
        block.term = 'branch';
        const thumb = (w & 1) === 1 && this.processor === 'arm9';
        this.edge(ctx, block, comp, thumb ? 'thumb' : 'arm', thumb ? w - 1 : w & ~3, 'branch');
        return true;
      }
    }
    // A switch dispatch bounded by a compare: in this block (ARM LDRLS/ADDLS PC) or before it.
    if (this.trySwitch(ctx, comp, block, instructions, ins, null)) return true;
    // BX Rn whose value the block itself computes (an address built from PC): a branch there, in
    // the mode its bit 0 names (a mode switch inside one routine).
    if (base === 'bx' && !ins.condition) {
      const reg = regNumber(ins.operands.trim());
      const value =
        reg !== null && reg <= 12
          ? blockValue(this.set, comp, this.processor, mode, block.start, ins.address, reg)
          : null;
      if (value !== null && this.pcRelativeIn(instructions)) {
        const thumb = (value & 1) === 1;
        const target = (thumb ? value - 1 : value & ~3) >>> 0;
        const found = this.set.lookup(target, comp);
        if ('component' in found) {
          block.term = 'branch';
          this.edge(ctx, block, comp, thumb ? 'thumb' : 'arm', target, 'branch');
          return true;
        }
      }
    }
    block.term = 'indirect';
    this.gaps.indirectBranches++;
    if (ins.condition && next < comp.end) this.edge(ctx, block, comp, mode, next, 'fallthrough');
    return true;
  }

  /**
   * The bound of a dispatch ending this block: its own compare (ARM LDRLS/ADDLS PC), or the compare of
   * the block whose conditional branch led here (taken or not, by the branch's condition).
   */
  private guardFor(
    block: MapBlock,
    instructions: DecodedInstruction[],
    ins: DecodedInstruction,
  ): { guard: { register: number; max: number }; start: number } | null {
    const i = instructions.indexOf(ins);
    if (ins.condition) {
      const cmp = lastCompare(instructions, i);
      const g = guardOf(cmp, ins.condition);
      // The dispatch runs when its own condition holds: like the taken path of a branch on it.
      const max = g ? guardMax(g, true) : null;
      if (
        g &&
        cmp &&
        max !== null &&
        !mentionsRegister(instructions, instructions.indexOf(cmp) + 1, i, g.register)
      )
        return { guard: { register: g.register, max }, start: cmp.address };
      return null;
    }
    const item = this.current;
    if (
      !item ||
      (item.kind !== 'fallthrough' && item.kind !== 'taken') ||
      item.from < 0 ||
      item.address !== block.start
    )
      return null;
    const pred = this.blocks.get(this.owner(item.from));
    if (!pred.guard || pred.term !== 'conditional') return null;
    const max = guardMax(pred.guard, item.kind === 'taken');
    return max === null ? null : { guard: { register: pred.guard.register, max }, start: block.start };
  }

  private trySwitch(
    ctx: Context,
    comp: MapComponent,
    block: MapBlock,
    instructions: DecodedInstruction[],
    ins: DecodedInstruction,
    helper: { start: number; end: number } | null,
  ): boolean {
    const g = this.guardFor(block, instructions, ins);
    if (!g) return false;
    const r = runSwitch(
      this.set,
      comp,
      this.processor,
      block.mode,
      g.start,
      ins.address + ins.size,
      g.guard,
      helper,
    );
    if (!r) {
      if (this.spilledTable(ctx, comp, block, ins, g)) return true;
      this.gaps.unresolvedSwitches++;
      return false;
    }
    block.term = 'switch';
    // The table: bytes the dispatch read as data that nothing else claims, plus alignment padding
    // between a table right after the dispatch and the first case.
    const table = r.tableBytes.filter((a) => comp.cls[a - comp.start] === ByteClass.unknown);
    for (const a of table) {
      comp.cls[a - comp.start] = ByteClass.jumpTable;
      comp.tier[a - comp.start] = block.tier;
    }
    if (table.length > 0) {
      const last = table[table.length - 1]!;
      const after = r.targets.map((t) => t.address).filter((a) => a > last);
      const first = after.length > 0 ? Math.min(...after) : last + 1;
      for (let a = last + 1; a < first && a - last < 4; a++) {
        if (comp.cls[a - comp.start] === ByteClass.unknown) {
          comp.cls[a - comp.start] = ByteClass.jumpTable;
          comp.tier[a - comp.start] = block.tier;
        }
      }
    }
    const t = TIERS[block.tier]!;
    if (ins.condition && ins.address + ins.size < comp.end)
      this.edge(ctx, block, comp, block.mode, ins.address + ins.size, 'fallthrough');
    const seen = new Set<string>();
    for (const target of r.targets) {
      this.refs.add({
        from: ins.address,
        to: target.address,
        kind: 'switch-case',
        component: comp.index,
        mode: block.mode,
        tier: t,
      });
      const key = `${target.mode}:${target.address}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.edge(ctx, block, comp, target.mode, target.address, 'switch');
    }
    return true;
  }

  /**
   * A dispatch whose table address the function spilled to its stack before (newlib's vfprintf):
   * among the literal words this function loaded, the one address that, held in the stack, makes
   * every index land on code of this component near the dispatch is the table. A heuristic
   * resolution: the table is classified at the heuristic tier, its cases are walked there (as code
   * of no new function) and joined to the function's body when the map is finished.
   */
  private spilledTable(
    ctx: Context,
    comp: MapComponent,
    block: MapBlock,
    ins: DecodedInstruction,
    g: { guard: { register: number; max: number }; start: number },
  ): boolean {
    const found: { word: number; r: NonNullable<ReturnType<typeof runSwitch>> }[] = [];
    const tried = new Set<number>();
    for (let i = ctx.literals.length - 1; i >= 0 && tried.size < MAX_TABLE_CANDIDATES; i--) {
      const w = ctx.literals[i]!;
      if (tried.has(w) || w % 4 !== 0 || w < comp.start || w + 4 * (g.guard.max + 1) > comp.end) continue;
      tried.add(w);
      const r = runSwitch(
        this.set,
        comp,
        this.processor,
        block.mode,
        g.start,
        ins.address + ins.size,
        g.guard,
        null,
        w,
      );
      if (!r || r.targets.some((t) => Math.abs(t.address - ins.address) > CASE_REACH)) continue;
      found.push({ word: w, r });
    }
    if (found.length !== 1) return false;
    const { r } = found[0]!;
    block.term = 'switch';
    for (const a of r.tableBytes) {
      if (comp.cls[a - comp.start] === ByteClass.unknown) {
        comp.cls[a - comp.start] = ByteClass.jumpTable;
        comp.tier[a - comp.start] = TIER_RANK.heuristic;
      }
    }
    const seen = new Set<string>();
    for (const target of r.targets) {
      this.refs.add({
        from: ins.address,
        to: target.address,
        kind: 'switch-case',
        component: comp.index,
        mode: block.mode,
        tier: 'heuristic',
      });
      const key = `${target.mode}:${target.address}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.addEntry(
        {
          component: comp,
          address: target.address,
          mode: target.mode,
          class: 'sweep',
          classTier: 'heuristic',
          from: ins.address,
          orphan: true,
        },
        'heuristic',
      );
      this.lateEdges.push({ from: block.id, comp: comp.index, mode: target.mode, address: target.address });
      block.pendingOut++;
    }
    if (ins.condition && ins.address + ins.size < comp.end)
      this.edge(ctx, block, comp, block.mode, ins.address + ins.size, 'fallthrough');
    return true;
  }

  /** Whether the block builds an address from PC (ADR / ADD Rd, PC): a computed branch from it is local. */
  private pcRelativeIn(instructions: DecodedInstruction[]): boolean {
    return instructions.some((i) => i.pcRelative?.kind === 'pc-relative-address');
  }

  /** Switch edges resolved heuristically, joined once their blocks exist (materializeLateEdges). */
  private readonly lateEdges: { from: number; comp: number; mode: ArmMode; address: number }[] = [];

  /**
   * Drops what only the walk needs (its caches, the switch guards, the split chain): called once the
   * walk and its late edges are done, so the finished map does not carry them.
   */
  releaseWalkState(): void {
    this.helperCache.clear();
    this.frameCache.clear();
    this.evidenceSeen.clear();
    this.splitInto.clear();
    this.blocks.guards.clear();
    this.probeRuns = [];
    this.probeRunInstructions = 0;
  }

  /** Joins the heuristic switch cases to their dispatch blocks (before function bodies are made). */
  materializeLateEdges(): void {
    for (const e of this.lateEdges.splice(0)) {
      const from = this.blocks.get(this.owner(e.from));
      from.pendingOut = Math.max(0, from.pendingOut - 1);
      const to = this.blockAt(this.component(e.comp), e.mode, e.address);
      if (to) this.link(from.id, to.id, 'switch');
    }
  }

  /** After decoding: resolve the block's call, show the block to the evidence classes, continue. */
  private finishBlock(
    ctx: Context,
    comp: MapComponent,
    block: MapBlock,
    instructions: DecodedInstruction[],
  ): MapEntry | null {
    const call = block.call >= 0 ? this.calls.get(block.call) : null;
    let noContinuation = false;
    if (call) noContinuation = this.resolveCall(ctx, comp, block, instructions, call);
    const tier = TIERS[ctx.tier]!;
    const view: BlockView = {
      walker: this,
      component: comp,
      block,
      instructions,
      // (A switch helper's call ends a 'switch' block: the helper is still a routine the BL calls.)
      call: block.term === 'call' || call?.kind === 'helper' ? call : null,
      tier,
      processor: this.processor,
      emit: (req) => {
        // One literal of EmitRequest's shape (a spread makes an object of another shape per caller).
        this.addEntry(
          {
            component: req.component,
            address: req.address,
            mode: req.mode,
            class: req.class,
            classTier: req.classTier,
            from: req.from,
            fromComponent: comp.index,
            orphan: req.orphan,
          },
          tier,
        );
      },
    };
    this.hooks.onBlock(view);
    if (call && call.kind !== 'register') {
      // Every BL/BLX with a target is a direct call of what it names (a veneer, stub or helper too).
      this.refs.add({
        from: call.at,
        to: call.via ?? call.target!,
        kind: 'direct-call',
        component: comp.index,
        mode: block.mode,
        tier,
        conditional: call.conditional,
      });
    }
    if (call && (call.kind === 'register' || call.kind === 'stub') && call.target !== null) {
      this.refs.add({
        from: call.at,
        to: call.target,
        kind: 'constant-register-call',
        component: comp.index,
        mode: block.mode,
        tier,
        conditional: call.conditional,
      });
    }
    if (!call || block.term !== 'call') return null;
    if (noContinuation) {
      call.continuation = 'none';
      return null;
    }
    const item: Pending = {
      comp: comp.index,
      mode: block.mode,
      address: block.end,
      from: block.id,
      kind: 'return',
    };
    if (block.end >= comp.end || (!call.conditional && this.prologueAt(comp, block.end, block.mode))) {
      // Past the end, or a function's prologue right after the call: whatever was called does not
      // come back here (code never runs on into another function's frame set-up).
      call.continuation = 'none';
      return null;
    }
    const callee =
      call.target !== null && call.targetComp !== null
        ? this.entryAt(call.targetComp, call.targetMode!, call.target)
        : undefined;
    // A conditional call may not happen: the code after it runs either way.
    if (
      call.conditional ||
      !callee ||
      callee.state === 'active' ||
      callee.state === 'refused' ||
      (callee.state === 'done' && callee.returns !== false)
    ) {
      call.continuation = 'walked';
      block.pendingOut++;
      ctx.work.push(item);
      return null;
    }
    if (callee.state === 'done') {
      call.continuation = 'none';
      return null;
    }
    const list = this.waiters.get(callee.key) ?? [];
    list.push({ ctx, item, call });
    this.waiters.set(callee.key, list);
    return callee;
  }

  /**
   * Classifies the call ending `block` (long branch, stub, helper, veneer, register) and resolves its
   * effective target. True when no code follows the call (a switch helper, a long branch).
   */
  private resolveCall(
    ctx: Context,
    comp: MapComponent,
    block: MapBlock,
    instructions: DecodedInstruction[],
    call: MapCall,
  ): boolean {
    const ins = instructions[instructions.length - 1]!;
    if (call.kind === 'register') {
      this.gaps.indirectCalls++;
      if (call.register) this.constantTarget(comp, instructions, instructions.length - 1, call);
      return false;
    }
    const found = this.set.lookup(call.target!, comp);
    if (!('component' in found)) {
      call.unresolved = found.unresolved;
      return false;
    }
    const target = found.component;
    const mode = call.targetMode!;
    const ret = ins.address + ins.size;
    // A Thumb BL into code that restores a frame it never built: a long branch inside this function.
    if (block.mode === 'thumb' && mode === 'thumb' && baseOf(ins) === 'bl') {
      if (this.longBranchTarget(target, call.target!)) {
        block.term = 'branch';
        block.call = -1;
        this.calls.pop();
        this.refs.add({
          from: ins.address,
          to: call.target!,
          kind: 'direct-branch',
          component: comp.index,
          mode: block.mode,
          tier: TIERS[block.tier]!,
        });
        this.edge(ctx, block, comp, mode, call.target!, 'branch');
        return true;
      }
    }
    const stub = stubRegister(target, call.target!, mode, this.processor);
    if (stub) {
      call.kind = 'stub';
      call.via = call.target;
      call.viaMode = mode;
      call.register = stub;
      call.target = null;
      call.targetMode = null;
      this.gaps.indirectCalls++;
      this.walkStub(ctx, target, call.via!, mode);
      this.constantTarget(comp, instructions, instructions.length - 1, call);
      return false;
    }
    if (this.dispatchHelper(target, call.target!, mode, ret, block.mode)) {
      call.kind = 'helper';
      call.targetComp = target.index;
      const body = decodeAt(target, call.target!, mode, this.processor, 24);
      const end = body.findIndex((b) => b.writesPc && !b.condition);
      const range = {
        start: call.target!,
        end: end >= 0 ? body[end]!.address + body[end]!.size : call.target! + 2,
      };
      if (!this.trySwitch(ctx, comp, block, instructions, ins, range)) this.gaps.unresolvedSwitches++;
      block.term = block.term === 'switch' ? 'switch' : 'call';
      return true;
    }
    const landing = veneerLanding(this.set, target, call.target!, mode, this.processor);
    if (landing) {
      const to = this.set.lookup(landing.address, target);
      call.kind = 'veneer';
      call.via = call.target;
      call.viaMode = mode;
      call.targetComp = 'component' in to ? to.component.index : null;
      call.target = landing.address;
      call.targetMode = landing.mode;
      if (!('component' in to)) call.unresolved = to.unresolved;
      return false;
    }
    call.targetComp = target.index;
    return false;
  }

  /** Whether a Thumb BL to `address` is a long branch (its target restores a foreign frame); memoised. */
  longBranchTarget(comp: MapComponent, address: number): boolean {
    const key = placeKey('thumb', address);
    let foreign = this.frameCache.get(comp.index, key);
    if (foreign === undefined) {
      foreign = restoresForeignFrame(comp, address, this.processor);
      this.frameCache.set(comp.index, key, foreign);
    }
    return foreign;
  }

  /** Whether the routine at `address` is a switch dispatch helper (for a call returning to `ret`); memoised. */
  dispatchHelper(comp: MapComponent, address: number, mode: ArmMode, ret: number, retMode: ArmMode): boolean {
    // A helper computes its return from LR whoever calls it; a function returns to LR: one answer per routine.
    const key = placeKey(mode, address);
    let helper = this.helperCache.get(comp.index, key);
    if (helper === undefined) {
      // Only a routine that reads LR as a value before its first branch can compute a return address
      // from it; the run that shows where it goes is for those (readsLrEarly reads up to that branch).
      helper =
        readsLrEarly(decodeAt(comp, address, mode, this.processor, HELPER_PREFIX, true)) &&
        isDispatchHelper(this.set, comp, address, mode, ret, retMode, this.processor);
      this.helperCache.set(comp.index, key, helper);
    }
    return helper;
  }

  /** A register stub's own code is walked (classified) but is no function entry. */
  private walkStub(ctx: Context, comp: MapComponent, address: number, mode: ArmMode): void {
    if (this.blockAt(comp, mode, address) || comp.cls[address - comp.start] !== ByteClass.unknown) return;
    ctx.work.push({ comp: comp.index, mode, address, from: -1, kind: null, stub: true });
  }

  /**
   * The constant a call's register holds at the call: defined in this block by a literal load or a
   * PC-relative address, unconditionally, with nothing in between mentioning the register.
   */
  private constantTarget(
    comp: MapComponent,
    instructions: DecodedInstruction[],
    at: number,
    call: MapCall,
  ): void {
    const reg = call.register!;
    if (regNumber(reg) === null || regNumber(reg)! > 12) return;
    let j = at - 1;
    if (
      call.kind === 'register' &&
      instructions[j] &&
      baseOf(instructions[j]!) === 'mov' &&
      instructions[j]!.operands.replace(/\s/g, '') === 'lr,pc'
    )
      j--;
    for (; j >= 0; j--) {
      const d = instructions[j]!;
      if (d.flow !== undefined) return;
      if (!mentionsRegister([d], 0, 1, regNumber(reg)!)) continue;
      const first = d.operands.split(',')[0]!.trim();
      if (first !== reg || d.condition || !d.pcRelative) return;
      let value: number | null = null;
      if (d.pcRelative.kind === 'literal-pool' && baseOf(d) === 'ldr') {
        const o = d.pcRelative.address - comp.start;
        if (o < 0 || o + 4 > comp.bytes.length) return;
        value =
          (comp.bytes[o]! |
            (comp.bytes[o + 1]! << 8) |
            (comp.bytes[o + 2]! << 16) |
            (comp.bytes[o + 3]! << 24)) >>>
          0;
        call.slot = d.pcRelative.address;
      } else if (d.pcRelative.kind === 'pc-relative-address') value = d.pcRelative.address;
      if (value === null) return;
      const thumb = (value & 1) === 1;
      call.definedAt = d.address;
      call.target = thumb ? value - 1 : value;
      call.targetMode = thumb ? 'thumb' : 'arm';
      const found = this.set.lookup(call.target, comp);
      if ('component' in found) call.targetComp = found.component.index;
      else call.unresolved = found.unresolved;
      return;
    }
  }
}
