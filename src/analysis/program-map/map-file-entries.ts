// The walk's function entries in the map's file: one row per entry in small-integer columns, their
// evidence in columns beside them (each entry's run given by a start offset), the evidence class names
// and refusal reasons in a text list. Written in the order the entries were named, read back so. Pure.
import type { ArmMode } from '../../arm/types.js';
import type { Steps } from '../../core/cooperative.js';
import type { SectionArray } from './columns.js';
import { type EntryEvidence, TIERS } from './types.js';
import { entryKey, type MapEntry } from './walk-types.js';

const STATES: readonly MapEntry['state'][] = ['new', 'active', 'done', 'refused'];

// An entry's bits: 0 thumb, 1-2 state, 3-4 returns (0 unknown, 1 no, 2 yes), 5 orphan.
const packBits = (e: MapEntry): number =>
  (e.mode === 'thumb' ? 1 : 0) |
  (STATES.indexOf(e.state) << 1) |
  ((e.returns === null ? 0 : e.returns ? 2 : 1) << 3) |
  (e.orphan ? 32 : 0);

/** Entries packed between two yields of entrySections (a 12 MiB program has some 10^5). */
const ENTRIES_PER_STEP = 4096;

/** The entries as columns and the texts their columns name; yields every ENTRIES_PER_STEP entries. */
export function* entrySections(entries: Map<string, MapEntry>): Steps<{
  columns: Record<string, SectionArray>;
  texts: string[];
}> {
  const texts: string[] = [];
  const codes = new Map<string, number>();
  const code = (t: string) => {
    let c = codes.get(t);
    if (c === undefined) {
      c = texts.length;
      texts.push(t);
      codes.set(t, c);
    }
    return c;
  };
  const n = entries.size;
  let evidence = 0;
  for (const e of entries.values()) evidence += e.evidence.length;
  const comp = new Int32Array(n);
  const address = new Int32Array(n);
  const bits = new Uint8Array(n);
  const tier = new Uint8Array(n);
  const block = new Int32Array(n);
  const refused = new Int32Array(n);
  const evStart = new Uint32Array(n + 1);
  const evClass = new Uint16Array(evidence);
  const evTier = new Uint8Array(evidence);
  const evFrom = new Float64Array(evidence);
  const evFromComp = new Int32Array(evidence);
  let i = 0;
  let k = 0;
  for (const e of entries.values()) {
    comp[i] = e.comp;
    address[i] = e.address;
    bits[i] = packBits(e);
    tier[i] = e.tier;
    block[i] = e.block;
    refused[i] = e.refused === null ? -1 : code(e.refused);
    evStart[i] = k;
    for (const ev of e.evidence) {
      evClass[k] = code(ev.class);
      evTier[k] = TIERS.indexOf(ev.tier);
      evFrom[k] = ev.from ?? Number.NaN;
      evFromComp[k] = ev.fromComponent ?? -1;
      k++;
    }
    i++;
    if (i % ENTRIES_PER_STEP === 0) yield;
  }
  evStart[n] = k;
  if (texts.length > 0xffff) throw new RangeError('more than 65,535 entry texts');
  return {
    columns: { comp, address, bits, tier, block, refused, evStart, evClass, evTier, evFrom, evFromComp },
    texts,
  };
}

/**
 * The entries read back, checked: every component, block and text index in range, every address in
 * its component, every key once. Returns why not when a row is off.
 */
export function entriesFromSections(
  s: Map<string, SectionArray>,
  texts: readonly string[],
  components: readonly { start: number; end: number }[],
  blockCount: number,
): Map<string, MapEntry> | string {
  const get = (name: string) => s.get(`entry.${name}`);
  const comp = get('comp');
  const address = get('address');
  const bits = get('bits');
  const tier = get('tier');
  const block = get('block');
  const refused = get('refused');
  const evStart = get('evStart');
  const evClass = get('evClass');
  const evTier = get('evTier');
  const evFrom = get('evFrom');
  const evFromComp = get('evFromComp');
  if (!comp || !address || !bits || !tier || !block || !refused || !evStart) return 'entry columns missing';
  if (!evClass || !evTier || !evFrom || !evFromComp) return 'evidence columns missing';
  const n = comp.length;
  const ne = evClass.length;
  if ([address, bits, tier, block, refused].some((a) => a.length !== n) || evStart.length !== n + 1)
    return 'entry columns of different lengths';
  if (evTier.length !== ne || evFrom.length !== ne || evFromComp.length !== ne || evStart[n] !== ne)
    return 'evidence columns of different lengths';
  const out = new Map<string, MapEntry>();
  for (let i = 0; i < n; i++) {
    const c = components[comp[i]!];
    const a = address[i]!;
    const b = bits[i]!;
    if (!c || a < c.start || a >= c.end) return `entry ${i} outside its component`;
    if (b >= 64 || ((b >>> 3) & 3) === 3 || tier[i]! > 2) return `entry ${i} with bits out of range`;
    if (block[i]! < -1 || block[i]! >= blockCount) return `entry ${i} names no block`;
    if (refused[i]! < -1 || refused[i]! >= texts.length) return `entry ${i} names no text`;
    const first = evStart[i]!;
    const last = evStart[i + 1]!;
    if (last < first || last > ne || last === first) return `entry ${i} with no evidence`;
    const evidence: EntryEvidence[] = [];
    for (let k = first; k < last; k++) {
      const ev = evidenceAt(k, texts, evClass, evTier, evFrom, evFromComp, components.length);
      if (ev === null) return `evidence ${k} out of range`;
      evidence.push(ev);
    }
    const mode: ArmMode = b & 1 ? 'thumb' : 'arm';
    const key = entryKey(comp[i]!, mode, a);
    if (out.has(key)) return `entry ${key} twice`;
    const returns = (b >>> 3) & 3;
    out.set(key, {
      key,
      index: i,
      comp: comp[i]!,
      mode,
      address: a,
      evidence,
      tier: tier[i]!,
      state: STATES[(b >>> 1) & 3]!,
      returns: returns === 0 ? null : returns === 2,
      block: block[i]!,
      refused: refused[i]! < 0 ? null : texts[refused[i]!]!,
      orphan: (b & 32) !== 0,
    });
  }
  return out;
}

function evidenceAt(
  k: number,
  texts: readonly string[],
  cls: SectionArray,
  tiers: SectionArray,
  from: SectionArray,
  fromComp: SectionArray,
  components: number,
): EntryEvidence | null {
  const name = texts[cls[k]!];
  const tier = TIERS[tiers[k]!];
  const f = from[k]!;
  const fc = fromComp[k]!;
  if (name === undefined || tier === undefined || fc < -1 || fc >= components) return null;
  if (!Number.isNaN(f) && !Number.isSafeInteger(f)) return null;
  if (Number.isNaN(f)) return fc < 0 ? { class: name, tier } : { class: name, tier, fromComponent: fc };
  return fc < 0 ? { class: name, tier, from: f } : { class: name, tier, from: f, fromComponent: fc };
}
