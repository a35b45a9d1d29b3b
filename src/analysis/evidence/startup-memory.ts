// The memory a start-up run sees: the program's static image, with every store on top in pages that
// remember, per byte, its value, where it was copied from (its static address, when the stored value
// is bytes loaded unchanged from the image or from an earlier copy), the instruction that stored it,
// and whether the run executed it; the last copy into a byte is where it came from when start-up is
// over (a computed value stored over copied bytes changes their data, not their origin). Pages are shared between
// the paths of a run and copied when a path writes one it shares (a fork is a snapshot of the page
// table). Stores to I/O are effects, not bytes; stores into the live stack (just above SP) are frames,
// not copies. Pure.
import type { EmuMemory, EmuState } from '../../arm/emulate.js';
import type { Steps } from '../../core/cooperative.js';

const PAGE_BITS = 12;
const PAGE = 1 << PAGE_BITS;
const NOT_WRITTEN = -2;
/**
 * Bytes around SP taken as the live stack (a frame being pushed lies just below SP while the store
 * runs): a store there is a frame, never a copy.
 */
const STACK_BELOW = 128;
const STACK_ABOVE = 16 * 1024;
/** Consecutive copied bytes that make a block copy (copyStores counts their bytes from there on). */
const COPY_RUN = 64;

interface Page {
  /** The fork generation that owns this copy of the page (a path writes only pages of its own). */
  gen: number;
  value: Int16Array;
  source: Float64Array;
  storedBy: Float64Array;
  executed: Uint8Array;
}

export interface StaticImage {
  start: number;
  bytes: Uint8Array;
}

/** One byte a path stored with provenance: where it is, where it came from, and what stored it. */
export interface SourcedByte {
  address: number;
  source: number;
  storedBy: number;
  executed: boolean;
}

export interface MemorySnapshot {
  pages: Map<number, Page>;
  stored: number;
  copyStores: number;
}

export class StartupMemory implements EmuMemory {
  private pages = new Map<number, Page>();
  private gen = 0;
  /** Bytes stored on this path (each byte once), against `limit`. */
  stored = 0;
  overflow = false;
  /**
   * Bytes newly copied where code can run (below the I/O space: TCM, main RAM, WRAM) as part of a run
   * of at least COPY_RUN bytes: stores of bytes with provenance to an address other than their
   * source, where no copied byte was before, each continuing the one before it. Block copying is in
   * progress while this grows; a buffer filled again and again, a structure copied here and there, or
   * pictures copied into VRAM do not make it grow.
   */
  copyStores = 0;
  /** The run of consecutive copied bytes the last stores made: its destination, source and length. */
  private runDest = -1;
  private runSource = -1;
  private runLength = 0;
  /** The run's state (SP for the stack window, the PC for what stored a byte). */
  state: EmuState | null = null;

  constructor(
    private readonly image: StaticImage,
    private readonly limit: number,
  ) {}

  private staticByte(address: number): number | null {
    const o = address - this.image.start;
    return o >= 0 && o < this.image.bytes.length ? this.image.bytes[o]! : null;
  }

  /** The last page looked up (most reads fall in the page before them), or none. */
  private lastKey = -1;
  private lastPage: Page | undefined;

  private page(address: number): Page | undefined {
    const key = address >>> PAGE_BITS;
    if (key === this.lastKey) return this.lastPage;
    const p = this.pages.get(key);
    this.lastKey = key;
    this.lastPage = p;
    return p;
  }

  /** The page of `address` this path may write (made, or copied from a shared one). */
  private own(address: number): Page {
    const key = address >>> PAGE_BITS;
    const p = this.pages.get(key);
    if (p && p.gen === this.gen) return p;
    const mine: Page = p
      ? {
          gen: this.gen,
          value: p.value.slice(),
          source: p.source.slice(),
          storedBy: p.storedBy.slice(),
          executed: p.executed.slice(),
        }
      : {
          gen: this.gen,
          value: new Int16Array(PAGE).fill(NOT_WRITTEN),
          source: new Float64Array(PAGE).fill(-1),
          storedBy: new Float64Array(PAGE),
          executed: new Uint8Array(PAGE),
        };
    this.pages.set(key, mine);
    if (key === this.lastKey) this.lastPage = mine;
    return mine;
  }

