// Whether well-formed code starts at an address: the test a code address held in data (or found by a
// sweep) must pass before it becomes a function entry. A bounded local walk from it, on bytes the map
// has not classified, must meet only instructions of the processor, keep every direct branch and call
// inside executable components (aligned, onto unclassified bytes or known code of the right kind),
// never restore a stack frame it did not build, and end every path in a return, an indirect branch,
// a branch into a known function entry or a call that never returns. Nothing is marked.
import type { ArmMode, DecodedInstruction } from '../../arm/types.js';
import type { MapComponent } from './components.js';
import { baseOf, stackEffect } from './idioms.js';
import { ByteClass, headOf, isCode } from './types.js';
import type { Walker } from './walker.js';

export interface ProbeOptions {
  /** Instructions examined at most; a candidate that needs more is refused (not shown well-formed). */
  maxInstructions: number;
  /**
   * Code that belongs to a known function (an exception landing pad) may branch back into the middle
   * of that function's code (reaching any known instruction of the mode, by a branch or by running
   * on, ends the path there) and restore that function's frame.
   */
  joinsKnown?: boolean;
}

export type ProbeResult =
  /** `returns`: some path ends in a return, an indirect branch or a tail branch (not only in calls that never return). */
  { ok: true; instructions: number; returns: boolean } | { ok: false; why: string };

const unitOf = (mode: ArmMode) => (mode === 'arm' ? 4 : 2);

