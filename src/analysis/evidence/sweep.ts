// Evidence class `sweep` (heuristic): what a linear sweep of the bytes nothing else classified finds.
// First it names the obvious non-code (NUL-terminated printable strings of at least 4 characters,
// zero runs and no-op padding after code); then, at the start of each remaining gap (and after the
// padding inside it), it tries ARM and Thumb: a candidate must be well-formed code (probe.ts) and
// look like a function start (a prologue saving LR, or code right after a known function's end, in
// that function's mode); the winner becomes an entry and the walk follows its calls. When the map is
// otherwise done, the bytes still unclassified are labelled `data` (no well-formed code starts there):
// a heuristic judgement, labelled so; a gap where a candidate was too long to check stays unclassified.
import type { ArmMode, DecodedInstruction } from '../../arm/types.js';
import { u32 } from '../../formats/le.js';
import type { MapComponent } from '../program-map/components.js';
import {
  baseOf,
  decodeAt,
  registerList,
  regNumber,
  valueReads,
  valueWrites,
} from '../program-map/instructions.js';
import { PROBE_INSTRUCTIONS, probeFunction, TOO_LONG } from '../program-map/probe.js';
import { ByteClass, isCode } from '../program-map/types.js';
import type { Walker } from '../program-map/walker.js';
import type { EvidenceClass, IdleContext } from './registry.js';

