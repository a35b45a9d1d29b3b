// The map's references, packed in growable typed arrays (a 4 MiB program has hundreds of thousands):
// each is (from, to, kind, component of `from`, mode of `from`, tier) plus one extra word (the literal
// slot of a literal-value reference, the table start of a table entry). Sorted by target once the map
// is complete, so "who references X" is a binary search.
import type { ArmMode } from '../../arm/types.js';
import { TIERS, type Tier } from './types.js';

export const REF_KINDS = [
  'direct-call',
  'direct-branch',
  'literal-pool',
  'pc-relative-address',
  'literal-value',
  'constant-register-call',
  'switch-case',
  'table-entry',
  'data-word',
] as const;
export type MapRefKind = (typeof REF_KINDS)[number];
const KIND_CODE = new Map<MapRefKind, number>(REF_KINDS.map((k, i) => [k, i]));

/** No mode: the reference comes from data (a table word), not an instruction. */
export type RefMode = ArmMode | 'data';
const MODES: RefMode[] = ['arm', 'thumb', 'data'];

export interface MapRef {
  from: number;
  to: number;
  kind: MapRefKind;
  component: number;
  mode: RefMode;
  tier: Tier;
  /** literal-value: the slot; table-entry / data-word: the first word of the table (or the word itself). */
  extra: number;
  /** The reference's instruction is conditional. */
  conditional: boolean;
}

class Column {
  data: Uint32Array;
  constructor(capacity: number) {
    this.data = new Uint32Array(capacity);
  }
  grow(size: number): void {
    if (size <= this.data.length) return;
    const next = new Uint32Array(Math.max(size, this.data.length * 2));
    next.set(this.data);
    this.data = next;
  }
}

export class RefStore {
  private readonly from = new Column(1024);
  private readonly to = new Column(1024);
  /** kind | mode << 8 | tier << 10 | conditional << 12 | component << 16 */
  private readonly meta = new Column(1024);
  private readonly extra = new Column(1024);
  size = 0;
  private order: Uint32Array | null = null;

  add(r: Omit<MapRef, 'extra' | 'conditional'> & { extra?: number; conditional?: boolean }): void {
    const i = this.size++;
    this.from.grow(this.size);
    this.to.grow(this.size);
    this.meta.grow(this.size);
    this.extra.grow(this.size);
    this.from.data[i] = r.from >>> 0;
    this.to.data[i] = r.to >>> 0;
    this.meta.data[i] =
      (KIND_CODE.get(r.kind)! |
        (MODES.indexOf(r.mode) << 8) |
        (TIERS.indexOf(r.tier) << 10) |
        ((r.conditional ? 1 : 0) << 12) |
        (r.component << 16)) >>>
      0;
    this.extra.data[i] = (r.extra ?? 0) >>> 0;
    this.order = null;
  }

  get(i: number): MapRef {
    const m = this.meta.data[i]!;
    return {
      from: this.from.data[i]!,
      to: this.to.data[i]!,
      kind: REF_KINDS[m & 0xff]!,
      mode: MODES[(m >>> 8) & 3]!,
      tier: TIERS[(m >>> 10) & 3]!,
      conditional: ((m >>> 12) & 1) === 1,
      component: m >>> 16,
      extra: this.extra.data[i]!,
    };
  }

  /** The kind of reference i (what scans over every reference test first, without making a MapRef). */
  kindAt(i: number): MapRefKind {
    return REF_KINDS[this.meta.data[i]! & 0xff]!;
  }

  /** The target of reference i. */
  toAt(i: number): number {
    return this.to.data[i]!;
  }

  /** Indices of the references to `target`, in insertion order. */
  to_(target: number): number[] {
    if (!this.order) {
      const order = new Uint32Array(this.size);
      for (let i = 0; i < this.size; i++) order[i] = i;
      const to = this.to.data;
      order.sort((a, b) => to[a]! - to[b]! || a - b);
      this.order = order;
    }
    const order = this.order;
    const to = this.to.data;
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (to[order[mid]!]! < target >>> 0) lo = mid + 1;
      else hi = mid;
    }
    const out: number[] = [];
    for (let k = lo; k < order.length && to[order[k]!] === target >>> 0; k++) out.push(order[k]!);
    return out;
  }

  /** Bytes held (for the cache's accounting). */
  bytes(): number {
    return (
      (this.from.data.length + this.to.data.length + this.meta.data.length + this.extra.data.length) * 4 +
      (this.order ? this.order.length * 4 : 0)
    );
  }
}
