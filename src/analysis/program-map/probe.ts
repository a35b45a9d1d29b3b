// Whether well-formed code starts at an address: the test a code address held in data (or found by a
// sweep) must pass before it becomes a function entry. A bounded local walk from it, on bytes the map
// has not classified, must meet only instructions of the processor, keep every direct branch and call
// inside executable components (aligned, onto unclassified bytes or known code of the right kind),
// never restore a stack frame it did not build, and end every path in a return, an indirect branch,
// a branch into a known function entry or a call that never returns. Nothing is marked.
import type { ArmMode, DecodedInstruction } from '../../arm/types.js';
import { u16, u32 } from '../../formats/le.js';
import type { MapComponent } from './components.js';
import { baseOf, stackEffect } from './instructions.js';
import { ByteClass, headOf, isCode } from './types.js';
import type { Walker } from './walker.js';

/**
 * Instructions a probe examines at most: well over the largest functions of real programs (an
 * instruction interpreter of 40 KB is 10,000 ARM instructions). A candidate that needs more is not
 * shown well-formed, and the bytes it would have covered stay unclassified (a gap), never data.
 */
export const PROBE_INSTRUCTIONS = 1 << 16;
/** The refusal of a candidate the probe could not finish. */
export const TOO_LONG = 'too long to check';

interface ProbeOptions {
  /** Instructions examined at most; a candidate that needs more is refused (not shown well-formed). */
  maxInstructions: number;
  /**
   * Code that belongs to a known function (an exception landing pad) may branch back into the middle
   * of that function's code (reaching any known instruction of the mode, by a branch or by running
   * on, ends the path there) and restore that function's frame.
   */
  joinsKnown?: boolean;
}

type ProbeResult =
  /** `returns`: some path ends in a return, an indirect branch or a tail branch (not only in calls that never return). */
  | { ok: true; instructions: number; returns: boolean }
  /**
   * `settled`: the refusal holds whatever the map learns later. A path that went on past an
   * unconditional call met what refused it only because the callee was not known then never to
   * return (the bytes after it are a literal pool, the next function): asked again later, it may pass.
   */
  | { ok: false; why: string; settled: boolean };

const unitOf = (mode: ArmMode) => (mode === 'arm' ? 4 : 2);

/** Padding instructions: Thumb `mov r8, r8` and zero halfwords, ARM `mov r0, r0` and zero words. */
const MAX_PADDING_UNITS = 3;
function pastPadding(c: MapComponent, at: number, m: ArmMode): number {
  const b = c.bytes;
  for (let n = 0; n < MAX_PADDING_UNITS; n++) {
    const o = at - c.start;
    if (o < 0 || o + unitOf(m) > b.length || c.cls[o] !== ByteClass.unknown) break;
    const v = m === 'thumb' ? u16(b, o) : u32(b, o);
    if (v !== 0 && v !== (m === 'thumb' ? 0x46c0 : 0xe1a00000)) break;
    at += unitOf(m);
  }
  return at;
}

interface ProbePath {
  comp: MapComponent;
  at: number;
  mode: ArmMode;
  delta: number;
  joined: boolean;
  /** The path went on past an unconditional call (what follows depends on the callee returning). */
  afterCall: boolean;
}

const classAt = (c: MapComponent, a: number) => c.cls[a - c.start]!;

/** One probe: the paths still to follow from the candidate, and what they met. */
class Probe {
  private readonly seen = new Set<number>();
  readonly paths: ProbePath[];
  private count = 0;

  get instructionCount(): number {
    return this.count;
  }
  returns = false;

  constructor(
    private readonly walker: Walker,
    comp: MapComponent,
    private readonly address: number,
    mode: ArmMode,
    private readonly options: ProbeOptions,
  ) {
    this.paths = [{ comp, at: address, mode, delta: 0, joined: false, afterCall: false }];
  }

