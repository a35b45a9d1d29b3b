// A walk read back from the map's file over the components made again from the ROM: each store's
// columns checked (every index, class, tier and term in range, edge lists ending) before it is used,
// so a damaged file is refused with the reason and no question on the map can fail on it. Pure.
import { BlockStore, EdgeStore } from './blocks.js';
import { bodiesFromSections } from './body-store.js';
import type { BuiltMap } from './build.js';
import { CALL_FLOAT_COLUMNS, CALL_INT_COLUMNS, CallStore } from './call-store.js';
import type { SectionArray } from './columns.js';
import type { ComponentSet } from './components.js';
import type { MapFileContents } from './map-file.js';
import { entriesFromSections } from './map-file-entries.js';
import { summaryFromSections } from './map-summary.js';
import { REF_KINDS, RefStore } from './refs.js';
import { ByteClass, NO_TIER } from './types.js';
import { LoadedWalk } from './walked.js';

/** Terms (bits 0-3 of a block's word) there are: see blocks.ts. */
const TERM_COUNT = 12;
const EDGE_KIND_COUNT = 5;
/** The largest byte class code (types.ts). */
const MAX_BYTE_CLASS = Math.max(...Object.values(ByteClass));

/** The walk of `contents` over `set` (made again from the ROM), or why the file is refused. */
function walkFromFile(contents: MapFileContents, set: ComponentSet): LoadedWalk | string {
  const { header: h, sections: s } = contents;
  const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (!strings(h.callTexts) || !strings(h.entryTexts)) return 'malformed texts';
  if (!Array.isArray(h.components) || h.components.length !== set.list.length)
    return 'another set of components';
  for (const [i, c] of set.list.entries()) {
    const f = h.components[i]!;
    if (typeof f !== 'object' || f === null) return `component ${i} differs`;
    if (f.kind !== c.kind || f.overlayId !== c.overlayId || f.start !== c.start || f.end !== c.end)
      return `component ${i} differs`;
  }
  const cols = (
    prefix: string,
    names: readonly string[],
    Ctor: typeof Int32Array | typeof Uint32Array | typeof Float64Array | typeof Uint8Array,
  ) => {
    const out: Record<string, SectionArray> = {};
    for (const name of names) {
      const a = s.get(`${prefix}.${name}`);
      if (!(a instanceof Ctor)) return null;
      out[name] = a;
    }
    return out;
  };
  const b = cols('block', ['bits', 'start', 'end', 'edges', 'call', 'walk'], Int32Array);
  const e = cols('edge', ['to', 'next'], Int32Array);
  const ek = cols('edge', ['kind'], Uint8Array);
  const ci = cols('call', CALL_INT_COLUMNS, Int32Array);
  const cf = cols('call', CALL_FLOAT_COLUMNS, Float64Array);
  const r = cols('ref', ['from', 'to', 'meta', 'extra'], Uint32Array);
  if (!b || !e || !ek || !ci || !cf || !r) return 'store columns missing';
  const n = { blocks: b.bits!.length, edges: e.to!.length, calls: ci.at!.length, refs: r.from!.length };
  const why =
    sameLengths(b, n.blocks) ??
    sameLengths({ ...e, ...ek }, n.edges) ??
    sameLengths({ ...ci, ...cf }, n.calls) ??
    sameLengths(r, n.refs) ??
    checkBlocks(b, set, n) ??
    checkEdges(e.to!, ek.kind!, e.next!, n.blocks) ??
    checkCalls(ci, set.list.length, n.blocks, h.callTexts) ??
    checkRefs(r.meta!, set.list.length) ??
    loadClasses(contents, set);
  if (why) return why;
  const entries = entriesFromSections(s, h.entryTexts, set.list, n.blocks);
  if (typeof entries === 'string') return entries;
  const blocks = BlockStore.fromFileColumns(b as Parameters<typeof BlockStore.fromFileColumns>[0]);
  const edges = new EdgeStore();
  edges.loadFileColumns({
    to: e.to as Int32Array<ArrayBuffer>,
    kind: ek.kind as Uint8Array<ArrayBuffer>,
    next: e.next as Int32Array<ArrayBuffer>,
  });
  const calls = new CallStore();
  calls.loadFileColumns(
    { ...ci, ...cf } as Record<string, Int32Array<ArrayBuffer> | Float64Array<ArrayBuffer>>,
    h.callTexts,
  );
  const refs = new RefStore();
  refs.loadFileColumns(r as Parameters<RefStore['loadFileColumns']>[0]);
  const count = (v: unknown) => (Number.isSafeInteger(v) ? (v as number) : 0);
  const gaps = {
    indirectBranches: count(h.gaps?.indirectBranches),
    indirectCalls: count(h.gaps?.indirectCalls),
    conflicts: count(h.gaps?.conflicts),
    decodeStops: count(h.gaps?.decodeStops),
    unresolvedSwitches: count(h.gaps?.unresolvedSwitches),
  };
  return new LoadedWalk(set, h.processor, blocks, edges, calls, refs, entries, gaps, count(h.codeBytes));
}

function sameLengths(cols: Record<string, SectionArray>, n: number): string | null {
  for (const [name, a] of Object.entries(cols)) if (a.length !== n) return `column ${name} of another length`;
  return null;
}