/** Padding instructions: Thumb `mov r8, r8` and zero halfwords, ARM `mov r0, r0` and zero words. */
const MAX_PADDING_UNITS = 3;
function pastPadding(c: MapComponent, at: number, m: ArmMode): number {
  const b = c.bytes;
  for (let n = 0; n < MAX_PADDING_UNITS; n++) {
    const o = at - c.start;
    if (o < 0 || o + unitOf(m) > b.length || c.cls[o] !== ByteClass.unknown) break;
    const v =
      m === 'thumb'
        ? b[o]! | (b[o + 1]! << 8)
        : (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;
    if (v !== 0 && v !== (m === 'thumb' ? 0x46c0 : 0xe1a00000)) break;
    at += unitOf(m);
  }
  return at;
}

export function probeFunction(
  walker: Walker,
  comp: MapComponent,
  address: number,
  mode: ArmMode,
  options: ProbeOptions,
): ProbeResult {
  const seen = new Set<number>();
  const paths: { comp: MapComponent; at: number; mode: ArmMode; delta: number; joined: boolean }[] = [
    { comp, at: address, mode, delta: 0, joined: false },
  ];
  let count = 0;
  let returns = false;
  const classAt = (c: MapComponent, a: number) => c.cls[a - c.start]!;
  /** Whether a branch may go to `a` in `m`: unclassified bytes, or a known entry of that mode. */
  const targetOk = (c: MapComponent, a: number, m: ArmMode): string | null => {
    if (a % unitOf(m) !== 0) return 'misaligned branch target';
    const cls = classAt(c, a);
    if (cls === ByteClass.unknown) return null;
    if (cls === headOf(m) && walker.entryAt(c.index, m, a) !== undefined) return null;
    if (cls === headOf(m)) return null; // into known code: checked when the path gets there
    return 'branches into data or code of the other mode';
  };
  while (paths.length > 0) {
    const path = paths.pop()!;
    let { at, delta } = path;
    const here = path.comp;
    const m = path.mode;
    for (;;) {
      if (at < here.start || at >= here.end) return { ok: false, why: 'runs off its component' };
      const cls = classAt(here, at);
      if (cls !== ByteClass.unknown) {
        const known = cls === headOf(m) ? walker.entryAt(here.index, m, at) : undefined;
        if (known !== undefined) {
          // Reached a known function: a tail branch is fine, running into it from straight-line code is not.
          if (at !== address && !path.joined)
            return { ok: false, why: 'falls through into a known function' };
          if (known.returns !== false) returns = true;
          break;
        }
        // A branch onto a label of known code (a block start) is how assembler routines share a tail.
        // Code of a known function (a landing pad) may also run on into that function's code.
        if (
          cls === headOf(m) &&
          at !== address &&
          (options.joinsKnown || (path.joined && walker.blockAt(here, m, at)))
        )
          break;
        if (cls === headOf(m) && at !== address) return { ok: false, why: 'joins the middle of known code' };
        if (at === address && cls === headOf(m)) return { ok: false, why: 'inside known code' };
        return { ok: false, why: 'runs into data or code of the other mode' };
      }
      if (seen.has(at * 2 + (m === 'arm' ? 0 : 1))) break;
      const run = walker.probeRun(here, at, m);
      if (run.length === 0) return { ok: false, why: 'not an instruction of the processor' };
      let next: number | null = null;
      for (const ins of run) {
        if (classAt(here, ins.address) !== ByteClass.unknown) {
          next = ins.address;
          break;
        }
        for (let i = 1; i < ins.size; i++) {
          if (classAt(here, ins.address + i) !== ByteClass.unknown)
            return { ok: false, why: 'overlaps known bytes' };
        }
        seen.add(ins.address * 2 + (m === 'arm' ? 0 : 1));
        if (++count > options.maxInstructions) return { ok: false, why: 'too long to check' };
        const e = stackEffect(ins);
        // (A landing pad runs in its function's frame and may restore it.)
        if (e && e.delta !== 'unknown' && !options.joinsKnown) {
          delta += e.delta;
          if (delta > 0) return { ok: false, why: 'restores a stack frame it did not build' };
        }
        // Most instructions neither transfer control nor load a literal: nothing to judge.
        const verdict = ins.flow === undefined && ins.pcRelative === undefined ? 'go' : step(ins);
        if (verdict === 'end') {
          next = null;
          break;
        }
        if (verdict !== 'go') return { ok: false, why: verdict };
        next = ins.address + ins.size;
        path.joined = false;
      }
      if (next === null) break;
      at = next;
      path.joined = false;
    }
    continue;

    function step(ins: DecodedInstruction): 'go' | 'end' | string {
      if (ins.pcRelative?.kind === 'literal-pool') {
        const slot = ins.pcRelative.address;
        if (slot < here.start || slot + 4 > here.end) return 'loads a literal outside its component';
        const cls = classAt(here, slot);
        if (isCode(cls) || cls === ByteClass.copiedSource) return 'loads a literal from code';
      }
      switch (ins.flow) {
        case undefined:
          return 'go';
        case 'call': {
          const found = walker.set.lookup(ins.target!, here);
          if (!('component' in found))
            return found.unresolved === 'unmapped' ? 'calls outside every component' : 'go';
          const c = found.component;
          const why = targetOk(c, ins.target!, ins.targetMode!);
          if (why) return `calls a place that ${why.replace('branches into', 'is')}`;
          const callee = walker.entryAt(c.index, ins.targetMode!, ins.target!);
          if (callee?.returns === false && !ins.condition) return 'end';
          // A known function, or data the map established (a literal pool), right after the call: the
          // callee does not come back.
          // (Alignment padding may sit between: GCC pads after a last call that never returns.)
          const after = pastPadding(here, ins.address + ins.size, m);
          if (!ins.condition && after < here.end) {
            const next = classAt(here, after);
            if (next === headOf(m) && walker.entryAt(here.index, m, after) !== undefined) return 'end';
            if (next !== ByteClass.unknown && !isCode(next)) return 'end';
          }
          // The walk's call idioms: a long branch continues the frame elsewhere; a dispatch helper
          // returns into its table's cases (not checked here), never right after the call.
          if (
            m === 'thumb' &&
            ins.targetMode === 'thumb' &&
            baseOf(ins) === 'bl' &&
            walker.longBranchTarget(c, ins.target!)
          ) {
            paths.push({ comp: c, at: ins.target!, mode: 'thumb', delta, joined: true });
            return 'end';
          }
          if (walker.dispatchHelper(c, ins.target!, ins.targetMode!, ins.address + ins.size, m)) return 'end';
          return 'go';
        }
        case 'call-indirect':
          return 'go';
        case 'branch': {
          const found = walker.set.lookup(ins.target!, here);
          if (!('component' in found)) return 'branches outside every component';
          const why = targetOk(found.component, ins.target!, ins.targetMode!);
          if (why) return why;
          paths.push({ comp: found.component, at: ins.target!, mode: ins.targetMode!, delta, joined: true });
          return ins.condition ? 'go' : 'end';
        }
        case 'return':
          returns = true;
          return ins.condition ? 'go' : 'end';
        default:
          if (baseOf(ins) === 'bx' && ins.operands.trim() === 'pc') return 'end';
          returns = true;
          return ins.condition ? 'go' : 'end';
      }
    }
  }
  return { ok: true, instructions: count, returns };
}
