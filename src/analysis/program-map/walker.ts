// The whole-program walk: recursive-descent decoding of every executable component of one processor,
// function by function, depth first (a callee is walked before the code after its call, so a call to a
// function that never returns is not followed by decoding whatever bytes come next: a literal pool,
// the next function). Each byte it decodes is classified once (code of a mode, or the literal pool a
// load names) with the tier of the function being walked; blocks end at calls, branches and returns.
// The walk keeps the worklist; what a BL, an indirect branch, a tail branch or the code after a call
// really is, the resolvers of resolvers/index.ts decide. Evidence classes see every block (hooks) and
// name the function entries; the walk only follows what they name.
// Pure: code comes from the components; bounded by the caller's budget (bytes of code, deadline).

import type { ArmMode, DecodedInstruction } from '../../arm/types.js';
import type { Processor } from '../../core/vocabulary.js';
import { BlockIndex } from './block-index.js';
import { callRefs, instructionRefs } from './block-refs.js';
import { WalkBlockView } from './block-view.js';
import { BlockStore, type EdgeKind, EdgeStore, type MapBlock } from './blocks.js';
import { type ByteFact, classifyBytes, markCode, unclassified } from './bytes.js';
import { CallStore, type MapCall } from './call-store.js';
import type { ComponentSet, MapComponent } from './components.js';
import { Continuations } from './continuations.js';
import { EntryTable } from './entries.js';
import { applyFlow, flowSite, resolveCall } from './flow.js';
import { decodeSpan } from './instructions.js';
import { ProbeRuns } from './probe-runs.js';
import { RefStore } from './refs.js';
import { RESOLVERS } from './resolvers/index.js';
import { IdiomMemo } from './resolvers/memo.js';
import {
  type CallSite,
  type Resolver,
  type ResolverHooks,
  resolverHooks,
  type WalkOps,
} from './resolvers/resolver.js';
import { mayReturn } from './resolvers/returns.js';
import { sharedTail, tailCall } from './resolvers/tails.js';
import { ByteClass, headOf, TIERS, type Tier } from './types.js';
import { UndecidedPlaces } from './undecided.js';
import { type WalkBudget, WalkClock } from './walk-clock.js';
import {
  type EmitRequest,
  type FunctionWalk,
  type MapEntry,
  type WalkGaps,
  type WalkItem,
  WalkStopped,
} from './walk-types.js';

export type { EdgeKind, MapBlock } from './blocks.js';

export type { EmitRequest } from './walk-types.js';
export { entryKey, placeKey, WalkStopped } from './walk-types.js';

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

interface WalkHooks {
  /** Sees every block decoded; `view` is the walk's one view, valid during the call only. */
  onBlock(view: BlockView): void;
}

export class Walker implements WalkOps {
  /** Room for a block per 8 bytes of code at first (the kit's programs have one per 11). */
  readonly blocks: BlockStore;
  readonly edges = new EdgeStore();
  readonly calls = new CallStore();
  readonly refs = new RefStore();
  readonly gaps: WalkGaps = {
    indirectBranches: 0,
    indirectCalls: 0,
    conflicts: 0,
    decodeStops: 0,
    unresolvedSwitches: 0,
  };
  codeBytes = 0;
  /** Places a candidate could not be checked (too long): their bytes stay a gap. */
  readonly undecided = new UndecidedPlaces();
  readonly memo: IdiomMemo;
  readonly resolvers: ResolverHooks;
  private readonly table = new EntryTable();
  private readonly index: BlockIndex;
  private readonly probes: ProbeRuns;
  private readonly continuations: Continuations;
  private readonly clock: WalkClock;
  /** The item being processed (its predecessor bounds a dispatch in the new block). */
  private current: WalkItem | null = null;
  /** Switch edges resolved heuristically, joined once their blocks exist (materializeLateEdges). */
  private readonly lateEdges: { from: number; comp: number; mode: ArmMode; address: number }[] = [];

