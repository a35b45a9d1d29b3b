// The function bodies of a whole-program map (build.ts makes them): every body's block ids as one run
// in one integer column, which bodies hold each block, and the bodies as sections of the map's file
// (map-file.ts), checked on reading so a damaged file is refused with the reason. Pure.
import { turnTaker } from '../../core/cooperative.js';
import { Column, type SectionArray } from './columns.js';
import type { MapFunction } from './function-record.js';
import type { MapEntry } from './walk-types.js';
import type { WalkedProgram } from './walked.js';

/** No tail calls (most bodies): one shared list. */
export const NO_TAIL_CALLS: readonly string[] = Object.freeze([]);

/** Every body's block ids, one run per body in one integer column (10^5 bodies per 4 MiB of code). */
export class BodyBlocks {
  ids: Int32Array;
  size = 0;
  /** Where the run being pushed starts. */
  private runStart = 0;

  /** `capacity`: the ids to make room for at once (a program's bodies hold about one id per block). */
  constructor(capacity = 4096) {
    this.ids = new Int32Array(Math.max(16, capacity));
  }

  /** A store holding a copy of `ids` (runs already ascending, as a kept map's file has them), complete. */
  static of(ids: Int32Array): BodyBlocks {
    const store = new BodyBlocks(0);
    // A copy: the bodies must not keep the file's bytes alive.
    store.ids = ids.slice();
    store.size = ids.length;
    store.runStart = ids.length;
    return store;
  }

  /** Adds `id` to the run being pushed (the body's blocks, one each, in any order). */
  push(id: number): void {
    if (this.size === this.ids.length) {
      const next = new Int32Array(this.ids.length + (this.ids.length >>> 1));
      next.set(this.ids);
      this.ids = next;
    }
    this.ids[this.size++] = id;
  }

  /** Ends the run being pushed: sorts it ascending and returns where it starts. */
  endRun(): number {
    const first = this.runStart;
    this.ids.subarray(first, this.size).sort();
    this.runStart = this.size;
    return first;
  }

  /** Whether the ascending run [first, first + count) holds `id` (binary search). */
  holds(first: number, count: number, id: number): boolean {
    let lo = first;
    let hi = first + count - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.ids[mid]!;
      if (v === id) return true;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
  /** Drops the spare capacity once every body is in (kept when it is small: no copy then). */
  trim(): void {
    if (this.ids.length - this.size > this.ids.length >>> 4) this.ids = this.ids.slice(0, this.size);
  }
}

export class FunctionBody {
  /**
   * The function whose straight-line code runs into this entry (by fall-through or a conditional
   * branch, not a tail branch): this entry is a second way into that function, not a function of its
   * own (an assembler label a BL also calls). Null for a function.
   */
  secondaryOf: string | null = null;
  /** The calls naming this entry (indices into the walker's calls), set by the ProgramMap. */
  callSites: number[] | null = null;
  /** The function record of this entry, set by the ProgramMap (null for a second entry or no function). */
  fn: MapFunction | null = null;

  constructor(
    readonly entry: MapEntry,
    private readonly store: BodyBlocks,
    private readonly first: number,
    /** How many blocks the body has. */
    readonly blockCount: number,
    /** Entries this one branches into (tail calls). */
    readonly tailCalls: readonly string[],
  ) {}

  /** Block ids of the body, ascending (a new list each time). */
  get blocks(): number[] {
    return Array.from(this.store.ids.subarray(this.first, this.first + this.blockCount));
  }

  /** The body's `i`th block id, ascending in i (no list made; i below blockCount). */
  blockAt(i: number): number {
    return this.store.ids[this.first + i]!;
  }

  /** Whether the body holds block `id` (no list made). */
  holds(id: number): boolean {
    return this.store.holds(this.first, this.blockCount, id);
  }
}

/**
 * Which function bodies hold each block: almost always one, so one entry index per block in a typed
 * array and the rare others beside it.
 */
export class BlockOwners {
  private readonly first: Int32Array;
  /**
   * The rare other owners: per block the newest of a chain through `extraBody` / `extraNext` (-1 when
   * none), newest first. Numbers in paged columns, not a list object per shared block.
   */
  private readonly moreHead: Int32Array;
  private readonly extraBody = new Column(Int32Array);
  private readonly extraNext = new Column(Int32Array);
  private extras = 0;
  /** Body index -> entry key. */
  private readonly keys: string[] = [];

  constructor(blocks: number) {
    this.first = new Int32Array(blocks).fill(-1);
    this.moreHead = new Int32Array(blocks).fill(-1);
  }

  /** Names the next body (its index is the count of bodies named before). */
  body(key: string): number {
    this.keys.push(key);
    return this.keys.length - 1;
  }

  add(block: number, body: number): void {
    if (this.first[block]! < 0) {
      this.first[block] = body;
      return;
    }
    const x = this.extras++;
    this.extraBody.ensure(this.extras);
    this.extraNext.ensure(this.extras);
    this.extraBody.set(x, body);
    this.extraNext.set(x, this.moreHead[block]!);
    this.moreHead[block] = x;
  }