  /** Whether a branch may go to `a` in `m`: unclassified bytes, or known code of that mode (checked on arrival). */
  private targetOk(c: MapComponent, a: number, m: ArmMode): string | null {
    if (a % unitOf(m) !== 0) return 'misaligned branch target';
    const cls = classAt(c, a);
    if (cls === ByteClass.unknown || cls === headOf(m)) return null;
    return 'branches into data or code of the other mode';
  }

  /** Where a path meets classified bytes at `at`: 'stop' (the path ends well) or why it is refused. */
  private meet(path: ProbePath, at: number): 'stop' | string {
    const here = path.comp;
    const m = path.mode;
    const cls = classAt(here, at);
    const known = cls === headOf(m) ? this.walker.entryAt(here.index, m, at) : undefined;
    if (known !== undefined) {
      // Reached a known function: a tail branch is fine, running into it from straight-line code is not.
      if (at !== this.address && !path.joined) return 'falls through into a known function';
      if (known.returns !== false) this.returns = true;
      return 'stop';
    }
    // A branch onto an instruction of known code is how assembler routines share a tail (libgcc's
    // __gedf2 sets a register and branches into __cmpdf2; __aeabi_l2d into __adddf3's normalisation).
    // Code of a known function (a landing pad) may also run on into that function's code; code that
    // runs on into known code without a branch is refused below.
    if (cls === headOf(m) && at !== this.address && (this.options.joinsKnown || path.joined)) {
      // The shared code goes on as the code it belongs to does: taken to return (a tail it shares).
      if (path.joined) this.returns = true;
      return 'stop';
    }
    if (cls === headOf(m) && at !== this.address) return 'joins the middle of known code';
    if (at === this.address && cls === headOf(m)) return 'inside known code';
    return 'runs into data or code of the other mode';
  }

  /** Follows one path to its end; null when it ends well, else why the candidate is refused. */
  follow(path: ProbePath): string | null {
    let { at } = path;
    const here = path.comp;
    const m = path.mode;
    for (;;) {
      if (at < here.start || at >= here.end) return 'runs off its component';
      if (classAt(here, at) !== ByteClass.unknown) {
        const met = this.meet(path, at);
        return met === 'stop' ? null : met;
      }
      if (this.seen.has(at * 2 + (m === 'arm' ? 0 : 1))) return null;
      const run = this.walker.probeRun(here, at, m);
      if (run.length === 0) return 'not an instruction of the processor';
      let next: number | null = null;
      for (let r = 0; r < run.length; r++) {
        const ins = run[r]!;
        if (classAt(here, ins.address) !== ByteClass.unknown) {
          next = ins.address;
          break;
        }
        for (let i = 1; i < ins.size; i++) {
          if (classAt(here, ins.address + i) !== ByteClass.unknown) return 'overlaps known bytes';
        }
        this.seen.add(ins.address * 2 + (m === 'arm' ? 0 : 1));
        if (++this.count > this.options.maxInstructions) return TOO_LONG;
        const e = stackEffect(ins);
        // (A landing pad runs in its function's frame and may restore it.) A conditional return
        // leaves the frame as it was on the way on; another conditional stack change leaves it
        // unknown (NaN: no later comparison holds).
        if (e && e.delta !== 'unknown' && !this.options.joinsKnown && !(ins.condition && e.returns)) {
          path.delta = ins.condition ? Number.NaN : path.delta + e.delta;
          if (path.delta > 0) return 'restores a stack frame it did not build';
        }
        // Most instructions neither transfer control nor load a literal: nothing to judge.
        const verdict = ins.flow === undefined && ins.pcRelative === undefined ? 'go' : this.step(path, ins);
        if (verdict === 'end') {
          next = null;
          break;
        }
        if (verdict !== 'go') return verdict;
        next = ins.address + ins.size;
        path.joined = false;
      }
      if (next === null) return null;
      at = next;
      path.joined = false;
    }
  }

