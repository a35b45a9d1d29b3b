// Code idioms the whole-program walk recognises, each established from the program's own bytes:
// - a Thumb BL whose target restores a stack frame it did not create is GCC's long branch inside one
//   function (Thumb B reaches only 2 KiB), not a call;
// - a BL to `bx rN` is a call through a register stub (ARMv4T Thumb has no BLX);
// - a BL to a mode-switch veneer (`bx pc` + `b f`, `ldr ip, =f; bx ip`) calls f;
// - a switch dispatch, inline (`ldrls pc, [pc, rN, lsl #2]`, `addls pc, pc, ...`, a load from a table
//   then `mov pc, rN`) or through a helper that computes its return address from LR (GCC's
//   __gnu_thumb1_case_*), bounded by the guarding compare: each case index is run in the
//   interpreter on the static bytes, and where it lands is an edge of the function.
import { emulate, emuState } from '../../arm/emulate.js';
import type { ArmMode, DecodedInstruction } from '../../arm/types.js';
import type { Processor } from '../../core/vocabulary.js';
import { u32 } from '../../formats/le.js';
import type { ComponentSet, MapComponent } from './components.js';
import { baseOf, decodeAt, immediate, REG, registerList, regNumber, stackEffect } from './instructions.js';
import { ByteClass } from './types.js';

/**
 * An SP offset no function entry reads before building a frame: its first 8 words of stack arguments
 * would lie below it (AAPCS passes four in registers; 12-argument calls are not what GCC long-branches).
 */
const FOREIGN_FRAME_OFFSET = 32;
/** Instructions of one path restoresForeignFrame follows from where it starts, and per decode. */
const PATH_RUN = 24;
const PATH_CHUNK = 6;

/**
 * Whether the Thumb code at `address` restores a frame it never built: some path from it (calls
 * assumed to keep SP, bounded) raises SP above its value on entry. Such code is the rest of a
 * function that a long-branch BL jumps into, not a function entry.
 */
