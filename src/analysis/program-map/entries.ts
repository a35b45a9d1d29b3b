// The walk's function entries: each place once (per component, mode and address), with every piece of
// evidence that names it, and a queue per tier of the entries still to walk. Pure.
import type { ArmMode } from '../../arm/types.js';
import { type EntryEvidence, TIER_RANK, TIERS, type Tier } from './types.js';
import { type EmitRequest, entryKey, type MapEntry, placeKey, unitOf } from './walk-types.js';

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

export class EntryTable {
  readonly entries = new Map<string, MapEntry>();
  /** The same entries by MapEntry.index. */
  private readonly list: MapEntry[] = [];
  /** The same entries per component, by placeKey (the walk's lookups make no key text). */
  private readonly places: Map<number, MapEntry>[] = [];
  private readonly queues: MapEntry[][] = [[], [], []];
  /** Per tier: how far take() has gone through its queue (a head index, not shift(): queues grow to 10^5). */
  private readonly queueHeads = [0, 0, 0];
  /** Per entry with many pieces of evidence: the class and source of each, to keep them distinct in O(1). */
  private readonly evidenceSeen = new Map<MapEntry, Set<string>>();

  /** The entry of `mode` code at `address` in component `comp`, if any (a lookup that makes no key text). */
  at(comp: number, mode: ArmMode, address: number): MapEntry | undefined {
    return this.places[comp]?.get(placeKey(mode, address));
  }

  /** The entry of index `i` (MapEntry.index). */
  byIndex(i: number): MapEntry | undefined {
    return this.list[i];
  }

  /** Adds a function entry (or evidence to a known one). Returns the entry, or null when refused. */
  add(req: EmitRequest, sourceTier: Tier): MapEntry | null {
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
      index: this.entries.size,
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
    this.list.push(entry);
    places.set(place, entry);
    this.queues[tier]!.push(entry);
    return entry;
  }

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

  /** The next entry of `tier` still to walk; undefined (and the queue emptied) when there is none. */
  take(tier: number): MapEntry | undefined {
    const queue = this.queues[tier]!;
    while (this.queueHeads[tier]! < queue.length) {
      const entry = queue[this.queueHeads[tier]!++]!;
      if (entry.state === 'new') return entry;
    }
    queue.length = 0;
    this.queueHeads[tier] = 0;
    return undefined;
  }

  /** Entries still waiting at tiers up to `tier`. */
  pending(tier: number): boolean {
    for (let t = 0; t <= tier; t++) {
      const queue = this.queues[t]!;
      for (let i = this.queueHeads[t]!; i < queue.length; i++) if (queue[i]!.state === 'new') return true;
    }
    return false;
  }

  /** Drops what only the walk needs. */
  release(): void {
    this.evidenceSeen.clear();
  }
}
