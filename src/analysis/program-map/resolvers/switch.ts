// Switch dispatches: an indirect PC write (inline `ldrls pc, [pc, rN, lsl #2]`, `addls pc, pc, ...`, a
// load from a table then `mov pc, rN`) or a call of a helper that computes its return from LR (GCC's
// __gnu_thumb1_case_*), bounded by the unsigned compare that guards the index. Every index is run in
// the interpreter on the static bytes (idioms.ts: runSwitch); where each lands is a switch edge of the
// function, and the bytes the dispatch read are its jump table. A table whose address the function
// spilled to its stack is found among the literal words the function loaded (heuristic).
import type { MapComponent } from '../components.js';
import { guardMax, guardOf, runSwitch } from '../idioms.js';
import { decodeAt, lastCompare, mentionsRegister, valueReads, valueWrites } from '../instructions.js';
import { ByteClass, TIER_RANK, TIERS, type Tier } from '../types.js';
import type { CallSite, FlowSite, Resolver } from './resolver.js';

/** Table candidates (a literal word in a place) tried per dispatch. */
const MAX_TABLE_CANDIDATES = 128;
/** How far a spilled table's cases may lie from their dispatch. */
const CASE_REACH = 0x20000;

type Guard = { guard: { register: number; max: number }; start: number };

/**
 * The bound of a dispatch ending this block: its own compare (ARM LDRLS/ADDLS PC), or the compare of
 * the block whose conditional branch led here (taken or not, by the branch's condition).
 */
function guardFor({ walk, block, instructions, ins, arrival }: FlowSite): Guard | null {
  const i = instructions.indexOf(ins);
  if (ins.condition) {
    const cmp = lastCompare(instructions, i);
    const g = guardOf(cmp, ins.condition);
    // The dispatch runs when its own condition holds: like the taken path of a branch on it.
    const max = g ? guardMax(g, true) : null;
    if (
      g &&
      cmp &&
      max !== null &&
      !mentionsRegister(instructions, instructions.indexOf(cmp) + 1, i, g.register)
    )
      return { guard: { register: g.register, max }, start: cmp.address };
    return null;
  }
  if (
    !arrival ||
    (arrival.kind !== 'fallthrough' && arrival.kind !== 'taken') ||
    arrival.from < 0 ||
    arrival.address !== block.start
  )
    return null;
  const pred = walk.blocks.get(walk.owner(arrival.from));
  if (!pred.guard || pred.term !== 'conditional') return null;
  const max = guardMax(pred.guard, arrival.kind === 'taken');
  return max === null ? null : { guard: { register: pred.guard.register, max }, start: block.start };
}

/** Marks still-unclassified table bytes as the jump table, at `tier`. */
function markTable(comp: MapComponent, bytes: readonly number[], tier: number): void {
  for (const a of bytes) {
    if (comp.cls[a - comp.start] === ByteClass.unknown) {
      comp.cls[a - comp.start] = ByteClass.jumpTable;
      comp.tier[a - comp.start] = tier;
    }
  }
}

/** Resolves the dispatch ending `site` (through `helper` when a helper does the dispatching). */
function resolveSwitch(site: FlowSite, helper: { start: number; end: number } | null): boolean {
  const { walk, fn, comp, block, ins } = site;
  const g = guardFor(site);
  if (!g) return false;
  const r = runSwitch(
    walk.set,
    comp,
    walk.processor,
    block.mode,
    g.start,
    ins.address + ins.size,
    g.guard,
    helper,
  );
  if (!r) {
    if (spilledTable(site, g)) return true;
    walk.gaps.unresolvedSwitches++;
    return false;
  }
  block.term = 'switch';
  // The table: bytes the dispatch read as data that nothing else claims, plus alignment padding
  // between a table right after the dispatch and the first case.
  const table = r.tableBytes.filter((a) => comp.cls[a - comp.start] === ByteClass.unknown);
  markTable(comp, table, block.tier);
  if (table.length > 0) {
    const last = table[table.length - 1]!;
    const after = r.targets.map((t) => t.address).filter((a) => a > last);
    const first = after.length > 0 ? Math.min(...after) : last + 1;
    const padding: number[] = [];
    for (let a = last + 1; a < first && a - last < 4; a++) padding.push(a);
    markTable(comp, padding, block.tier);
  }
  if (ins.condition && ins.address + ins.size < comp.end)
    walk.edge(fn, block, comp, block.mode, ins.address + ins.size, 'fallthrough');
  eachCase(site, r.targets, TIERS[block.tier]!, (target) =>
    walk.edge(fn, block, comp, target.mode, target.address, 'switch'),
  );
  return true;
}

type SwitchCase = NonNullable<ReturnType<typeof runSwitch>>['targets'][number];

/**
 * Records every case of the dispatch ending `site` as a switch-case reference at `tier`, and follows
 * each distinct case (by mode and address) once, in the order of the table.
 */