const printable = (b: number) => (b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d;
const MIN_STRING = 4;
/** Candidate starts tried per gap (the start, then after padding inside it). */
const TRIES_PER_GAP = 16;

/** Per walker and component, a bit per byte offset: the candidate starts tried (each at most once). */
const tried = new WeakMap<Walker, (Uint8Array | undefined)[]>();

/** The end of a NUL-terminated printable string starting at `o` (NULs to the next word included), or -1. */
function stringAt(comp: MapComponent, o: number, e: number): number {
  const b = comp.bytes;
  let i = o;
  while (i < e && printable(b[i]!)) i++;
  if (i - o < MIN_STRING || i >= e || b[i] !== 0) return -1;
  let end = i + 1;
  while (end < e && (comp.start + end) % 4 !== 0 && b[end] === 0) end++;
  return end;
}

/**
 * The end of padding starting at `o` inside the gap [o, e): whole zero words, zeros from the end of
 * classified bytes to the next word boundary, or a no-op right after code; -1 when there is none.
 */
function paddingAt(comp: MapComponent, o: number, e: number): number {
  const b = comp.bytes;
  const cls = comp.cls;
  const a = comp.start + o;
  const afterKnown = o > 0 && cls[o - 1] !== ByteClass.unknown;
  const afterCode = o > 0 && isCode(cls[o - 1]!);
  if (afterCode && a % 2 === 0 && o + 2 <= e && b[o] === 0xc0 && b[o + 1] === 0x46) return o + 2;
  if (
    afterCode &&
    a % 4 === 0 &&
    o + 4 <= e &&
    b[o] === 0 &&
    b[o + 1] === 0 &&
    b[o + 2] === 0xa0 &&
    b[o + 3] === 0xe1
  )
    return o + 4;
  let i = o;
  if (afterKnown) while (i < e && (comp.start + i) % 4 !== 0 && b[i] === 0) i++;
  if ((comp.start + i) % 4 !== 0) return -1;
  while (i + 4 <= e && b[i] === 0 && b[i + 1] === 0 && b[i + 2] === 0 && b[i + 3] === 0) i += 4;
  return i > o ? i : -1;
}

/** A function-start look: a prologue that saves LR (push/stmdb with LR, MOV IP, SP; STR LR, [SP, #-4]!). */
function prologue(first: DecodedInstruction[]): boolean {
  // The first instruction, or MOV IP, SP then the save (the APCS frame).
  for (const ins of first.slice(0, 2)) {
    const base = baseOf(ins);
    if (ins.condition) return false;
    if (base === 'push' || ((base === 'stmdb' || base === 'stmfd') && ins.operands.startsWith('sp!'))) {
      const list = registerList(ins.operands);
      if (list?.includes(14)) return true;
    }
    if (base === 'str' && ins.operands.replace(/\s/g, '') === 'lr,[sp,#-4]!') return true;
    if (!(base === 'mov' && ins.operands.replace(/\s/g, '') === 'ip,sp')) return false;
  }
  return false;
}

/** The mode of the nearest code before `o` when nothing but pools, tables and padding lie between. */
function modeBefore(comp: MapComponent, o: number): ArmMode | null {
  for (let i = o - 1; i >= 0 && o - i <= 0x1000; i--) {
    const c = comp.cls[i]!;
    if (c === ByteClass.armHead || c === ByteClass.armBody) return 'arm';
    if (c === ByteClass.thumbHead || c === ByteClass.thumbBody) return 'thumb';
    if (
      c === ByteClass.literalPool ||
      c === ByteClass.jumpTable ||
      c === ByteClass.padding ||
      c === ByteClass.pointerTable
    )
      continue;
    return null;
  }
  return null;
}

/** Whether the entry block reads only what a function may read before writing it (r0-r3, SP, LR). */
function hygienic(first: DecodedInstruction[]): boolean {
  let defined = 0b1111;
  for (const ins of first) {
    if (valueReads(ins) & ~defined & 0x1fff) return false;
    defined |= valueWrites(ins);
    if (ins.flow !== undefined) break;
  }
  return true;
}

/** The next place in [o, e) that looks like a function start: a prologue (Thumb PUSH {.., LR}, ARM STMDB SP!, {.., LR}). */
function nextPrologue(comp: MapComponent, o: number, e: number): number {
  const b = comp.bytes;
  for (let i = o + 1; i + 1 < e; i++) {
    const a = comp.start + i;
    if (a % 2 === 0 && b[i + 1] === 0xb5) return i;
    if (a % 4 === 0 && i + 3 < e && b[i + 3] === 0xe9 && b[i + 2] === 0x2d && (b[i + 1]! & 0x40) !== 0)
      return i;
  }
  return -1;
}

/**
 * A linker veneer's shape: Thumb `bx pc` then ARM `b`/`ldr pc`; ARM `ldr ip, [pc, #k]; bx ip`; or a
 * register stub of a table of them.
 */
/** A call-through-register stub of a table of them (libgcc's _call_via_rN): Thumb `bx rN; nop`. */
function stubShape(comp: MapComponent, first: DecodedInstruction[], mode: ArmMode): boolean {
  const [a] = first;
  if (!a || mode !== 'thumb' || baseOf(a) !== 'bx' || a.condition) return false;
  const n = regNumber(a.operands.trim());
  const o = a.address + 2 - comp.start;
  return n !== null && n <= 12 && comp.bytes[o] === 0xc0 && comp.bytes[o + 1] === 0x46;
}

function veneerShape(comp: MapComponent, first: DecodedInstruction[], mode: ArmMode): boolean {
  const [a, b] = first;
  if (!a) return false;
  if (stubShape(comp, first, mode)) return true;
  if (mode === 'thumb') return baseOf(a) === 'bx' && a.operands.trim() === 'pc';
  return (
    baseOf(a) === 'ldr' &&
    a.pcRelative?.kind === 'literal-pool' &&
    a.operands.startsWith('ip,') &&
    !!b &&
    baseOf(b) === 'bx' &&
    b.operands.trim() === 'ip'
  );
}

interface Option {
  mode: ArmMode;
  address: number;
  prologue: boolean;
  hygienic: boolean;
  veneer: boolean;
  /** Null until probed; then whether well-formed code starts there. */
  ok: boolean | null;
  returns: boolean;
}

/** A prologue within the first four instructions, straight-line (shrink-wrapped code saves later). */
function prologueNear(first: DecodedInstruction[]): boolean {
  for (let i = 0; i < Math.min(4, first.length); i++) {
    if (prologue(first.slice(i))) return true;
    if (first[i]!.flow !== undefined) return false;
  }
  return false;
}

/** Whether the word at `address` names an address inside a component: a pool word, not code. */
function pointerWord(w: Walker, comp: MapComponent, address: number): boolean {
  const o = address - comp.start;
  if (address % 4 !== 0 || o + 4 > comp.bytes.length) return false;
  return w.set.holds(u32(comp.bytes, o) & ~1);
}

/** What the first instructions at `address` in `mode` look like (no probe yet); null when no code starts there. */
function look(w: Walker, comp: MapComponent, address: number, mode: ArmMode): Option | null {
  if (address % (mode === 'arm' ? 4 : 2) !== 0 || address >= comp.end) return null;
  if (comp.cls[address - comp.start] !== ByteClass.unknown) return null;
  // Every rule below reads no further than the first PC write.
  const first = decodeAt(comp, address, mode, w.processor, 24, true);
  if (first.length === 0) return null;
  // A pool word (or either half of one, for Thumb) reads as code but is a pointer into the program.
  if (
    !prologue(first) &&
    (pointerWord(w, comp, address) || (mode === 'thumb' && pointerWord(w, comp, address - 2)))
  )
    return null;
  return {
    mode,
    address,
    prologue: prologueNear(first),
    hygienic: hygienic(first),
    veneer: veneerShape(comp, first, mode),
    ok: null,
    returns: false,
  };
}

/** Probes an option once: whether well-formed code starts there, and whether it returns. */
function probed(w: Walker, comp: MapComponent, o: Option): boolean {
  if (o.ok === null) {
    const p = probeFunction(w, comp, o.address, o.mode, { maxInstructions: PROBE_INSTRUCTIONS });
    o.ok = p.ok;
    o.returns = p.ok && p.returns;
    if (!p.ok && p.why === TOO_LONG) w.undecided.add(comp, o.address);
  }
  return o.ok;
}

async function candidate(ctx: IdleContext, comp: MapComponent, o: number): Promise<boolean> {
  const w = ctx.walker;
  const perComp = tried.get(w)!;
  let seen = perComp[comp.index];
  if (seen === undefined) {
    seen = new Uint8Array((comp.bytes.length + 7) >>> 3);
    perComp[comp.index] = seen;
  }
  const bit = 1 << (o & 7);
  if ((seen[o >>> 3]! & bit) !== 0) return false;
  seen[o >>> 3] = seen[o >>> 3]! | bit;
  const after = modeBefore(comp, o);
  const looks: Option[] = [];
  for (const mode of ['thumb', 'arm'] as const) {
    const found = look(w, comp, comp.start + o, mode);
    if (found) looks.push(found);
  }
  // The pick among the options that are well-formed code, by the first rule that some satisfies: a
  // veneer; a prologue in the mode of the code before; a prologue; any fit (Thumb before ARM within
  // a rule). The rules read only the first instructions, so options are probed in that order and the
  // first that is code is the pick: a later option's probe could not change it.
  const fits = (c: Option) => c.veneer || (c.hygienic && (c.prologue || c.mode === after));
  const ranked = [
    ...looks.filter((c) => fits(c) && c.veneer),
    ...looks.filter((c) => fits(c) && !c.veneer && c.prologue && c.mode === after),
    ...looks.filter((c) => fits(c) && !c.veneer && c.prologue && c.mode !== after),
    ...looks.filter((c) => fits(c) && !c.veneer && !c.prologue),
  ];
  let pick: Option | undefined;
  for (const c of ranked) {
    if (probed(w, comp, c)) {
      pick = c;
      break;
    }
  }
  if (!pick) {
    // Not a function start, but code right after code of its mode that never returns, or that reads
    // registers that code set: an exception landing pad. Walked as code, named no function.
    let pad: Option | undefined;
    for (const c of looks) {
      if (c.mode !== after || c.prologue) continue;
      if (probed(w, comp, c) && (!c.returns || !c.hygienic)) {
        pad = c;
        break;
      }
    }
    if (!pad) return false;
    return ctx.offer({
      component: comp,
      address: pad.address,
      mode: pad.mode,
      sourceTier: 'heuristic',
      from: pad.address,
      fromComponent: comp.index,
      orphan: true,
    });
  }
  // A prologue a few instructions in (shrink-wrapped code) may follow the real start: look back.
  // Code right after a call that never returns, without a prologue, is a landing pad or dead
  // continuation of that function: walked as code, named no function.
  let orphan = false;
  if (!pick.prologue && !pick.veneer) {
    const before = w.blockEndingAt(comp, pick.mode, pick.address);
    if (
      before &&
      before.term === 'call' &&
      before.call >= 0 &&
      w.calls.get(before.call).continuation === 'none'
    )
      orphan = true;
    // Code with no prologue that never returns either: an exception landing pad.
    if (!pick.returns) orphan = true;
  }
  return ctx.offer({
    component: comp,
    address: pick.address,
    mode: pick.mode,
    sourceTier: 'heuristic',
    from: pick.address,
    fromComponent: comp.index,
    // Probed above with the offer's own options unless it is an orphan (probed again, joining known code).
    ...(orphan ? { orphan: true } : { probed: true }),
  });
}

/**
 * Where the function holding the prologue at `o` starts: the earliest of the few instructions before
 * it (within the gap, from `floor`) that run straight into it and read only argument registers.
 */
function startBefore(w: Walker, comp: MapComponent, o: number, floor: number, mode: ArmMode): number {
  const unit = mode === 'arm' ? 4 : 2;
  let best = o;
  for (let back = 1; back <= 4; back++) {
    const s = o - back * unit;
    if (s < floor) break;
    const run = decodeAt(comp, comp.start + s, mode, w.processor, back + 1);
    if (run.length < back + 1 || run[back]!.address !== comp.start + o) break;
    if (run.slice(0, back).some((i) => i.flow !== undefined)) break;
    // Never over alignment no-ops (MOV R8, R8 / MOV R0, R0): they end the code before.
    const ops = run[0]!.operands.replace(/\s/g, '');
    if (baseOf(run[0]!) === 'mov' && (ops === 'r8,r8' || ops === 'r0,r0')) break;
    if (!hygienic(run.slice(0, back + 1))) break;
    best = s;
  }
  return best;
}

export const sweep = {
  id: 'sweep',
  tier: 'heuristic',
  description: 'a linear sweep of the unclassified gaps: well-formed code with a function-start look',
  bounded: false,
  async onIdle(ctx) {
    const w = ctx.walker;
    if (!tried.has(w)) tried.set(w, []);
    let found = 0;
    for (const comp of w.set.list) {
      const cls = comp.cls;
      let o = 0;
      while (o < cls.length) {
        // The next unclassified byte by indexOf (the program's classified bytes are not read one by one).
        if (cls[o] !== ByteClass.unknown) {
          o = cls.indexOf(ByteClass.unknown, o);
          if (o < 0) break;
        }
        let e = o;
        while (e < cls.length && cls[e] === ByteClass.unknown) e++;
        // Through the gap [o, e) from its start: padding, then code or a string, else the next prologue.
        let p = o;
        let tries = 0;
        let accepted = false;
        while (p < e && tries < TRIES_PER_GAP) {
          const pad = paddingAt(comp, p, e);
          if (pad > p) {
            w.classify(comp, comp.start + p, pad - p, 'padding', 'heuristic');
            p = pad;
            continue;
          }
          if (await candidate(ctx, comp, p)) {
            accepted = true;
            break;
          }
          const str = stringAt(comp, p, e);
          if (str > p) {
            w.classify(comp, comp.start + p, str - p, 'string', 'heuristic');
            p = str;
            continue;
          }
          tries++;
          const next = nextPrologue(comp, p, e);
          if (next < 0) break;
          const mode: ArmMode =
            comp.bytes[next + 1] === 0xb5 && (comp.start + next) % 2 === 0 ? 'thumb' : 'arm';
          p = startBefore(w, comp, next, p + 1, mode);
        }
        if (accepted) {
          found++;
          // Walk it now: the rest of this gap (often the next unreferenced function) is what is left.
          await ctx.settle();
          continue;
        }
        o = e;
      }
    }
    return found;
  },
  async onFinish(ctx) {
    const w = ctx.walker;
    tried.delete(w);
    for (const comp of w.set.list) {
      const cls = comp.cls;
      // Each unclassified run found by indexOf (classified bytes are not read one by one here), with
      // the walk's checkpoint between runs: a 12 MiB program's last pass gives the event loop turns.
      for (let o = cls.indexOf(ByteClass.unknown); o >= 0; ) {
        let e = o;
        while (e < cls.length && cls[e] === ByteClass.unknown) e++;
        // A gap where a candidate was too long to check may be code: it stays unclassified.
        if (!w.undecided.within(comp, comp.start + o, comp.start + e))
          w.classify(comp, comp.start + o, e - o, 'data', 'heuristic');
        const pause = w.checkpoint();
        if (pause) await pause;
        o = e < cls.length ? cls.indexOf(ByteClass.unknown, e) : -1;
      }
    }
  },
} as const satisfies EvidenceClass;