  constructor(
    readonly set: ComponentSet,
    readonly processor: Processor,
    /** The header entry point (in the main component), or null when there is none to walk. */
    readonly entryPoint: number | null,
    readonly hooks: WalkHooks,
    readonly budget: WalkBudget,
    /** The idioms of control flow the walk understands (resolvers/index.ts). */
    resolvers: readonly Resolver[] = RESOLVERS,
  ) {
    this.resolvers = resolverHooks(resolvers);
    let bytes = 0;
    for (const c of set.list) bytes += c.bytes.length;
    this.blocks = new BlockStore(Math.ceil(bytes / 8));
    this.index = new BlockIndex(this.blocks, this.edges, this.calls);
    this.probes = new ProbeRuns(processor);
    this.memo = new IdiomMemo(set, processor);
    this.clock = new WalkClock(budget);
    this.continuations = new Continuations(this.blocks, (id) => this.owner(id));
    this.view = new WalkBlockView(this, processor);
  }

  /** Every function entry named so far, by key. */
  get entries(): Map<string, MapEntry> {
    return this.table.entries;
  }

  /**
   * Classifies bytes a detector established (vector slots, table words) when they are still
   * unclassified; false when some byte already is something else.
   */
  classify(comp: MapComponent, address: number, size: number, what: ByteFact, tier: Tier): boolean {
    const code = classifyBytes(comp, address, size, what, tier);
    if (code === null) return false;
    this.codeBytes += code;
    return true;
  }

  component(index: number): MapComponent {
    return this.set.list[index]!;
  }

  /** The entry of `mode` code at `address` in component `comp`, if any (a lookup that makes no key text). */
  entryAt(comp: number, mode: ArmMode, address: number): MapEntry | undefined {
    return this.table.at(comp, mode, address);
  }

  /** The entry whose walk is number `walk` (what blocks.walkOf gives), if any. */
  entryOfWalk(walk: number): MapEntry | undefined {
    return this.table.byIndex(walk);
  }

  /** Adds a function entry (or evidence to a known one). Returns the entry, or null when refused. */
  addEntry(req: EmitRequest, sourceTier: Tier): MapEntry | null {
    return this.table.add(req, sourceTier);
  }

  /** Walks every queued entry of `tier` (and everything they reach) to a fixed point. */
  async walkTier(tier: number): Promise<void> {
    for (let entry = this.table.take(tier); entry; entry = this.table.take(tier)) await this.explore(entry);
  }

  /** Entries still waiting at tiers up to `tier`. */
  pending(tier: number): boolean {
    return this.table.pending(tier);
  }

  /**
   * The walk's and the detectors' checkpoint (see WalkClock): cancellation and the deadline are
   * checked, and when a turn is due progress is reported and a promise returned that lets the event
   * loop run. Undefined when there is nothing to wait for: the caller awaits only then.
   */
  checkpoint(): Promise<void> | undefined {
    return this.clock.checkpoint(this.progress);
  }

  /** The progress a checkpoint reports (one function for the walk: checkpoints run 10^5 times). */
  private readonly progress = () => this.codeBytes;
  /** What the evidence classes see of each block: one object, its fields set per block. */
  private readonly view: WalkBlockView<Walker>;