  /** What one instruction that transfers control or loads a literal means for the path. */
  private step(path: ProbePath, ins: DecodedInstruction): 'go' | 'end' | string {
    const here = path.comp;
    if (ins.pcRelative?.kind === 'literal-pool') {
      const slot = ins.pcRelative.address;
      if (slot < here.start || slot + 4 > here.end) return 'loads a literal outside its component';
      const cls = classAt(here, slot);
      if (isCode(cls) || cls === ByteClass.copiedSource) return 'loads a literal from code';
    }
    switch (ins.flow) {
      case undefined:
        return 'go';
      case 'call':
        return this.call(path, ins);
      case 'call-indirect':
        return 'go';
      case 'branch': {
        const found = this.walker.set.lookup(ins.target!, here);
        if (!('component' in found)) return 'branches outside every component';
        const why = this.targetOk(found.component, ins.target!, ins.targetMode!);
        if (why) return why;
        this.paths.push({
          comp: found.component,
          at: ins.target!,
          mode: ins.targetMode!,
          delta: path.delta,
          joined: true,
          afterCall: path.afterCall,
        });
        return ins.condition ? 'go' : 'end';
      }
      case 'return':
        this.returns = true;
        return ins.condition ? 'go' : 'end';
      default:
        if (baseOf(ins) === 'bx' && ins.operands.trim() === 'pc') return 'end';
        this.returns = true;
        return ins.condition ? 'go' : 'end';
    }
  }

  /** A call on the path: whether the path goes on after it. */
  private call(path: ProbePath, ins: DecodedInstruction): 'go' | 'end' | string {
    const here = path.comp;
    const m = path.mode;
    const w = this.walker;
    const found = w.set.lookup(ins.target!, here);
    if (!('component' in found))
      return found.unresolved === 'unmapped' ? 'calls outside every component' : 'go';
    const c = found.component;
    const why = this.targetOk(c, ins.target!, ins.targetMode!);
    if (why) return `calls a place that ${why.replace('branches into', 'is')}`;
    const callee = w.entryAt(c.index, ins.targetMode!, ins.target!);
    if (callee?.returns === false && !ins.condition) return 'end';
    // A known function, or data the map established (a literal pool), right after the call: the
    // callee does not come back.
    // (Alignment padding may sit between: GCC pads after a last call that never returns.)
    const after = pastPadding(here, ins.address + ins.size, m);
    if (!ins.condition && after < here.end) {
      const next = classAt(here, after);
      if (next === headOf(m) && w.entryAt(here.index, m, after) !== undefined) return 'end';
      if (next !== ByteClass.unknown && !isCode(next)) return 'end';
    }
    // The walk's call idioms: a long branch continues the frame elsewhere; a dispatch helper
    // returns into its table's cases (not checked here), never right after the call.
    if (
      m === 'thumb' &&
      ins.targetMode === 'thumb' &&
      baseOf(ins) === 'bl' &&
      w.memo.longBranchTarget(c, ins.target!)
    ) {
      this.paths.push({
        comp: c,
        at: ins.target!,
        mode: 'thumb',
        delta: path.delta,
        joined: true,
        afterCall: path.afterCall,
      });
      return 'end';
    }
    if (w.memo.dispatchHelper(c, ins.target!, ins.targetMode!, ins.address + ins.size, m)) return 'end';
    if (!ins.condition) path.afterCall = true;
    return 'go';
  }
}

export function probeFunction(
  walker: Walker,
  comp: MapComponent,
  address: number,
  mode: ArmMode,
  options: ProbeOptions,
): ProbeResult {
  const probe = new Probe(walker, comp, address, mode, options);
  while (probe.paths.length > 0) {
    const path = probe.paths.pop()!;
    const why = probe.follow(path);
    if (why !== null) return { ok: false, why, settled: !path.afterCall };
  }
  return { ok: true, instructions: probe.instructionCount, returns: probe.returns };
}
