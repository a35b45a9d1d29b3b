// The map's references, packed in growable columns (a 4 MiB program has hundreds of thousands):
// each is (from, to, kind, component of `from`, mode of `from`, tier) plus one extra word (the literal
// slot of a literal-value reference, the table start of a table entry). Sorted by target once the map
// is complete, so "who references X" is a binary search.
import type { ArmMode } from '../../arm/types.js';
import { Column, type Page } from './columns.js';
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
type RefMode = ArmMode | 'data';
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

/**
 * The indices of `values` ordered by value, equal values in index order: a stable radix sort, low 16
 * bits then high 16 bits (linear: a comparison sort of the 10^6 references of a large map took a
 * quarter of a second before its first cross-reference query could answer).
 */
export function orderByValue(values: Uint32Array): Uint32Array {
  const n = values.length;
  const count = new Uint32Array(65536);
  const low = new Uint32Array(n);
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) count[values[i]! & 0xffff]!++;
  for (let k = 0, at = 0; k < 65536; k++) {
    const c = count[k]!;
    count[k] = at;
    at += c;
  }
  for (let i = 0; i < n; i++) low[count[values[i]! & 0xffff]!++] = i;
  count.fill(0);
  for (let i = 0; i < n; i++) count[values[i]! >>> 16]!++;
  for (let k = 0, at = 0; k < 65536; k++) {
    const c = count[k]!;
    count[k] = at;
    at += c;
  }
  for (let j = 0; j < n; j++) {
    const i = low[j]!;
    order[count[values[i]! >>> 16]!++] = i;
  }
  return order;
}

export class RefStore {
  private readonly from = new Column(Uint32Array);
  private readonly to = new Column(Uint32Array);
  /** kind | mode << 8 | tier << 10 | conditional << 12 | component << 16 */
  private readonly meta = new Column(Uint32Array);
  private readonly extra = new Column(Uint32Array);
  size = 0;
  private order: Uint32Array | null = null;

  add(r: Omit<MapRef, 'extra' | 'conditional'> & { extra?: number; conditional?: boolean }): void {
    this.addOf(r.from, r.to, r.kind, r.component, r.mode, r.tier, r.conditional ?? false, r.extra ?? 0);
  }

  /** add() of one reference's fields (the walk records 10^5 per MiB: no object each). */
  addOf(
    from: number,
    to: number,
    kind: MapRefKind,
    component: number,
    mode: RefMode,
    tier: Tier,
    conditional: boolean,
    extra: number,
  ): void {
    const i = this.size++;
    this.from.ensure(this.size);
    this.to.ensure(this.size);
    this.meta.ensure(this.size);
    this.extra.ensure(this.size);
    this.from.set(i, from >>> 0);
    this.to.set(i, to >>> 0);
    this.meta.set(
      i,
      (KIND_CODE.get(kind)! |
        (MODES.indexOf(mode) << 8) |
        (TIERS.indexOf(tier) << 10) |
        ((conditional ? 1 : 0) << 12) |
        (component << 16)) >>>
        0,
    );
    this.extra.set(i, extra >>> 0);
    this.order = null;
  }

  get(i: number): MapRef {
    const m = this.meta.get(i);
    return {
      from: this.from.get(i),
      to: this.to.get(i),
      kind: REF_KINDS[m & 0xff]!,
      mode: MODES[(m >>> 8) & 3]!,
      tier: TIERS[(m >>> 10) & 3]!,
      conditional: ((m >>> 12) & 1) === 1,
      component: m >>> 16,
      extra: this.extra.get(i),
    };
  }

  /** The kind of reference i (what scans over every reference test first, without making a MapRef). */
  kindAt(i: number): MapRefKind {
    return REF_KINDS[this.meta.get(i) & 0xff]!;
  }

  /** The target of reference i. */
  toAt(i: number): number {
    return this.to.get(i);
  }

  /** Indices of the references to `target`, in insertion order. */
  to_(target: number): number[] {
    if (!this.order) {
      // Ordered on a flat copy of the targets.
      const flat = new Uint32Array(this.size);
      for (let i = 0; i < this.size; i++) flat[i] = this.to.get(i);
      this.order = orderByValue(flat);
    }
    const order = this.order;
    const to = this.to;
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (to.get(order[mid]!) < target >>> 0) lo = mid + 1;
      else hi = mid;
    }
    const out: number[] = [];
    for (let k = lo; k < order.length && to.get(order[k]!) === target >>> 0; k++) out.push(order[k]!);
    return out;
  }

  /** Each column's rows as views in parts, one list per column (for the map's file). */
  fileColumns(): Record<string, Page[]> {
    const n = this.size;
    return {
      from: this.from.parts(n),
      to: this.to.parts(n),
      meta: this.meta.parts(n),
      extra: this.extra.parts(n),
    };
  }

  /** Replaces the references with columns read back from the map's file (checked there). */
  loadFileColumns(c: {
    from: Uint32Array<ArrayBuffer>;
    to: Uint32Array<ArrayBuffer>;
    meta: Uint32Array<ArrayBuffer>;
    extra: Uint32Array<ArrayBuffer>;
  }): void {
    this.from.load(c.from);
    this.to.load(c.to);
    this.meta.load(c.meta);
    this.extra.load(c.extra);
    this.size = c.from.length;
    this.order = null;
  }

  /** Bytes held (for the cache's accounting). */
  bytes(): number {
    return (
      this.from.bytes() +
      this.to.bytes() +
      this.meta.bytes() +
      this.extra.bytes() +
      (this.order ? this.order.length * 4 : 0)
    );
  }
}
