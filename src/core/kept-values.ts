// Values computed once and kept for later calls (a ROM's string index, a search's hits), under the
// server's memory budget as the kept program maps are: each kept value holds a share of the budget
// the size its owner estimates, taken only when it fits at once (older values go first to make room);
// a reservation that needs the room makes them go, oldest first (onPressure). Bounded apart by a
// number of values and a byte total; the least recently used goes first. Pure bookkeeping: no I/O.
import type { MemoryBudget, Reservation } from './memory-budget.js';

interface KeptValuesLimits {
  /** Values kept at once. */
  maxValues: number;
  /** Estimated bytes of all kept values together. */
  maxBytes: number;
}

interface Entry<V> {
  value: V;
  bytes: number;
  held: Reservation | null;
}

export class KeptValues<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private total = 0;

  constructor(
    private readonly memory: MemoryBudget | null,
    private readonly limits: KeptValuesLimits,
  ) {
    memory?.onPressure((bytes) => {
      let freed = 0;
      for (const key of [...this.entries.keys()]) {
        if (freed >= bytes) break;
        freed += this.entries.get(key)!.held?.bytes ?? 0;
        this.delete(key);
      }
    });
  }

  /** The value kept under `key` (now the most recently used), or undefined. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /**
   * Keeps `value` (estimated at `bytes`) when its share of the budget can be had, older values going
   * to make room; returns whether it was kept. One larger than the byte total is never kept.
   */
  keep(key: string, value: V, bytes: number): boolean {
    this.delete(key);
    const size = Math.max(0, Math.ceil(bytes));
    if (size > this.limits.maxBytes) return false;
    while (
      this.entries.size > 0 &&
      (this.entries.size >= this.limits.maxValues || this.total + size > this.limits.maxBytes)
    )
      this.delete(this.entries.keys().next().value!);
    let held = this.memory ? this.memory.hold(size) : null;
    while (this.memory && held === null && this.entries.size > 0) {
      this.delete(this.entries.keys().next().value!);
      held = this.memory.hold(size);
    }
    if (this.memory && held === null) return false;
    this.entries.set(key, { value, bytes: size, held });
    this.total += size;
    return true;
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.total -= entry.bytes;
    entry.held?.release();
  }

  /** Values kept now. */
  get size(): number {
    return this.entries.size;
  }

  /** Their estimated bytes. */
  get bytes(): number {
    return this.total;
  }
}
