// Code idioms the whole-program walk recognises, each established from the program's own bytes:
// - a Thumb BL whose target restores a stack frame it did not create is GCC's long branch inside one
//   function (Thumb B reaches only 2 KiB), not a call;
// - a BL to `bx rN` is a call through a register stub (ARMv4T Thumb has no BLX);
// - a BL to a mode-switch veneer (`bx pc` + `b f`, `ldr ip, =f; bx ip`) calls f;
// - a switch dispatch, inline (`ldrls pc, [pc, rN, lsl #2]`, `addls pc, pc, ...`, a load from a table
//   then `mov pc, rN`) or through a helper that computes its return address from LR (GCC's
//   __gnu_thumb1_case_*), bounded by the guarding compare: each case index is run in the
//   interpreter on the static bytes, and where it lands is an edge of the function.
import { decodeRangeNow } from '../../arm/decoder.js';
import { emulate, emuState } from '../../arm/emulate.js';
import type { ArmMode, DecodedInstruction, DecodeWindowResult } from '../../arm/types.js';
import type { Processor } from '../../core/vocabulary.js';
import type { ComponentSet, MapComponent } from './components.js';
import { ByteClass } from './types.js';

/** Where a span of up to `max` instructions from `address` may end in `comp` (its bytes' offsets). */
function spanOf(comp: MapComponent, address: number, max: number): [number, number] {
  const o = address - comp.start;
  return [o, Math.min(comp.bytes.length, o + 4 * max)];
}

/**
 * The instructions from `address` of `comp`, up to `max` (or to the first PC write, `untilFlow`), as
 * decodeWindow gives them, without waiting: the map's builder has loaded the decoder (loadDecoder)
 * before it walks. Each distinct encoding costs Capstone once per process; an instruction object is
 * made per decode and not kept (keeping recent ones saved no time and held old-generation garbage).
 */
export function decodeSpan(
  comp: MapComponent,
  address: number,
  mode: ArmMode,
  processor: Processor,
  max: number,
  untilFlow = false,
): DecodeWindowResult {
  const [o, cut] = spanOf(comp, address, max);
  return decodeRangeNow(comp.bytes, o, cut, address, mode, processor, max, untilFlow);
}

/**
 * Decodes straight from `address` in `comp`, up to `max` instructions (fewer at a refusal or the end;
 * none outside the component or at an address unaligned for the mode). `untilFlow`: up to the first PC
 * write, included.
 */
export function decodeAt(
  comp: MapComponent,
  address: number,
  mode: ArmMode,
  processor: Processor,
  max: number,
  untilFlow = false,
): DecodedInstruction[] {
  const unit = mode === 'arm' ? 4 : 2;
  if (address < comp.start || address >= comp.end || address % unit !== 0) return [];
  return decodeSpan(comp, address, mode, processor, max, untilFlow).instructions;
}

export const baseOf = (ins: DecodedInstruction): string =>
  ins.condition && ins.mnemonic.endsWith(ins.condition)
    ? ins.mnemonic.slice(0, -ins.condition.length)
    : ins.mnemonic;

/**
 * The answers below depend on an instruction's text alone and are asked of the same few thousand
 * texts again and again (each probe and walk of the same code): each is kept per text, bounded.
 */
const MEMO_MAX = 1 << 16;

/** `compute` kept per operand text (never undefined); all texts are dropped at MEMO_MAX. */
function perText<T>(compute: (text: string) => T): (text: string) => T {
  const kept = new Map<string, T>();
  return (text) => {
    let v = kept.get(text);
    if (v === undefined) {
      v = compute(text);
      if (kept.size >= MEMO_MAX) kept.clear();
      kept.set(text, v);
    }
    return v;
  };
}

/**
 * `compute` kept per instruction text: mnemonic, then operands (the condition is part of the
 * mnemonic; it is checked too, and an instruction whose condition differs is answered afresh).
 */
function perInstruction<T>(compute: (ins: DecodedInstruction) => T): (ins: DecodedInstruction) => T {
  let kept = new Map<string, Map<string, { condition: string | undefined; value: T }>>();
  let size = 0;
  return (ins) => {
    let byOperands = kept.get(ins.mnemonic);
    const hit = byOperands?.get(ins.operands);
    if (hit !== undefined && hit.condition === ins.condition) return hit.value;
    const value = compute(ins);
    if (hit !== undefined) return value;
    if (size >= MEMO_MAX) {
      kept = new Map();
      size = 0;
      byOperands = undefined;
    }
    if (byOperands === undefined) {
      byOperands = new Map();
      kept.set(ins.mnemonic, byOperands);
    }
    byOperands.set(ins.operands, { condition: ins.condition, value });
    size++;
    return value;
  };
}

const REG = /^r([0-9]|1[0-2])$|^(sb|sl|fp|ip)$/;
const REG_NUMBER: Record<string, number> = { sb: 9, sl: 10, fp: 11, ip: 12, sp: 13, lr: 14, pc: 15 };
export function regNumber(name: string): number | null {
  const n = name.trim();
  if (/^r\d+$/.test(n)) {
    const v = Number(n.slice(1));
    return v <= 15 ? v : null;
  }
  return REG_NUMBER[n] ?? null;
}

