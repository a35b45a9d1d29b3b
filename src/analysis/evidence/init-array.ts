// Evidence class `init-array` (referenced): constructor/destructor tables. A function that loads two
// literals S < E (S word-aligned, E - S a multiple of 4, at most 1024 entries) into two registers it
// then relates (a compare, or a subtraction counting the entries), where every word in [S, E) is a
// code address where well-formed code starts, and that calls through a register, runs the table (newlib's __libc_init_array over __init_array_start/end); an overlay's static-initializer range
// from its table record is one too. The table words are classified `pointer-table`.
import type { Processor } from '../../core/vocabulary.js';
import { u32 } from '../../formats/le.js';
import type { MapComponent } from '../program-map/components.js';
import { baseOf, decodeAt, regNumber } from '../program-map/instructions.js';
import { ByteClass, headOf, type Tier } from '../program-map/types.js';
import type { Walker } from '../program-map/walker.js';
import type { EvidenceClass, IdleContext } from './registry.js';

/** How far after the later load the code relating the two registers may be. */
const RELATE_REACH = 64;

/**
 * Whether the loads at `a` and `b` put the two bounds in two registers that a later instruction
 * relates (CMP S, E as a loop bound; SUB n, E, S as a count): a table walked from S to E. Two
 * unrelated addresses loaded near an indirect call (a table base and some other object) are not.
 */
function bounds(comp: MapComponent, processor: Processor, a: number, b: number): boolean {
  const mode = comp.cls[a - comp.start] === headOf('arm') ? ('arm' as const) : ('thumb' as const);
  const load = (at: number) => decodeAt(comp, at, mode, processor, 1)[0];
  const [la, lb] = [load(a), load(b)];
  if (!la || !lb) return false;
  const ra = regNumber(la.operands.split(',')[0] ?? '');
  const rb = regNumber(lb.operands.split(',')[0] ?? '');
  if (ra === null || rb === null || ra === rb) return false;
  const from = Math.max(a, b);
  const run = decodeAt(comp, from, mode, processor, RELATE_REACH / 2);
  for (const ins of run.slice(1)) {
    const base = baseOf(ins);
    if (base !== 'cmp' && base !== 'sub' && base !== 'subs' && base !== 'rsb' && base !== 'rsbs') continue;
    const parts = ins.operands.split(',').map((x) => regNumber(x.trim()));
    const read = base === 'cmp' ? parts : parts.slice(1);
    if (read.includes(ra) && read.includes(rb)) return true;
  }
  return false;
}

interface State {
  /** Pairs examined (component, start, end). */
  seen: Set<string>;
  /** References read so far. */
  refs: number;
  /** Literal loads by component; `n` is the reference's index. */
  loads: Map<number, { at: number; value: number; tier: Tier; n: number }[]>;
}
const done = new WeakMap<Walker, State>();

async function table(
  ctx: IdleContext,
  comp: MapComponent,
  start: number,
  end: number,
  sourceTier: Tier,
  from: number,
): Promise<number> {
  const w = ctx.walker;
  const o0 = start - comp.start;
  if (start % 4 !== 0 || end <= start || (end - start) % 4 !== 0 || end - start > 4096) return 0;
  if (o0 < 0 || end - comp.start > comp.bytes.length) return 0;
  const b = comp.bytes;
  const targets = [];
  for (let o = o0; o < end - comp.start; o += 4) {
    const c = comp.cls[o]!;
    if (c !== ByteClass.unknown && c !== ByteClass.pointerTable && c !== ByteClass.data) return 0;
    const value = u32(b, o);
    const thumb = (value & 1) === 1;
    const address = thumb ? value - 1 : value;
    if (value === 0 || (!thumb && address % 4 !== 0)) return 0;
    const target = w.set.lookup(address);
    if (!('component' in target)) return 0;
    targets.push({
      o,
      component: target.component,
      address,
      mode: thumb ? ('thumb' as const) : ('arm' as const),
    });
  }
  let found = 0;
  for (const t of targets) {
    if (
      await ctx.offer({
        component: t.component,
        address: t.address,
        mode: t.mode,
        sourceTier,
        from,
        fromComponent: comp.index,
      })
    ) {
      comp.cls.fill(ByteClass.pointerTable, t.o, t.o + 4);
      comp.tier.fill(sourceTier === 'heuristic' ? 2 : sourceTier === 'referenced' ? 1 : 0, t.o, t.o + 4);
      w.refs.add({
        from: comp.start + t.o,
        to: t.address,
        kind: 'table-entry',
        component: comp.index,
        mode: 'data',
        tier: sourceTier,
        extra: start,
      });
      found++;
    }
  }
  return found;
}

