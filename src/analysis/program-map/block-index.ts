// Where the walk's blocks start, per component: a block id per halfword slot, so the block at an
// address (or ending at one) is a lookup; and the splitting of a block when an edge lands inside it
// (the head falls through to a new tail, which takes over the head's end, call and edges). Pure.
import type { ArmMode } from '../../arm/types.js';
import type { BlockStore, EdgeStore, MapBlock } from './blocks.js';
import type { CallStore } from './call-store.js';
import type { MapComponent } from './components.js';
import { unitOf } from './walk-types.js';

/**
 * The block-index slot of `address` (aligned for its mode) in `comp`. Offsets are floored: a component
 * whose table puts it at an address unaligned for the mode still gives every aligned address a slot of
 * its own, never a fractional index.
 */
const slotOf = (comp: MapComponent, unit: number, address: number): number =>
  Math.floor((address - comp.start) / unit);

export class BlockIndex {
  private readonly starts = new Map<number, Int32Array>();
  /** Split blocks: a block's id -> the tail that now owns its end (and its outgoing edges). */
  private readonly splitInto = new Map<number, number>();

  constructor(
    private readonly blocks: BlockStore,
    private readonly edges: EdgeStore,
    private readonly calls: CallStore,
  ) {}

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

  /** Records that block `id` starts at `address` (-1: no block starts there any more). */
  setStart(comp: MapComponent, address: number, id: number): void {
    this.index(comp)[slotOf(comp, 2, address)] = id + 1;
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
  owner(id: number): number {
    let b = id;
    for (let next = this.splitInto.get(b); next !== undefined; next = this.splitInto.get(b)) b = next;
    return b;
  }

  /** Splits the block holding `address` there: the new tail, or null when no block holds it. */
  split(comp: MapComponent, mode: ArmMode, address: number): MapBlock | null {
    const unit = unitOf(mode);
    const idx = this.index(comp);
    for (let at = address - unit; at >= comp.start && address - at <= 0x10000; at -= unit) {
      const id = idx[slotOf(comp, 2, at)] ?? 0;
      if (id === 0 || this.blocks.modeOf(id - 1) !== mode) continue;
      const head = this.blocks.get(id - 1);
      if (head.end <= address) return null;
      const tail = this.blocks.add(
        comp.index,
        mode,
        address,
        head.end,
        head.tier,
        head.term,
        this.blocks.walkOf(head.id),
      );
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

  /** Drops the split chain (once the walk and its late edges are done). */
  release(): void {
    this.splitInto.clear();
  }
}