  /** The entry keys of the bodies holding `block`, in the order they were added. */
  of(block: number): string[] {
    const f = this.first[block] ?? -1;
    if (f < 0) return [];
    const others: string[] = [];
    for (let x = this.moreHead[block]!; x >= 0; x = this.extraNext.get(x))
      others.push(this.keys[this.extraBody.get(x)]!);
    // The chain is newest first.
    return [this.keys[f]!, ...others.reverse()];
  }
}

/** The section names of the bodies in the map's file (each an Int32Array; see bodySections). */
const BODY_COLUMNS = ['entry', 'count', 'secondary', 'tailStart', 'tails', 'blocks'] as const;

/**
 * The bodies as columns of the map's file, in the bodies' order: each body's entry (an entry index),
 * its block count, the entry it is a second way into (-1: none), its tail calls (runs of entry
 * indices from tailStart) and its block ids (one ascending run per body, in order).
 */
export function bodySections(
  bodies: ReadonlyMap<string, FunctionBody>,
  entries: ReadonlyMap<string, MapEntry>,
): Record<(typeof BODY_COLUMNS)[number], Int32Array> {
  const n = bodies.size;
  const indexOf = (key: string) => entries.get(key)!.index;
  const entry = new Int32Array(n);
  const count = new Int32Array(n);
  const secondary = new Int32Array(n);
  const tailStart = new Int32Array(n + 1);
  let blockTotal = 0;
  let tailTotal = 0;
  for (const b of bodies.values()) {
    blockTotal += b.blockCount;
    tailTotal += b.tailCalls.length;
  }
  const tails = new Int32Array(tailTotal);
  const blocks = new Int32Array(blockTotal);
  let i = 0;
  let t = 0;
  let k = 0;
  for (const b of bodies.values()) {
    entry[i] = b.entry.index;
    count[i] = b.blockCount;
    secondary[i] = b.secondaryOf === null ? -1 : indexOf(b.secondaryOf);
    for (const key of b.tailCalls) tails[t++] = indexOf(key);
    for (let j = 0; j < b.blockCount; j++) blocks[k++] = b.blockAt(j);
    tailStart[++i] = t;
  }
  return { entry, count, secondary, tailStart, tails, blocks };
}

/**
 * The bodies read back from the map's file over `walker` (read back from the same file), with the
 * owners of every block, as functionBodies made them (with event-loop turns); or why the sections are
 * refused (a missing or
 * short column, an index out of range, an entry with no block or twice, a run not ascending).
 */
export async function bodiesFromSections(
  sections: ReadonlyMap<string, SectionArray>,
  walker: WalkedProgram,
): Promise<{ bodies: Map<string, FunctionBody>; owners: BlockOwners } | string> {
  // 10^5 bodies and 10^6 blocks on 12 MiB: the event loop gets its turns meanwhile.
  const turn = turnTaker();
  const col: Partial<Record<(typeof BODY_COLUMNS)[number], Int32Array>> = {};
  for (const name of BODY_COLUMNS) {
    const a = sections.get(`body.${name}`);
    if (!(a instanceof Int32Array)) return 'body columns missing';
    col[name] = a;
  }
  const { entry, count, secondary, tailStart, tails, blocks } = col as Required<typeof col>;
  const n = entry.length;
  if (count.length !== n || secondary.length !== n || tailStart.length !== n + 1)
    return 'body columns of different lengths';
  if (tailStart[0] !== 0 || tailStart[n] !== tails.length) return 'tail calls out of range';
  const byIndex: MapEntry[] = [];
  for (const e of walker.entries.values()) byIndex[e.index] = e;
  const entries = byIndex.length;
  const inRange = (i: number) => i >= 0 && i < entries && byIndex[i] !== undefined;
  const blockCount = walker.blocks.length;
  const seen = new Uint8Array(entries);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const pause = turn();
    if (pause) await pause;
    const e = entry[i]!;
    if (!inRange(e) || seen[e] === 1) return `body ${i} names no entry or one twice`;
    seen[e] = 1;
    if (byIndex[e]!.block < 0 || byIndex[e]!.state === 'refused') return `body ${i} of an entry not walked`;
    if (count[i]! < 1 || count[i]! > blocks.length - total) return `body ${i} with blocks out of range`;
    for (let j = total; j < total + count[i]!; j++) {
      const id = blocks[j]!;
      if (id < 0 || id >= blockCount || (j > total && id <= blocks[j - 1]!))
        return `body ${i} with a block out of range or order`;
    }
    total += count[i]!;
    if (secondary[i]! !== -1 && !inRange(secondary[i]!)) return `body ${i} second to no entry`;
    if (tailStart[i + 1]! < tailStart[i]!) return 'tail calls out of order';
    for (let j = tailStart[i]!; j < tailStart[i + 1]!; j++)
      if (!inRange(tails[j]!)) return `body ${i} tail-calls no entry`;
  }
  if (total !== blocks.length) return 'body blocks of another length';
  const store = BodyBlocks.of(blocks);
  const owners = new BlockOwners(blockCount);
  const bodies = new Map<string, FunctionBody>();
  let first = 0;
  for (let i = 0; i < n; i++) {
    const pause = turn();
    if (pause) await pause;
    const e = byIndex[entry[i]!]!;
    const body = owners.body(e.key);
    for (let j = first; j < first + count[i]!; j++) owners.add(blocks[j]!, body);
    const tailList: string[] = [];
    for (let j = tailStart[i]!; j < tailStart[i + 1]!; j++) tailList.push(byIndex[tails[j]!]!.key);
    const b = new FunctionBody(e, store, first, count[i]!, tailList.length > 0 ? tailList : NO_TAIL_CALLS);
    if (secondary[i]! >= 0) b.secondaryOf = byIndex[secondary[i]!]!.key;
    bodies.set(e.key, b);
    first += count[i]!;
  }
  return { bodies, owners };
}