  read8(address: number, fetch: boolean): number | null {
    const p = this.page(address);
    if (p) {
      const i = address & (PAGE - 1);
      const v = p.value[i]!;
      if (v !== NOT_WRITTEN) {
        // Executing stored bytes is what makes a copy code; marked once per byte.
        if (fetch && p.executed[i] === 0) this.own(address).executed[i] = 1;
        return v < 0 ? null : v;
      }
    }
    return this.staticByte(address);
  }

  source8(address: number): number | null {
    const p = this.page(address);
    if (p) {
      const i = address & (PAGE - 1);
      if (p.value[i] !== NOT_WRITTEN) return p.source[i]! < 0 ? null : p.source[i]!;
    }
    return this.staticByte(address) === null ? null : address;
  }

  write8(address: number, value: number | null, source: number | null): boolean {
    // I/O registers hold no program bytes: stores there are effects, not copies.
    if (address >= 0x04000000 && address < 0x05000000) return true;
    const state = this.state;
    const sp = state?.r[13] ?? null;
    const frame = sp !== null && address >= sp - STACK_BELOW && address < sp + STACK_ABOVE;
    const from = frame ? null : source;
    const p = this.own(address);
    const i = address & (PAGE - 1);
    if (p.value[i] === NOT_WRITTEN) {
      if (this.stored >= this.limit) {
        this.overflow = true;
        return false;
      }
      this.stored++;
    }
    // A value the code computes into copied bytes (a table in ITCM filled at run time) changes the
    // data, not where the bytes came from: they stay part of their copy. Another copy replaces it.
    const next = from !== null ? from : p.value[i] !== NOT_WRITTEN ? p.source[i]! : -1;
    if (from !== null && from !== address) this.copyRun(address, from, p.source[i] === -1);
    p.value[i] = value === null ? -1 : value;
    p.source[i] = next;
    p.executed[i] = 0;
    const pc = state?.r[15] ?? null;
    p.storedBy[i] = pc === null ? -1 : pc - (state!.thumb ? 2 : 4);
    return true;
  }

  /** Counts a copied byte toward copyStores when it is new and part of a long enough run. */
  private copyRun(address: number, from: number, fresh: boolean): void {
    if (address === this.runDest + this.runLength && from === this.runSource + this.runLength)
      this.runLength++;
    else {
      this.runDest = address;
      this.runSource = from;
      this.runLength = 1;
    }
    if (fresh && this.runLength >= COPY_RUN && address < 0x04000000) this.copyStores++;
  }

  /**
   * How many bytes of one copy lie around `address` (stored with provenance at one distance from
   * their source, contiguously), counted up to `max` each way; 0 when the byte there is no copy.
   */
  copiedAround(address: number, max: number): number {
    const delta = (a: number): number | null => {
      const p = this.page(a);
      if (!p) return null;
      const i = a & (PAGE - 1);
      return p.value[i] === NOT_WRITTEN || p.source[i]! < 0 ? null : p.source[i]! - a;
    };
    const d = delta(address);
    if (d === null) return 0;
    let n = 1;
    for (let a = address + 1; n < max && delta(a) === d; a++) n++;
    for (let a = address - 1; n < 2 * max && delta(a) === d; a--) n++;
    return n;
  }

  /** The page table as it is now, for a path that forks from here (pages become shared). */
  snapshot(): MemorySnapshot {
    const snap = { pages: new Map(this.pages), stored: this.stored, copyStores: this.copyStores };
    this.gen++;
    this.lastKey = -1;
    return snap;
  }

  /** Back to a snapshot (its pages stay shared: a write copies one first). */
  restore(snap: MemorySnapshot): void {
    this.pages = new Map(snap.pages);
    this.stored = snap.stored;
    this.copyStores = snap.copyStores;
    this.overflow = false;
    this.gen++;
    this.lastKey = -1;
  }

  /** Every byte whose last copy gave it a source, in address order (a step a page). */
  *sourced(): Steps<SourcedByte[]> {
    const out: SourcedByte[] = [];
    for (const key of [...this.pages.keys()].sort((a, b) => a - b)) {
      const p = this.pages.get(key)!;
      for (let i = 0; i < PAGE; i++) {
        if (p.value[i]! >= 0 && p.source[i]! >= 0)
          out.push({
            address: (key << PAGE_BITS) + i,
            source: p.source[i]!,
            storedBy: p.storedBy[i]!,
            executed: p.executed[i] === 1,
          });
      }
      yield;
    }
    return out;
  }
}
