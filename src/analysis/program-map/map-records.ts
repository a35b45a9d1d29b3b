// The function records of a whole-program map: each body's entry with its evidence and tier, the
// call sites naming it, the second entries into it, and the shape of its body (blocks, code bytes,
// end, the functions it calls); made with event-loop turns (a few hundred milliseconds on 12 MiB).
import { turnTaker } from '../../core/cooperative.js';
import type { FunctionBody } from './body-store.js';
import type { BuiltMap } from './build.js';
import type { MapFunction } from './function-record.js';
import { TIERS } from './types.js';
import { placeKey } from './walker.js';

/** The evidence classes that name a function start even where another function's code runs into it. */
const FUNCTION_NAMING = new Set([
  'program-entry',
  'direct-call',
  'constant-register-call',
  'vector',
  'unwind-index',
]);

/** Most functions have no second entry: one shared list. */
const NO_SECONDARY_ENTRIES: readonly number[] = Object.freeze([]);

/** Every function of `built`, sorted by component, address and mode; call sites laid on each body. */
export async function functionRecords(built: BuiltMap): Promise<MapFunction[]> {
  const turn = turnTaker();
  const w = built.walker;
  // Each function's call sites and record sit on its body (no map of their own). The bodies by
  // component and placeKey: the calls' lookups make no key text.
  const byPlace: Map<number, FunctionBody>[] = w.set.list.map(() => new Map());
  for (const b of built.bodies.values()) {
    b.callSites = null;
    b.fn = null;
    byPlace[b.entry.comp]!.set(placeKey(b.entry.mode, b.entry.address), b);
  }
  const called = (comp: number, place: number, i: number) => {
    const b = byPlace[comp]?.get(place);
    if (!b) return;
    if (b.callSites) b.callSites.push(i);
    else b.callSites = [i];
  };
  for (let i = 0; i < w.calls.length; i++) {
    const pause = turn();
    if (pause) await pause;
    const c = w.calls.get(i);
    const target = c.target;
    const targetComp = c.targetComp;
    const targetMode = c.targetMode;
    if (target === null || targetComp === null || targetMode === null) continue;
    called(targetComp, placeKey(targetMode, target), i);
    const via = c.via;
    const viaMode = c.viaMode;
    if (via !== null && viaMode !== null && c.kind === 'veneer') {
      const found = w.set.lookup(via, w.component(c.comp));
      if ('component' in found) called(found.component.index, placeKey(viaMode, via), i);
    }
  }
  // Lists of the exact size (pushing leaves room for 16 more in each).
  for (const b of built.bodies.values()) if (b.callSites) b.callSites = b.callSites.slice();
  const secondary = new Map<string, number[]>();
  for (const b of built.bodies.values()) {
    if (!b.secondaryOf) continue;
    const list = secondary.get(b.secondaryOf);
    if (list) list.push(b.entry.address);
    else secondary.set(b.secondaryOf, [b.entry.address]);
  }
  const functions: MapFunction[] = [];
  const named = new Set<number>();
  for (const b of built.bodies.values()) {
    const pause = turn();
    if (pause) await pause;
    const e = b.entry;
    if (e.orphan || e.state === 'refused') continue;
    // A second way into another function's code is a function of its own when a call or the
    // exception index names it (an assembler routine a BL calls that the one before falls into:
    // __adddf3 in __aeabi_dsub); named only by data (a table word into a body), it is not.
    if (b.secondaryOf && !e.evidence.some((ev) => FUNCTION_NAMING.has(ev.class))) continue;
    const shape = bodyShape(built, b, named);
    const fn: MapFunction = {
      key: e.key,
      component: w.component(e.comp),
      address: e.address,
      mode: e.mode,
      tier: TIERS[e.tier]!,
      evidence: e.evidence,
      callers: b.callSites?.length ?? 0,
      blocks: b.blockCount,
      bytes: shape.bytes,
      end: shape.end,
      callees: shape.callees,
      tailCalls: b.tailCalls,
      secondaryEntries: secondary.get(e.key) ?? NO_SECONDARY_ENTRIES,
      partOf: b.secondaryOf,
      returns: e.returns,
    };
    functions.push(fn);
    b.fn = fn;
  }
  functions.sort(
    (a, b) => a.component.index - b.component.index || a.address - b.address || a.mode.localeCompare(b.mode),
  );
  return functions;
}

/**
 * What a body's blocks add up to: its code bytes, where its code ends (the end of its last block in
 * its entry's component) and how many functions its calls name (each once; `named` is scratch space).
 */
function bodyShape(
  built: BuiltMap,
  body: FunctionBody,
  named: Set<number>,
): { bytes: number; end: number; callees: number } {
  const w = built.walker;
  const blocks = w.blocks;
  let bytes = 0;
  let end = body.entry.address;
  named.clear();
  for (let i = 0; i < body.blockCount; i++) {
    const id = body.blockAt(i);
    const size = blocks.end[id]! - blocks.start[id]!;
    bytes += size;
    if (blocks.compOf(id) === body.entry.comp && blocks.end[id]! > end) end = blocks.end[id]!;
    const c = blocks.call[id]!;
    if (c < 0) continue;
    const call = w.calls.get(c);
    const target = call.target;
    const targetComp = call.targetComp;
    const targetMode = call.targetMode;
    // One number per callee: its component above its placeKey (below 2^33), exact in a double.
    if (target !== null && targetComp !== null && targetMode !== null && call.kind !== 'helper')
      named.add(targetComp * 2 ** 33 + placeKey(targetMode, target));
  }
  return { bytes, end, callees: named.size };
}