  private async explore(first: MapEntry): Promise<void> {
    const stack: FunctionWalk[] = [];
    const start = (e: MapEntry): boolean => {
      const comp = this.component(e.comp);
      const cls = comp.cls[e.address - comp.start]!;
      if (cls !== ByteClass.unknown && cls !== headOf(e.mode)) {
        e.state = 'refused';
        e.refused = `the bytes at the entry are ${cls === headOf(e.mode === 'arm' ? 'thumb' : 'arm') ? 'code of the other mode' : 'not code'}`;
        this.continuations.release(e);
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
      const fn = stack[stack.length - 1]!;
      const item = fn.work.shift();
      if (!item) {
        stack.pop();
        this.finish(fn.entry);
        continue;
      }
      const callee = this.step(fn, item);
      if (callee) start(callee);
    }
  }

  /** A finished (or refused) entry: whether it may return, and the continuations that waited on it. */
  private finish(e: MapEntry): void {
    e.state = 'done';
    e.returns = e.block < 0 ? true : mayReturn(this.blocks, this.edges, this.calls, e.block);
    this.continuations.release(e);
  }

  /** The block of `mode` code ending exactly at `address` (the nearest block start below it), if any. */
  blockEndingAt(comp: MapComponent, mode: ArmMode, address: number): MapBlock | null {
    return this.index.blockEndingAt(comp, mode, address);
  }

  /** The block starting at `address`, if any. */
  blockAt(comp: MapComponent, mode: ArmMode, address: number): MapBlock | null {
    return this.index.blockAt(comp, mode, address);
  }

  /** The block that owns what `id` ended with before any split. */
  owner(id: number): number {
    return this.index.owner(id);
  }

  private link(from: number, to: number, kind: EdgeKind | null): void {
    if (from < 0 || kind === null) return;
    const f = this.blocks.get(this.owner(from));
    f.edges = this.edges.add(f.edges, to, kind);
  }

  /**
   * The code from `address` in `mode` up to its first PC write (at most 64 instructions), as a probe
   * reads it: kept for the walk that follows an accepted probe (decodeBlock takes it).
   */
  probeRun(comp: MapComponent, address: number, mode: ArmMode): readonly DecodedInstruction[] {
    return this.probes.run(comp, address, mode);
  }

  /** Processes one pending item; returns an entry to walk first (depth first) when a call needs it. */
  private step(fn: FunctionWalk, item: WalkItem): MapEntry | null {
    if (item.from >= 0) this.blocks.get(this.owner(item.from)).pendingOut--;
    this.current = item;
    const isEntry = item.kind === null;
    const comp = this.component(item.comp);
    const existing = this.blockAt(comp, item.mode, item.address);
    if (existing) {
      this.link(item.from, existing.id, item.kind);
      if (isEntry && fn.entry.block < 0) fn.entry.block = existing.id;
      sharedTail(this, fn, comp, item, existing.id);
      return null;
    }
    const cls = comp.cls[item.address - comp.start]!;
    if (cls === headOf(item.mode)) {
      const tail = this.index.split(comp, item.mode, item.address);
      if (tail) {
        this.link(item.from, tail.id, item.kind);
        if (isEntry && fn.entry.block < 0) fn.entry.block = tail.id;
        sharedTail(this, fn, comp, item, tail.id);
      } else this.gaps.conflicts++;
      return null;
    }
    if (cls !== ByteClass.unknown) {
      this.gaps.conflicts++;
      return null;
    }
    const decoded = this.decodeBlock(fn, comp, item);
    if (!decoded) return null;
    const { block, instructions } = decoded;
    if (isEntry && fn.entry.block < 0) fn.entry.block = block.id;
    this.link(item.from, block.id, item.kind);
    return this.finishBlock(fn, comp, block, instructions);
  }

  /** Decodes one block from `item` up to its control-flow instruction, known bytes or a decode stop. */
  private decodeBlock(
    fn: FunctionWalk,
    comp: MapComponent,
    item: WalkItem,
  ): { block: MapBlock; instructions: DecodedInstruction[] } | null {
    const mode = item.mode;
    const tier = fn.tier;
    const block = this.blocks.add(comp.index, mode, item.address, item.address, tier, 'end', fn.entry.index);
    this.index.setStart(comp, item.address, block.id);
    const instructions: DecodedInstruction[] = [];
    let at = item.address;
    let window = 8;
    decode: for (;;) {
      if (at >= comp.end) {
        block.term = 'end';
        break;
      }
      if (at !== item.address && this.stopsBefore(comp, mode, at)) {
        this.stopAt(fn, comp, block, at);
        break;
      }
      const r = this.probes.take(comp, at, mode) ?? decodeSpan(comp, at, mode, this.processor, window, true);
      window = Math.min(64, window * 2);
      const run = r.instructions;
      for (let i = 0; i < run.length; i++) {
        const ins = run[i]!;
        if (ins.address !== item.address && this.stopsBefore(comp, mode, ins.address)) {
          this.stopAt(fn, comp, block, ins.address);
          break decode;
        }
        if (!unclassified(comp, ins.address, ins.size)) {
          block.term = 'conflict';
          this.gaps.conflicts++;
          break decode;
        }
        markCode(comp, ins.address, ins.size, mode, tier);
        this.codeBytes += ins.size;
        if (this.codeBytes > this.budget.codeBytes) throw new WalkStopped('code-byte-limit');
        instructions.push(ins);
        block.end = (ins.address + ins.size) | 0;
        instructionRefs(this.refs, comp, block, ins, tier, fn.literals);
        if (ins.flow !== undefined && applyFlow(this.site(fn, comp, block, instructions))) break decode;
      }
      if (r.stop || r.instructions.length === 0) {
        const end = r.stop?.reason === 'truncated-instruction' && block.end >= comp.end;
        block.term = end ? 'end' : 'stop';
        if (!end) this.gaps.decodeStops++;
        break;
      }
      at = block.end;
    }
    if (instructions.length === 0) {
      // Nothing decoded at the start: no block after all.
      this.blocks.pop();
      this.index.setStart(comp, item.address, -1);
      if (block.term !== 'conflict') this.gaps.decodeStops++;
      return null;
    }
    return { block, instructions };
  }

  /** Ends `block` before known bytes at `address`: on into code of its mode, else a conflict. */
  private stopAt(fn: FunctionWalk, comp: MapComponent, block: MapBlock, address: number): void {
    if (comp.cls[address - comp.start] === headOf(block.mode)) {
      block.term = 'fallthrough';
      this.edge(fn, block, comp, block.mode, address, 'fallthrough');
    } else {
      block.term = 'conflict';
      this.gaps.conflicts++;
    }
  }

  /** Whether decoding must stop before `address`: a block starts there or the byte is classified. */
  private stopsBefore(comp: MapComponent, mode: ArmMode, address: number): boolean {
    return this.blockAt(comp, mode, address) !== null || comp.cls[address - comp.start] !== ByteClass.unknown;
  }

  /** Queues an intra-function edge to `target` (resolved across components when it leaves `comp`). */
  readonly edge: WalkOps['edge'] = (fn, block, comp, mode, target, kind, site) => {
    if (target % (mode === 'arm' ? 4 : 2) !== 0) return;
    let where = comp;
    if (target < comp.start || target >= comp.end) {
      const found = this.set.lookup(target, comp);
      if (!('component' in found)) return;
      where = found.component;
    }
    // A branch into another component leaves the function (no function spans two): a tail call.
    if (where !== comp && (kind === 'branch' || kind === 'taken')) {
      tailCall(this, comp, block, where, target, mode, site);
      if (kind === 'branch') block.term = 'tail';
      return;
    }
    block.pendingOut++;
    fn.work.push({ comp: where.index, mode, address: target, from: block.id, kind });
  };

  lateEdge(block: MapBlock, comp: MapComponent, mode: ArmMode, address: number): void {
    this.lateEdges.push({ from: block.id, comp: comp.index, mode, address });
    block.pendingOut++;
  }

  private site(fn: FunctionWalk, comp: MapComponent, block: MapBlock, instructions: DecodedInstruction[]) {
    return flowSite(this, fn, comp, block, instructions, this.current);
  }

  readonly newCall: WalkOps['newCall'] = (comp, block, ins, kind, target, targetMode) =>
    this.calls.add({
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

  /**
   * Drops what only the walk needs (its caches, the switch guards, the split chain): called once the
   * walk and its late edges are done, so the finished map does not carry them.
   */
  releaseWalkState(): void {
    this.memo.clear();
    this.table.release();
    this.index.release();
    this.blocks.guards.clear();
    this.probes.release();
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
    fn: FunctionWalk,
    comp: MapComponent,
    block: MapBlock,
    instructions: DecodedInstruction[],
  ): MapEntry | null {
    const call = block.call >= 0 ? this.calls.get(block.call) : null;
    // One literal of CallSite's shape (a spread of the flow site would make two objects per call).
    const site: CallSite | null = call
      ? {
          walk: this,
          fn,
          comp,
          block,
          instructions,
          ins: instructions[instructions.length - 1]!,
          arrival: this.current,
          call,
          target: null,
        }
      : null;
    const noContinuation = site ? resolveCall(site) : false;
    const tier = TIERS[fn.tier]!;
    const view = this.view;
    view.component = comp;
    view.block = block;
    view.instructions = instructions;
    // (A switch helper's call ends a 'switch' block: the helper is still a routine the BL calls.)
    view.call = block.term === 'call' || call?.kind === 'helper' ? call : null;
    view.tier = tier;
    this.hooks.onBlock(view);
    if (!call || !site) return null;
    // (A call a resolver found to be a branch inside the function is no call: it has no call refs.)
    if (block.call < 0) return null;
    callRefs(this.refs, comp, block, call, tier);
    if (block.term !== 'call') return null;
    if (noContinuation || this.resolvers.continuation.some((r) => r.continuation!(site) === 'none')) {
      call.continuation = 'none';
      return null;
    }
    const callee =
      call.target !== null && call.targetComp !== null
        ? this.entryAt(call.targetComp, call.targetMode!, call.target)
        : undefined;
    return this.continuations.after(fn, comp, block, call, callee);
  }
}