function checkBlocks(
  b: Record<string, SectionArray>,
  set: ComponentSet,
  n: { blocks: number; edges: number; calls: number },
): string | null {
  const { bits, start, end, edges, call, walk } = b as Record<string, Int32Array>;
  for (let id = 0; id < n.blocks; id++) {
    const c = set.list[bits![id]! >>> 8];
    if (!c || (bits![id]! & 15) >= TERM_COUNT || ((bits![id]! >>> 5) & 3) > 2)
      return `block ${id} out of range`;
    if (start![id]! < c.start || end![id]! > c.end || end![id]! < start![id]!)
      return `block ${id} outside its component`;
    if (edges![id]! < -1 || edges![id]! >= n.edges) return `block ${id} names no edge`;
    if (call![id]! < -1 || call![id]! >= n.calls || walk![id]! < -1) return `block ${id} names no call`;
  }
  return null;
}

function checkEdges(to: SectionArray, kind: SectionArray, next: SectionArray, blocks: number): string | null {
  for (let x = 0; x < to.length; x++) {
    if (to[x]! < 0 || to[x]! >= blocks || kind[x]! >= EDGE_KIND_COUNT) return `edge ${x} out of range`;
    // Lists only ever append: a next edge comes later, so every list ends.
    if (next[x]! !== -1 && (next[x]! <= x || next[x]! >= to.length)) return `edge ${x} loops`;
  }
  return null;
}

function checkCalls(
  c: Record<string, SectionArray>,
  comps: number,
  blocks: number,
  texts: readonly string[],
): string | null {
  const { comp, targetComp, block, bits, register, unresolved } = c;
  for (let i = 0; i < comp!.length; i++) {
    if (comp![i]! < 0 || comp![i]! >= comps || targetComp![i]! < -1 || targetComp![i]! >= comps)
      return `call ${i} names no component`;
    if (block![i]! < 0 || block![i]! >= blocks) return `call ${i} names no block`;
    if (!CallStore.bitsInRange(bits![i]!)) return `call ${i} with bits out of range`;
    if (
      register![i]! < 0 ||
      register![i]! > texts.length ||
      unresolved![i]! < 0 ||
      unresolved![i]! > texts.length
    )
      return `call ${i} names no text`;
  }
  return null;
}

function checkRefs(meta: SectionArray, comps: number): string | null {
  for (let i = 0; i < meta.length; i++) {
    const m = meta[i]!;
    if ((m & 0xff) >= REF_KINDS.length || ((m >>> 8) & 3) > 2 || ((m >>> 10) & 3) > 2 || m >>> 16 >= comps)
      return `reference ${i} out of range`;
  }
  return null;
}

/** Every component's byte classes and tiers, checked and laid on the components made again. */
function loadClasses(contents: MapFileContents, set: ComponentSet): string | null {
  for (const c of set.list) {
    const cls = contents.sections.get(`component${c.index}.cls`);
    const tier = contents.sections.get(`component${c.index}.tier`);
    if (!(cls instanceof Uint8Array) || !(tier instanceof Uint8Array))
      return `component ${c.index} bytes missing`;
    if (cls.length !== c.cls.length || tier.length !== c.tier.length)
      return `component ${c.index} of another size`;
    for (let i = 0; i < cls.length; i++) {
      const t = tier[i]!;
      if (cls[i]! > MAX_BYTE_CLASS || (t > 2 && t !== NO_TIER))
        return `component ${c.index} byte ${i} out of range`;
    }
  }
  for (const c of set.list) {
    c.cls.set(contents.sections.get(`component${c.index}.cls`)!);
    c.tier.set(contents.sections.get(`component${c.index}.tier`)!);
  }
  return null;
}

/**
 * The map read back from `contents` over `set` (made again from the ROM with the file's copies): the
 * walk, the function bodies and the summary checked and laid out as the build made them. Returns why
 * the file is refused, when it is.
 */
export async function builtFromFile(
  contents: MapFileContents,
  set: ComponentSet,
  path: string,
): Promise<BuiltMap | string> {
  const h = contents.header;
  const strings = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string');
  if (!strings(h.classes)) return 'no class list';
  if (
    !Array.isArray(h.refusals) ||
    !h.refusals.every((r) => Array.isArray(r) && typeof r[0] === 'string' && Number.isSafeInteger(r[1]))
  )
    return 'a malformed refusal count';
  if (!Number.isSafeInteger(h.millis) || !Number.isSafeInteger(h.codeBytesLimit)) return 'a malformed header';
  const walker = walkFromFile(contents, set);
  if (typeof walker === 'string') return walker;
  const summary = summaryFromSections(contents.sections, h.unresolved, set);
  if (typeof summary === 'string') return summary;
  const made = await bodiesFromSections(contents.sections, walker);
  if (typeof made === 'string') return made;
  const { bodies, owners } = made;
  return {
    processor: h.processor,
    walker,
    classes: [...h.classes],
    status: 'complete',
    truncation: [],
    bodies,
    owners,
    refusals: new Map(h.refusals),
    millis: h.millis,
    codeBytesLimit: h.codeBytesLimit,
    keptFile: path,
    summary,
  };
}
