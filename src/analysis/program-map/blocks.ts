// The walk's basic blocks and the edges between them, in columns of small integers (10^5 blocks and
// more per MiB of code: an object each would cost several times the bytes). A block ends at a call, a
// branch, a return or where decoding stops; its term says which. Edges are intra-function: calls are
// not edges. Pure data.
import type { ArmMode } from '../../arm/types.js';
import { Column, type Page } from './columns.js';
import type { SwitchGuard } from './idioms.js';

type Term =
  | 'fallthrough'
  | 'branch'
  | 'conditional'
  | 'return'
  | 'indirect'
  | 'call'
  | 'switch'
  | 'end'
  | 'stop'
  | 'conflict'
  /** An unconditional branch to another function (a tail call: the walk takes no edge there). */
  | 'tail'
  /** A register stub's `bx rN`: where it goes each call site's constant register says. */
  | 'stub';

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

  /** Each column's rows as views in parts, one list per column (for the map's file). */
  fileColumns(): Record<string, Page[]> {
    return {
      to: this.to.parts(this.size),
      kind: this.kind.parts(this.size),
      next: this.next.parts(this.size),
    };
  }

  /** Replaces the edges with columns read back from the map's file (checked there). */
  loadFileColumns(c: {
    to: Int32Array<ArrayBuffer>;
    kind: Uint8Array<ArrayBuffer>;
    next: Int32Array<ArrayBuffer>;
  }): void {
    this.to.load(c.to);
    this.kind.load(c.kind);
    this.next.load(c.next);
    this.size = c.to.length;
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
  'tail',
  'stub',
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
  /** The entry (MapEntry.index) whose walk decoded the block, -1 for none. */
  walk: Int32Array<ArrayBuffer>;
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
    this.walk = new Int32Array(n);
  }

  /** A new block (no edges, no call); returns its view. */
  add(
    comp: number,
    mode: ArmMode,
    start: number,
    end: number,
    tier: number,
    term: Term,
    walk = -1,
  ): MapBlock {
    const id = this.length++;
    if (id >= this.bits.length) {
      const n = this.length;
      this.bits = grown(this.bits, n);
      this.start = grown(this.start, n);
      this.end = grown(this.end, n);
      this.edges = grown(this.edges, n);
      this.call = grown(this.call, n);
      this.pendingOut = grown(this.pendingOut, n);
      this.walk = grown(this.walk, n);
    }
    this.bits[id] = (comp << 8) | (tier << 5) | (mode === 'thumb' ? 16 : 0) | TERM_CODE.get(term)!;
    this.start[id] = start | 0;
    this.end[id] = end | 0;
    this.edges[id] = -1;
    this.call[id] = -1;
    this.pendingOut[id] = 0;
    this.walk[id] = walk;
    return new MapBlock(this, id);
  }

  /** The first successor edge of block `id` in the walker's EdgeStore, -1 when none. */
  edgesOf(id: number): number {
    return this.edges[id]!;
  }

  /** The component index of block `id`. */
  compOf(id: number): number {
    return this.bits[id]! >>> 8;
  }

  /** The mode of block `id`. */
  modeOf(id: number): ArmMode {
    return this.bits[id]! & 16 ? 'thumb' : 'arm';
  }

  /** The entry (MapEntry.index) whose walk decoded block `id`, -1 for none. */
  walkOf(id: number): number {
    return this.walk[id]!;
  }

  /** How block `id` ends and the tier of its code (for scans over every block without views). */
  termOf(id: number): Term {
    return TERMS[this.bits[id]! & 15]!;
  }
  tierOf(id: number): number {
    return (this.bits[id]! >>> 5) & 3;
  }

  /** Each column's rows as one view, one list per column (for the map's file; switch guards are the walk's only). */
  fileColumns(): Record<string, Page[]> {
    const n = this.length;
    // Views, not copies: the file is written from them before the store changes again.
    return {
      bits: [this.bits.subarray(0, n)],
      start: [this.start.subarray(0, n)],
      end: [this.end.subarray(0, n)],
      edges: [this.edges.subarray(0, n)],
      call: [this.call.subarray(0, n)],
      walk: [this.walk.subarray(0, n)],
    };
  }

  /** Blocks read back from the map's file (checked there): no pending edges, no guards. */
  static fromFileColumns(c: {
    bits: Int32Array<ArrayBuffer>;
    start: Int32Array<ArrayBuffer>;
    end: Int32Array<ArrayBuffer>;
    edges: Int32Array<ArrayBuffer>;
    call: Int32Array<ArrayBuffer>;
    walk: Int32Array<ArrayBuffer>;
  }): BlockStore {
    const s = new BlockStore(0);
    s.bits = c.bits;
    s.start = c.start;
    s.end = c.end;
    s.edges = c.edges;
    s.call = c.call;
    s.walk = c.walk;
    s.pendingOut = new Int32Array(c.bits.length);
    s.length = c.bits.length;
    return s;
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
