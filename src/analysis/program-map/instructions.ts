// What the whole-program walk reads of single instructions and straight runs of them: decoding a span
// of a component, the base mnemonic, register names and lists, how an instruction moves SP, which
// registers it reads and writes, the compare that last set the flags. Answers that depend on an
// instruction's text alone are kept per text (bounded). Pure.
import { decodeRangeNow } from '../../arm/decoder.js';
import type { ArmMode, DecodedInstruction, DecodeWindowResult } from '../../arm/types.js';
import { memoByText } from '../../core/text-memo.js';
import type { Processor } from '../../core/vocabulary.js';
import type { MapComponent } from './components.js';

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
  // The span's bytes: up to `max` instructions of 4 bytes from `address`, within the component.
  const o = address - comp.start;
  const cut = Math.min(comp.bytes.length, o + 4 * max);
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
const perText = <T>(compute: (text: string) => T): ((text: string) => T) => memoByText(compute, MEMO_MAX);

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

export const REG = /^r([0-9]|1[0-2])$|^(sb|sl|fp|ip)$/;
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

export const immediate = (text: string): number | null => {
  const m = /^#(-?)(0x[0-9a-f]+|\d+)$/.exec(text.trim());
  if (!m) return null;
  const v = Number(m[2]);
  return m[1] ? -v : v;
};

/**
 * How one instruction moves SP: a byte delta (negative grows the stack), 'unknown' for any other write
 * to SP, null when it leaves SP alone. `returns` when it also pops PC.
 */
type StackEffect = { readonly delta: number | 'unknown'; readonly returns: boolean } | null;

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
  // One register pushed or popped with writeback (GCC's ARM single-register push and pop):
  // `str lr, [sp, #-4]!`, `ldr pc, [sp], #4`.
  const single =
    base === 'str' || base === 'ldr'
      ? /^(\w+), \[sp, #(-?(?:0x[0-9a-f]+|\d+))\]!$|^(\w+), \[sp\], #(-?(?:0x[0-9a-f]+|\d+))$/.exec(ops)
      : null;
  if (single) {
    const text = single[2] ?? single[4]!;
    const amount = text.startsWith('-') ? -Number(text.slice(1)) : Number(text);
    return { delta: amount, returns: base === 'ldr' && (single[1] ?? single[3]) === 'pc' };
  }
  const parts = ops.split(',').map((p) => p.trim());
  if (parts[0] !== 'sp') {
    // Other post-indexed or writeback forms through SP, e.g. `ldr r0, [sp], r1`.
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