export function restoresForeignFrame(comp: MapComponent, address: number, processor: Processor): boolean {
  // A function entry builds its frame first: code that starts by saving LR is no continuation.
  const [first] = decodeAt(comp, address, 'thumb', processor, 1);
  if (first && baseOf(first) === 'push' && registerList(first.operands)?.includes(14)) return false;
  const seen = new Set<number>();
  const work: { at: number; delta: number }[] = [{ at: address, delta: 0 }];
  let budget = 1024;
  while (work.length > 0 && budget > 0) {
    const { at, delta: start } = work.pop()!;
    if (seen.has(at) || at < comp.start || at >= comp.end) continue;
    seen.add(at);
    let delta = start;
    // Up to PATH_RUN instructions from `at`, decoded a few at a time (most paths end in a few).
    let next = at;
    let left = PATH_RUN;
    path: while (left > 0) {
      const run = decodeAt(comp, next, 'thumb', processor, Math.min(PATH_CHUNK, left));
      for (let r = 0; r < run.length; r++) {
        const ins = run[r]!;
        if (--budget <= 0) break path;
        // Code another path already went through (paths are followed once, whatever their SP).
        if (ins.address !== at && seen.has(ins.address)) break path;
        seen.add(ins.address);
        const e = stackEffect(ins);
        if (e) {
          if (e.delta === 'unknown') break path;
          delta += e.delta;
          if (delta > 0) return true;
          if (e.returns) break path;
        }
        // With no frame of its own, code reading deep into the stack reads its caller's frame.
        const deep = ins.operands.includes('[sp, #') ? /\[sp, #(0x[0-9a-f]+|\d+)\]/.exec(ins.operands) : null;
        if (deep && delta >= 0 && Number(deep[1]) >= FOREIGN_FRAME_OFFSET) return true;
        if (ins.flow === 'return' || ins.flow === 'branch-indirect') break path;
        if (ins.flow === 'branch') {
          if (ins.target !== undefined && ins.targetMode === 'thumb') work.push({ at: ins.target, delta });
          if (!ins.condition) break path;
        }
        // A BL may itself be a long branch: its target continues this path's frame. A target that
        // saves LR first is a function (see above): it cannot restore this frame, and is not followed.
        if (ins.flow === 'call' && ins.target !== undefined && ins.targetMode === 'thumb') {
          const [callee] = decodeAt(comp, ins.target, 'thumb', processor, 1);
          if (!(callee && baseOf(callee) === 'push' && registerList(callee.operands)?.includes(14)))
            work.push({ at: ins.target, delta });
        }
      }
      // A short run: a refusal or the component's end.
      if (run.length < Math.min(PATH_CHUNK, left)) break;
      left -= run.length;
      const last = run[run.length - 1]!;
      next = last.address + last.size;
    }
  }
  return false;
}

/** `bx rN` (N a general register): the whole body of a call-through-register stub. */
export function stubRegister(
  comp: MapComponent,
  address: number,
  mode: ArmMode,
  processor: Processor,
): string | null {
  const [first] = decodeAt(comp, address, mode, processor, 1);
  if (!first || baseOf(first) !== 'bx' || first.condition) return null;
  const reg = first.operands.trim();
  return REG.test(reg) ? reg : null;
}

interface Landing {
  address: number;
  mode: ArmMode;
}

/**
 * Where a mode-switch veneer at `address` goes: Thumb `bx pc` (then ARM at the next word), then ARM
 * `b f`, `ldr pc, [pc, #k]` or `ldr ip, [pc, #k]; bx ip`; or those ARM forms directly. Null when the
 * code is anything else. LR is untouched on the way, so a call of the veneer is a call of f.
 */
export function veneerLanding(
  set: ComponentSet,
  comp: MapComponent,
  address: number,
  mode: ArmMode,
  processor: Processor,
): Landing | null {
  let at = address;
  let where = comp;
  if (mode === 'thumb') {
    const [first] = decodeAt(comp, address, 'thumb', processor, 1);
    if (!first || baseOf(first) !== 'bx' || first.operands.trim() !== 'pc' || first.condition) return null;
    at = (address + 4) & ~3;
    const found = set.lookup(at, comp);
    if (!('component' in found)) return null;
    where = found.component;
  }
  const [a, b] = decodeAt(where, at, 'arm', processor, 2);
  if (!a || a.condition) return null;
  const word = (slot: number): number | null => {
    const o = slot - where.start;
    if (o < 0 || o + 4 > where.bytes.length || slot % 4 !== 0) return null;
    return u32(where.bytes, o);
  };
  const fromWord = (w: number | null): Landing | null =>
    w === null
      ? null
      : w & 1 && processor === 'arm9'
        ? { address: w - 1, mode: 'thumb' }
        : { address: w & ~3, mode: 'arm' };
  if (baseOf(a) === 'b' && a.target !== undefined && mode === 'thumb')
    return { address: a.target, mode: 'arm' };
  if (baseOf(a) === 'ldr' && a.pcRelative?.kind === 'literal-pool') {
    const dest = a.operands.split(',')[0]!.trim();
    if (dest === 'pc') return fromWord(word(a.pcRelative.address));
    if (dest === 'ip' && b && baseOf(b) === 'bx' && b.operands.trim() === 'ip' && !b.condition) {
      const w = word(a.pcRelative.address);
      return w === null ? null : w & 1 ? { address: w - 1, mode: 'thumb' } : { address: w & ~3, mode: 'arm' };
    }
  }
  return null;
}

/**
 * Memory for short interpreter runs: the processor's static bytes, read-only; stores go to scratch.
 * `stackWord`, when given, is what every word of the scratch stack not stored to holds (a constant
 * the code spilled there before the run started).
 */
function staticMemory(set: ComponentSet, home: MapComponent, reads?: Set<number>, stackWord?: number) {
  const scratch = new Map<number, number | null>();
  return {
    read8(address: number, fetch: boolean): number | null {
      const s = scratch.get(address);
      if (s !== undefined) return s;
      if (stackWord !== undefined && address >= SCRATCH_SP - 0x1000 && address < SCRATCH_SP + 0x1000)
        return (stackWord >>> (8 * (address & 3))) & 0xff;
      let comp: MapComponent | undefined;
      if (address >= home.start && address < home.end) comp = home;
      else {
        const found = set.holding(address);
        if (found.length === 1) comp = found[0];
      }
      if (!comp) return null;
      if (!fetch && comp === home) reads?.add(address);
      return comp.bytes[address - comp.start]!;
    },
    write8(address: number, value: number | null): boolean {
      scratch.set(address, value);
      return true;
    },
  };
}

/** A stack for interpreter runs, far from any DS memory the program could read. */
const SCRATCH_SP = 0x7f000000;

/**
 * Whether straight-line code reads LR as a value (`mov r1, lr`, `add lr, lr, r1`, `add lr, r1`) before
 * its first control-flow instruction; saving it (PUSH, STM) and returning through it are no such read.
 */
export function readsLrEarly(run: DecodedInstruction[]): boolean {
  for (let r = 0; r < run.length; r++) {
    const ins = run[r]!;
    const base = baseOf(ins);
    if (ins.flow !== undefined) return false;
    if (base === 'push' || base.startsWith('stm') || !ins.operands.includes('lr')) continue;
    const parts = ins.operands.split(',').map((p) => p.trim());
    if (parts.slice(1).includes('lr')) return true;
    if (parts.length === 2 && parts[0] === 'lr' && base !== 'mov' && base !== 'movs' && base !== 'ldr')
      return true;
  }
  return false;
}

/**
 * Whether the routine at `target`, called from `site` (return address `ret`), returns through an
 * address it computes from LR and r0 (a dispatch helper) rather than to `ret`. Run twice, r0 = 0 and 1.
 */
export function isDispatchHelper(
  set: ComponentSet,
  comp: MapComponent,
  target: number,
  targetMode: ArmMode,
  ret: number,
  retMode: ArmMode,
  processor: Processor,
): boolean {
  const land = (index: number): number | null => {
    const state = emuState(target, targetMode === 'thumb', {
      0: index,
      13: SCRATCH_SP,
      14: retMode === 'thumb' ? ret | 1 : ret,
    });
    const r = emulate(state, {
      processor,
      memory: staticMemory(set, comp),
      maxSteps: 48,
      stopAt: (pc) => pc >= ret && pc < ret + 0x2000 && !(pc >= target && pc < target + 0x40),
    });
    return r.stop === 'stopped' ? r.pc : null;
  };
  const a = land(0);
  if (a === null || a === ret) return false;
  const b = land(1);
  return b !== null && b !== a;
}

/**
 * The compare that bounds a switch index (`cmp rN, #K` then a conditional branch on `condition`):
 * which register, K, and the condition, so each edge out of the branch knows its index range.
 */
export interface SwitchGuard {
  register: number;
  k: number;
  condition: string;
}

export function guardOf(cmp: DecodedInstruction | undefined, condition: string): SwitchGuard | null {
  if (!cmp || baseOf(cmp) !== 'cmp' || cmp.condition) return null;
  const [reg, imm] = cmp.operands.split(',').map((p) => p.trim());
  const r = regNumber(reg ?? '');
  const k = immediate(imm ?? '');
  if (r === null || r > 12 || k === null || k < 0 || k > 4095) return null;
  return { register: r, k, condition };
}

/**
 * The largest index on the path where the guard's branch is `taken` (or not): unsigned compares only
 * (a signed bound leaves negative indices). Null when that path is not bounded.
 */
export function guardMax(g: SwitchGuard, taken: boolean): number | null {
  const c = g.condition;
  if (taken ? c === 'ls' : c === 'hi') return g.k;
  if (taken ? c === 'lo' || c === 'cc' : c === 'hs' || c === 'cs') return g.k > 0 ? g.k - 1 : null;
  return null;
}

interface SwitchResult {
  /** Landing of each index 0..max, in order. */
  targets: Landing[];
  /** Bytes of `comp` the dispatch read as data (its table). */
  tableBytes: number[];
}

/**
 * Runs the dispatch for every index of the guard: from `start` (the compare, or the dispatch block)
 * with the index register set, until the PC leaves [start, end) and the helper's straight-line body
 * [helper, helperEnd). Null unless every index lands, aligned, inside `comp`.
 */
export function runSwitch(
  set: ComponentSet,
  comp: MapComponent,
  processor: Processor,
  mode: ArmMode,
  start: number,
  end: number,
  guard: { register: number; max: number },
  helper: { start: number; end: number } | null,
  stackWord?: number,
  /** Registers taken to hold these values when the run starts (a table base set before the dispatch). */
  registers: Record<number, number> = {},
): SwitchResult | null {
  const reads = new Set<number>();
  const targets: Landing[] = [];
  for (let i = 0; i <= guard.max; i++) {
    const state = emuState(start, mode === 'thumb', { ...registers, [guard.register]: i, 13: SCRATCH_SP });
    const own = new Set<number>();
    const r = emulate(state, {
      processor,
      memory: staticMemory(set, comp, own, stackWord),
      maxSteps: 64,
      stopAt: (pc) => !(pc >= start && pc < end) && !(helper && pc >= helper.start && pc < helper.end),
    });
    if (r.stop !== 'stopped') return null;
    // A table dispatch reads one entry per index (a word, halfword or byte of the table), or none
    // (ADD PC over branches). Reading more is following pointers in data: a call or jump through
    // an object (a device table's handler), which the program's data decide, not a switch.
    let entry = 0;
    for (const a of own) {
      reads.add(a);
      // (The literal holding the table's address is the code's own constant, not the entry.)
      if (a < comp.start || a >= comp.end || comp.cls[a - comp.start] !== ByteClass.literalPool) entry++;
    }
    if (entry > 4) return null;
    const m: ArmMode = r.thumb ? 'thumb' : 'arm';
    if (r.pc < comp.start || r.pc >= comp.end || r.pc % (m === 'arm' ? 4 : 2) !== 0) return null;
    targets.push({ address: r.pc, mode: m });
  }
  return { targets, tableBytes: [...reads].sort((a, b) => a - b) };
}

/**
 * The value register `reg` holds when the block [start, at) has run up to `at`, from unknown
 * registers on entry (a PC-relative address built and adjusted in the block: `add ip, pc, #4;
 * orr ip, ip, #1; bx ip`); null when the block leaves it unknown or cannot be run.
 */
export function blockValue(
  set: ComponentSet,
  comp: MapComponent,
  processor: Processor,
  mode: ArmMode,
  start: number,
  at: number,
  reg: number,
): number | null {
  const state = emuState(start, mode === 'thumb', { 13: SCRATCH_SP });
  const r = emulate(state, {
    processor,
    memory: staticMemory(set, comp),
    maxSteps: 256,
    stopAt: (pc) => pc === at,
  });
  return r.stop === 'stopped' ? state.r[reg]! : null;
}