/** Registers of a `{...}` list (ranges expanded); the list is shared: never change it. */
export const registerList: (operands: string) => readonly number[] | null = perText(listOf);

function listOf(operands: string): readonly number[] | null {
  const m = /\{([^}]*)\}/.exec(operands);
  if (!m) return null;
  const out: number[] = [];
  for (const part of m[1]!.split(',')) {
    const [a, b] = part.split('-').map((x) => regNumber(x));
    if (a === null || a === undefined) return null;
    if (b === undefined) out.push(a);
    else if (b === null) return null;
    else for (let r = a; r <= b; r++) out.push(r);
  }
  return out;
}

const immediate = (text: string): number | null => {
  const m = /^#(-?)(0x[0-9a-f]+|\d+)$/.exec(text.trim());
  if (!m) return null;
  const v = Number(m[2]);
  return m[1] ? -v : v;
};

/**
 * How one instruction moves SP: a byte delta (negative grows the stack), 'unknown' for any other write
 * to SP, null when it leaves SP alone. `returns` when it also pops PC.
 */
export type StackEffect = { readonly delta: number | 'unknown'; readonly returns: boolean } | null;

const effectOf = perInstruction(computeStackEffect);

/** The answer is shared between instructions of one text: never change it. */
export function stackEffect(ins: DecodedInstruction): StackEffect {
  // Only instructions that name SP can move it (PUSH/POP name it implicitly).
  const m = ins.mnemonic;
  if (!ins.operands.includes('sp') && !m.startsWith('push') && !m.startsWith('pop')) return null;
  return effectOf(ins);
}