export const initArray = {
  id: 'init-array',
  tier: 'referenced',
  description:
    'constructor tables: [S, E) loaded as two literals by code that calls through a register; overlay static initializers',
  bounded: false,
  /** Its state is for the walk only. */
  async onFinish(ctx) {
    done.delete(ctx.walker);
  },
  async onIdle(ctx) {
    const w = ctx.walker;
    let state = done.get(w);
    if (!state) {
      state = { seen: new Set<string>(), refs: 0, loads: new Map() };
      done.set(w, state);
    }
    const { seen } = state;
    let found = 0;
    // Literal words loaded by analysed code, by component. Only pairs with a load new since the last
    // round are examined: every other pair was examined then (a pair depends on its two loads only).
    const before = state.refs;
    for (; state.refs < w.refs.size; state.refs++) {
      const pause = w.checkpoint();
      if (pause) await pause;
      if (w.refs.kindAt(state.refs) !== 'literal-value') continue;
      const r = w.refs.get(state.refs);
      const list = state.loads.get(r.component) ?? [];
      list.push({ at: r.from, value: r.to, tier: r.tier, n: state.refs });
      state.loads.set(r.component, list);
    }
    // Calls through a register or a stub, by component, in address order (only for a round with new
    // loads: with none, no pair is examined).
    const indirect = new Map<number, number[]>();
    if (state.refs !== before) {
      for (const c of w.calls) {
        const pause = w.checkpoint();
        if (pause) await pause;
        if (c.kind !== 'register' && c.kind !== 'stub') continue;
        const list = indirect.get(c.comp) ?? [];
        list.push(c.at);
        indirect.set(c.comp, list);
      }
      for (const list of indirect.values()) list.sort((a, b) => a - b);
    }
    const indirectCallsNear = (comp: number, at: number): boolean => {
      const list = indirect.get(comp);
      if (!list) return false;
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (list[mid]! < at - 256) lo = mid + 1;
        else hi = mid;
      }
      return lo < list.length && list[lo]! <= at + 256;
    };
    for (const [ci, list] of state.refs === before ? [] : state.loads) {
      list.sort((a, b) => a.at - b.at);
      for (let i = 0; i < list.length; i++) {
        const pause = w.checkpoint();
        if (pause) await pause;
        for (let j = i + 1; j < list.length && list[j]!.at - list[i]!.at <= 64; j++) {
          if (list[i]!.n < before && list[j]!.n < before) continue;
          const [s, e] = list[i]!.value < list[j]!.value ? [list[i]!, list[j]!] : [list[j]!, list[i]!];
          const span = e.value - s.value;
          if (span === 0 || span > 4096 || span % 4 !== 0 || s.value % 4 !== 0) continue;
          if (!indirectCallsNear(ci, list[i]!.at)) continue;
          if (!bounds(w.component(ci), w.processor, s.at, e.at)) continue;
          const key = `${ci}:${s.value}:${e.value}`;
          if (seen.has(key)) continue;
          seen.add(key);
          const holder = w.set.lookup(s.value);
          if (!('component' in holder)) continue;
          const tier: Tier =
            s.tier === 'heuristic' || e.tier === 'heuristic'
              ? 'heuristic'
              : s.tier === 'referenced' || e.tier === 'referenced'
                ? 'referenced'
                : 'proven';
          found += await table(ctx, holder.component, s.value, e.value, tier, Math.min(s.at, e.at));
        }
      }
    }
    for (const comp of w.set.list) {
      if (comp.kind !== 'overlay' || comp.tableIndex === null) continue;
      const init = comp.staticInit;
      if (!init || init.end <= init.start) continue;
      const key = `overlay:${comp.index}`;
      if (seen.has(key)) continue;
      seen.add(key);
      found += await table(ctx, comp, init.start, init.end, 'referenced', init.start);
    }
    return found;
  },
} as const satisfies EvidenceClass;