function eachCase(
  site: FlowSite,
  targets: SwitchCase[],
  tier: Tier,
  follow: (target: SwitchCase) => void,
): void {
  const { walk, comp, block, ins } = site;
  const seen = new Set<string>();
  for (const target of targets) {
    walk.refs.add({
      from: ins.address,
      to: target.address,
      kind: 'switch-case',
      component: comp.index,
      mode: block.mode,
      tier,
    });
    const key = `${target.mode}:${target.address}`;
    if (seen.has(key)) continue;
    seen.add(key);
    follow(target);
  }
}

/** Registers the dispatch block reads before it writes them (besides its index): a table base set earlier. */
function baseRegisters(site: FlowSite, index: number): number[] {
  const out: number[] = [];
  let written = 1 << index;
  for (const i of site.instructions) {
    if (i.address < site.block.start) continue;
    const reads = valueReads(i) & ~written & 0x1fff;
    for (let r = 0; r <= 12; r++) if (reads & (1 << r) && !out.includes(r)) out.push(r);
    written |= valueWrites(i);
  }
  return out;
}

/**
 * A dispatch whose table address the function set up before the dispatch block (newlib's vfprintf
 * spills it to its stack; a loop keeps it in a register from the prologue): among the literal words
 * this function loaded, the one address that, held in the stack or in a register the dispatch reads
 * before writing, makes every index land on code of this component near the dispatch is the table.
 * A heuristic resolution: the table is classified at the heuristic tier, its cases are walked there
 * (as code of no new function) and joined to the function's body when the map is finished.
 */
function spilledTable(site: FlowSite, g: Guard): boolean {
  const { walk, fn, comp, block, ins } = site;
  const found: { word: number; r: NonNullable<ReturnType<typeof runSwitch>> }[] = [];
  const tried = new Set<string>();
  const places: (number | 'stack')[] = ['stack', ...baseRegisters(site, g.guard.register)];
  const end = ins.address + ins.size;
  for (const place of places) {
    for (let i = fn.literals.length - 1; i >= 0 && tried.size < MAX_TABLE_CANDIDATES; i--) {
      const w = fn.literals[i]!;
      const key = `${place}:${w}`;
      if (tried.has(key) || w % 4 !== 0 || w < comp.start || w + 4 * (g.guard.max + 1) > comp.end) continue;
      tried.add(key);
      const r =
        place === 'stack'
          ? runSwitch(walk.set, comp, walk.processor, block.mode, g.start, end, g.guard, null, w)
          : runSwitch(walk.set, comp, walk.processor, block.mode, g.start, end, g.guard, null, undefined, {
              [place]: w,
            });
      if (!r || r.targets.some((t) => Math.abs(t.address - ins.address) > CASE_REACH)) continue;
      if (found.some((f) => f.word === w)) continue;
      found.push({ word: w, r });
    }
  }
  if (found.length !== 1) return false;
  const { r } = found[0]!;
  block.term = 'switch';
  markTable(comp, r.tableBytes, TIER_RANK.heuristic);
  eachCase(site, r.targets, 'heuristic', (target) => {
    walk.addEntry(
      {
        component: comp,
        address: target.address,
        mode: target.mode,
        class: 'sweep',
        classTier: 'heuristic',
        from: ins.address,
        orphan: true,
      },
      'heuristic',
    );
    walk.lateEdge(block, comp, target.mode, target.address);
  });
  if (ins.condition && ins.address + ins.size < comp.end)
    walk.edge(fn, block, comp, block.mode, ins.address + ins.size, 'fallthrough');
  return true;
}

/** An inline dispatch bounded by a compare: in this block (ARM LDRLS/ADDLS PC) or before it. */
export const switchTable: Resolver = {
  id: 'switch-table',
  description: 'an inline switch dispatch bounded by an unsigned compare, each index run in the interpreter',
  branch: (site) => resolveSwitch(site, null),
};

/** A call of a routine that returns into its caller's table (a switch helper): no code follows the call. */
export const dispatchHelper: Resolver = {
  id: 'dispatch-helper',
  description:
    'a call of a switch helper that computes its return from LR: the cases are edges of the caller',
  call(site: CallSite) {
    const { walk, block, ins, call, target } = site;
    if (target === null) return null;
    const mode = call.targetMode!;
    if (!walk.memo.dispatchHelper(target, call.target!, mode, ins.address + ins.size, block.mode))
      return null;
    call.kind = 'helper';
    call.targetComp = target.index;
    const body = decodeAt(target, call.target!, mode, walk.processor, 24);
    const end = body.findIndex((b) => b.writesPc && !b.condition);
    const range = {
      start: call.target!,
      end: end >= 0 ? body[end]!.address + body[end]!.size : call.target! + 2,
    };
    if (!resolveSwitch(site, range)) walk.gaps.unresolvedSwitches++;
    block.term = block.term === 'switch' ? 'switch' : 'call';
    return 'ends';
  },
};