function computeStackEffect(ins: DecodedInstruction): { delta: number | 'unknown'; returns: boolean } | null {
  const base = baseOf(ins);
  const ops = ins.operands.replace(/\s+/g, ' ').trim();
  if (base === 'push' || ((base === 'stmdb' || base === 'stmfd') && ops.startsWith('sp!,'))) {
    const list = registerList(ops);
    return list ? { delta: -4 * list.length, returns: false } : { delta: 'unknown', returns: false };
  }
  if (
    base === 'pop' ||
    ((base === 'ldm' || base === 'ldmia' || base === 'ldmfd') && ops.startsWith('sp!,'))
  ) {
    const list = registerList(ops);
    return list
      ? { delta: 4 * list.length, returns: list.includes(15) }
      : { delta: 'unknown', returns: false };
  }
  const parts = ops.split(',').map((p) => p.trim());
  if (parts[0] !== 'sp') {
    // Post-indexed or writeback forms through SP, e.g. `ldr r0, [sp], #4`, `str r0, [sp, #-4]!`.
    if (/\[sp(, #[^\]]*)?\]!|\[sp\], /.test(ops)) return { delta: 'unknown', returns: false };
    return null;
  }
  if ((base === 'add' || base === 'sub') && !ins.condition) {
    const imm = immediate(parts.length === 2 ? parts[1]! : parts[1] === 'sp' ? parts[2]! : '');
    if (imm !== null && (parts.length === 2 || parts[1] === 'sp'))
      return { delta: base === 'add' ? imm : -imm, returns: false };
  }
  if (base === 'cmp' || base === 'cmn' || base === 'tst' || base === 'teq' || base.startsWith('str'))
    return null;
  return { delta: 'unknown', returns: false };
}

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
      for (const ins of run) {
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

export interface Landing {
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
    const x = where.bytes;
    return (x[o]! | (x[o + 1]! << 8) | (x[o + 2]! << 16) | (x[o + 3]! << 24)) >>> 0;
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
  for (const ins of run) {
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

const FLAG_SETTERS = new Set(
  (
    'cmp cmn tst teq msr ands eors subs rsbs adds adcs sbcs rscs orrs movs bics mvns lsls lsrs asrs rors ' +
    'negs muls mlas umulls umlals smulls smlals'
  ).split(' '),
);

/** The compare that last set the flags before instructions[before], if it was a `cmp`. */
export function lastCompare(
  instructions: readonly DecodedInstruction[],
  before: number,
): DecodedInstruction | undefined {
  for (let i = before - 1; i >= 0; i--) {
    const ins = instructions[i]!;
    const b = baseOf(ins);
    if (ins.flow !== undefined) return undefined;
    if (FLAG_SETTERS.has(b)) return b === 'cmp' ? ins : undefined;
  }
  return undefined;
}

/** The names of each register: rN, and its alias (sb, sl, fp, ip, sp, lr, pc). */
const NAMES_OF = Array.from({ length: 16 }, (_, n) => [
  `r${n}`,
  ...Object.entries(REG_NUMBER)
    .filter(([, v]) => v === n)
    .map(([k]) => k),
]);
const NAME_TESTS = NAMES_OF.map((names) =>
  names.map((name) => new RegExp(`(^|[^a-z0-9])${name}([^a-z0-9]|$)`)),
);
/** Bit n: the text names register n; every bit when it holds a register range (it may cover any). */
const mentionedIn = perText((ops: string): number => {
  if (/\{[^}]*-[^}]*\}/.test(ops)) return 0xffff;
  let mask = 0;
  for (let n = 0; n < 16; n++) if (NAME_TESTS[n]!.some((t) => t.test(ops))) mask |= 1 << n;
  return mask;
});

/** Whether any of instructions[from..to) mentions register `n` (by name, or in a register range). */
export function mentionsRegister(
  instructions: readonly DecodedInstruction[],
  from: number,
  to: number,
  n: number,
): boolean {
  if (!Number.isInteger(n) || n < 0 || n > 15) return false;
  for (let i = from; i < to; i++) if ((mentionedIn(instructions[i]!.operands) >> n) & 1) return true;
  return false;
}

export interface SwitchResult {
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
): SwitchResult | null {
  const reads = new Set<number>();
  const targets: Landing[] = [];
  for (let i = 0; i <= guard.max; i++) {
    const state = emuState(start, mode === 'thumb', { [guard.register]: i, 13: SCRATCH_SP });
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

/** Register numbers named in an operand text (ranges in lists expanded); shared: never change it. */
const registersIn: (text: string) => readonly number[] = perText(namedIn);

function namedIn(text: string): readonly number[] {
  const out: number[] = [];
  const list = registerList(text);
  if (list) out.push(...list);
  for (const m of text.replace(/\{[^}]*\}/g, '').matchAll(/\b(r\d{1,2}|sb|sl|fp|ip|sp|lr|pc)\b/g)) {
    const n = regNumber(m[1]!);
    if (n !== null) out.push(n);
  }
  return out;
}

const NO_DEST = new Set([
  'cmp',
  'cmn',
  'tst',
  'teq',
  'b',
  'bl',
  'bx',
  'blx',
  'msr',
  'svc',
  'bkpt',
  'pld',
  'nop',
]);
const READS_DEST_TWO_OPERAND = new Set([
  'and',
  'eor',
  'orr',
  'bic',
  'adc',
  'sbc',
  'ror',
  'lsl',
  'lsr',
  'asr',
  'mul',
  'add',
  'sub',
]);

/**
 * The general registers (r0..r12) an instruction reads as values, as a bit mask: its source operands,
 * address registers, stored registers; a two-operand Thumb ALU form also reads its destination.
 * Saving registers (PUSH/STMDB SP!, a MOV from a high register) does not count: that is what a
 * prologue does with registers it has not written.
 */
export const valueReads: (ins: DecodedInstruction) => number = perInstruction(readsOf);

function readsOf(ins: DecodedInstruction): number {
  const base = baseOf(ins).replace(/s$/, '');
  const ops = ins.operands;
  const regs = (t: string) => registersIn(t).filter((r) => r <= 12);
  const mask = (rs: readonly number[]) => rs.reduce((m, r) => m | (1 << r), 0);
  if (base === 'push' || base === 'pop' || base === 'stmdb' || base === 'stmfd' || base === 'adr') return 0;
  if (base === 'mov' || base === 'mvn' || base === 'neg') {
    const src = ops.split(',').slice(1).join(',');
    const r = regs(src);
    return base === 'mov' && r.length === 1 && r[0]! >= 8 ? 0 : mask(r);
  }
  if (base.startsWith('str') || base.startsWith('stm') || NO_DEST.has(base)) return mask(regs(ops));
  if (base.startsWith('ldm')) return mask(regs(ops.split('{')[0]!));
  const parts = ops.split(',');
  const dest = parts[0] ?? '';
  const rest = parts.slice(1).join(',');
  let m = mask(regs(rest));
  if (parts.length === 2 && READS_DEST_TWO_OPERAND.has(base)) m |= mask(regs(dest));
  return m;
}

/** The general registers (r0..r12) an instruction writes, as a bit mask. */
export const valueWrites: (ins: DecodedInstruction) => number = perInstruction(writesOf);

function writesOf(ins: DecodedInstruction): number {
  const base = baseOf(ins).replace(/s$/, '');
  const ops = ins.operands;
  const mask = (rs: readonly number[]) => rs.filter((r) => r <= 12).reduce((m, r) => m | (1 << r), 0);
  if (base === 'pop') return mask(registerList(ops) ?? []);
  if (base.startsWith('ldm')) return mask(registerList(ops) ?? []);
  if (base.startsWith('str') || base.startsWith('stm') || base === 'push' || NO_DEST.has(base)) return 0;
  const parts = ops.split(',');
  let m = mask(registersIn(parts[0] ?? ''));
  if (base === 'ldrd' || base === 'umull' || base === 'smull' || base === 'umlal' || base === 'smlal')
    m |= mask(registersIn(parts[1] ?? ''));
  return m;
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
