// What a resolver is: one idiom of control flow the walk meets (an indirect PC write, a call, a tail
// branch, the code after a call), recognised from the program's own bytes and turned into the block's
// term, edges, calls and references. A resolver has an id, a line of description and any of four
// hooks; the walk asks each resolver that has a hook, in the order of resolvers/index.ts, until one
// answers. Resolvers see the walk only through WalkOps. Pure.
import type { ArmMode, DecodedInstruction } from '../../../arm/types.js';
import type { Processor } from '../../../core/vocabulary.js';
import type { BlockStore, EdgeKind, MapBlock } from '../blocks.js';
import type { CallKind, CallStore, MapCall } from '../call-store.js';
import type { ComponentSet, MapComponent } from '../components.js';
import type { RefStore } from '../refs.js';
import type { Tier } from '../types.js';
import type { EmitRequest, FunctionWalk, MapEntry, WalkGaps, WalkItem } from '../walk-types.js';
import type { IdiomMemo } from './memo.js';

/** What a resolver may read and do of the walk. */
export interface WalkOps {
  readonly set: ComponentSet;
  readonly processor: Processor;
  readonly blocks: BlockStore;
  readonly calls: CallStore;
  readonly refs: RefStore;
  readonly gaps: WalkGaps;
  /** Memoised answers about routines (long-branch targets, dispatch helpers), shared with the probes. */
  readonly memo: IdiomMemo;
  /** The resolvers of this walk, per hook, in order. */
  readonly resolvers: ResolverHooks;
  component(index: number): MapComponent;
  /**
   * Queues an intra-function edge from `block` to `target`; a branch into another component is a tail
   * call instead (the target an entry, no edge). `site`: the branching instruction, for the evidence.
   */
  edge(
    fn: FunctionWalk,
    block: MapBlock,
    comp: MapComponent,
    mode: ArmMode,
    target: number,
    kind: EdgeKind,
    site?: number,
  ): void;
  /** An edge joined once the whole walk is done (its target is walked from elsewhere). */
  lateEdge(block: MapBlock, comp: MapComponent, mode: ArmMode, address: number): void;
  /** Classifies bytes when they are still unclassified; false when some byte already is something else. */
  classify(
    comp: MapComponent,
    address: number,
    size: number,
    what: 'arm' | 'thumb' | 'literal' | 'table' | 'string' | 'padding' | 'data',
    tier: Tier,
  ): boolean;
  addEntry(req: EmitRequest, sourceTier: Tier): MapEntry | null;
  /** The entry of `mode` code at `address` in component `comp`, if any. */
  entryAt(comp: number, mode: ArmMode, address: number): MapEntry | undefined;
  /** The entry whose walk is number `walk` (what blocks.walkOf gives), if any. */
  entryOfWalk(walk: number): MapEntry | undefined;
  blockAt(comp: MapComponent, mode: ArmMode, address: number): MapBlock | null;
  /** The block that owns what block `id` ended with before any split. */
  owner(id: number): number;
  /** A new call ending `block` at `ins`; returns its index. */
  newCall(
    comp: MapComponent,
    block: MapBlock,
    ins: DecodedInstruction,
    kind: CallKind,
    target: number | null,
    targetMode: ArmMode | null,
  ): number;
}

/** A block the walk has just decoded, ending in a control-flow instruction. */
export interface FlowSite {
  readonly walk: WalkOps;
  readonly fn: FunctionWalk;
  readonly comp: MapComponent;
  readonly block: MapBlock;
  readonly instructions: DecodedInstruction[];
  /** The instruction ending the block. */
  readonly ins: DecodedInstruction;
  /** How the walk came to the block (its predecessor and the edge's kind), when by an edge. */
  readonly arrival: WalkItem | null;
}

/** A block ending in a call. */
export interface CallSite extends FlowSite {
  readonly call: MapCall;
  /** The one component holding a direct call's target; null for a register call or when none does. */
  readonly target: MapComponent | null;
}

/** What a call resolver made of a call: whether the code after it runs. */
type CallOutcome = 'continues' | 'ends';

export interface Resolver {
  readonly id: string;
  readonly description: string;
  /** A PC write the decoder does not follow (not a direct branch, call or return): true when resolved. */
  branch?(site: FlowSite): boolean;
  /** A call: null when it is not this resolver's idiom. */
  call?(site: CallSite): CallOutcome | null;
  /** An unconditional direct branch ending a block: true when it leaves the function (a tail call). */
  tailBranch?(site: FlowSite): boolean;
  /** The code after a call that returns: 'none' when it never runs, null when this resolver cannot tell. */
  continuation?(site: CallSite): 'none' | null;
}

/** A walk's resolvers grouped by hook, each list in registry order. */
export interface ResolverHooks {
  readonly branch: readonly Resolver[];
  readonly call: readonly Resolver[];
  readonly tailBranch: readonly Resolver[];
  readonly continuation: readonly Resolver[];
}

export function resolverHooks(list: readonly Resolver[]): ResolverHooks {
  return {
    branch: list.filter((r) => r.branch),
    call: list.filter((r) => r.call),
    tailBranch: list.filter((r) => r.tailBranch),
    continuation: list.filter((r) => r.continuation),
  };
}
