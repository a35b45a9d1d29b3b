// One syntax in and out: the assembly a caller writes may be the unified syntax (UAL) the disassembly
// prints (Capstone's, for ARMv5TE on the ARM9 and ARMv4T on the ARM7, ARM and Thumb) or armips' own
// pre-UAL syntax; this module rewrites the UAL spellings armips does not read into armips' own, line
// for line (armips' line numbers stay the caller's), before the directive checks of source.ts run on
// the result. A UAL spelling is rewritten only where armips would refuse it (`movs` in Thumb, `addseq`,
// `ldrbeq`, `ldm r0!, {...}`, `sb`/`sl`/`fp`/`ip`, Thumb `adr`) or reads it alike, so a line of armips'
// own syntax keeps its meaning; where one text means two things in the two syntaxes (Thumb `mov r0,
// r1`, `msr cpsr, r0`) armips' reading is kept and noted. A form armips lacks or gets wrong is
// written as its encoding (`.dw`, encode.ts) when its operands are plain registers and numbers (with a
// label or an expression it is left to armips, which says what it cannot read). A form that cannot be
// meant (PC where it is UNPREDICTABLE, a Thumb flag-setting form of a high register) is refused with
// its line and the reason. Pure: text in, text out, linear in the text.
import { ReMcpError } from '../core/errors.js';
import type { Processor } from '../core/vocabulary.js';
import { type ArmMnemonic, parseArmMnemonic } from './arm-mnemonic.js';
import { type Encoded, encodeArm } from './encode.js';
import { ASM_LIMITS } from './source.js';

type AsmMode = 'arm' | 'thumb';

interface ArmipsSource {
  /** The source in armips' syntax, one line for each line of the caller's. */
  source: string;
  /** What the caller should know about a line read one way where it could be read another. */
  notes: string[];
}

/** Notes kept (the rest are counted in the last one). */
const NOTES_MAX = 16;

/** r9..r12 by the names the disassembly prints (armips knows only r0..r15, sp, lr, pc). */
const ALIASES: Readonly<Record<string, string>> = { sb: 'r9', sl: 'r10', fp: 'r11', ip: 'r12' };
const ALIAS = /(?<![\w@.$])(sb|sl|fp|ip)(?![\w@.$(])/gi;

/** The source rewritten into armips' syntax (see the file comment). */
export function toArmipsSyntax(
  source: string,
  options: { mode: AsmMode; processor: Processor },
): ArmipsSource {
  // The size source.ts allows, checked before any work (its own check runs on the result).
  if (source.length > ASM_LIMITS.sourceChars.max)
    throw new ReMcpError(
      'limit-exceeded',
      `the assembly is ${source.length} characters; at most ${ASM_LIMITS.sourceChars.max}`,
    );
  const notes: string[] = [];
  let noted = 0;
  const note = (text: string) => {
    if (notes.length < NOTES_MAX) notes.push(text);
    noted++;
  };
  let mode = options.mode;
  let inBlock = false;
  let continued = false;
  const lines = source.split('\n');
  const out: string[] = [];
  for (const [n, whole] of lines.entries()) {
    const cr = whole.endsWith('\r');
    const line = cr ? whole.slice(0, -1) : whole;
    const scan = scanLine(line, inBlock);
    inBlock = scan.inBlock;
    const untouchable = !scan.plain || continued;
    continued = scan.code.trimEnd().endsWith('\\');
    let changed = false;
    const statements = splitStatements(scan.code).map((statement) => {
      const { labels, body } = labelsOf(statement);
      const directive = /^\.(arm|thumb)$/i.exec(body);
      if (directive) {
        mode = directive[1]!.toLowerCase() as AsmMode;
        return statement;
      }
      if (untouchable || continued) return statement;
      const instruction = /^([A-Za-z][A-Za-z0-9]*)(?:\s+(.*))?$/s.exec(body);
      if (!instruction) return statement;
      const context: Context = {
        line: n + 1,
        processor: options.processor,
        note: (text) => note(`line ${n + 1}: ${text}`),
      };
      const rewritten =
        mode === 'arm'
          ? rewriteArm(instruction[1]!.toLowerCase(), instruction[2] ?? '', context)
          : rewriteThumb(instruction[1]!.toLowerCase(), instruction[2] ?? '', context);
      if (rewritten === null) return statement;
      changed = true;
      return `${labels}${rewritten}`;
    });
    out.push((changed ? statements.join(' :: ') : line) + (cr ? '\r' : ''));
  }
  if (noted > notes.length) notes.push(`${noted - notes.length} more note(s) like these`);
  return { source: out.join('\n'), notes };
}

const LABEL = /\s*[@A-Za-z_][\w@.]*\s*:(?!:)/y;

/** A statement's leading label definitions (`name:`, `@@local:`) and the rest, trimmed. */
function labelsOf(statement: string): { labels: string; body: string } {
  let at = 0;
  for (;;) {
    LABEL.lastIndex = at;
    if (!LABEL.test(statement)) break;
    at = LABEL.lastIndex;
  }
  return { labels: `${statement.slice(0, at)} `.trimStart(), body: statement.slice(at).trim() };
}

interface Context {
  line: number;
  processor: Processor;
  note(text: string): void;
}

/**
 * One line with its comments blanked (strings and one-character literals kept as they are), whether
 * it held no string and no block comment (`plain`: only such a line is rewritten), and whether a
 * block comment is still open at its end.
 */
function scanLine(line: string, inBlock: boolean): { code: string; plain: boolean; inBlock: boolean } {
  let code = '';
  let plain = !inBlock;
  let i = 0;
  while (i < line.length) {
    if (inBlock) {
      const end = line.indexOf('*/', i);
      if (end < 0) break;
      inBlock = false;
      code += ' ';
      i = end + 2;
      continue;
    }
    const c = line[i]!;
    if (c === '"') {
      plain = false;
      let j = i + 1;
      while (j < line.length && line[j] !== '"')
        j += line[j] === '\\' && (line[j + 1] === '"' || line[j + 1] === '\\') ? 2 : 1;
      code += line.slice(i, j + 1);
      i = j + 1;
    } else if (c === "'" && line[i + 2] === "'") {
      code += line.slice(i, i + 3);
      i += 3;
    } else if (c === ';' || (c === '/' && line[i + 1] === '/')) {
      break;
    } else if (c === '/' && line[i + 1] === '*') {
      inBlock = true;
      plain = false;
      i += 2;
    } else {
      code += c;
      i++;
    }
  }
  return { code, plain, inBlock };
}

/** A line's statements (armips separates them with `::`), outside strings and literals. */
function splitStatements(code: string): string[] {
  const out: string[] = [];
  let from = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (c === '"') {
      i++;
      while (i < code.length && code[i] !== '"')
        i += code[i] === '\\' && (code[i + 1] === '"' || code[i + 1] === '\\') ? 2 : 1;
    } else if (c === "'" && code[i + 2] === "'") i += 2;
    else if (c === ':' && code[i + 1] === ':') {
      out.push(code.slice(from, i));
      from = i + 2;
      i++;
    }
  }
  out.push(code.slice(from));
  return out;
}

/** Operands split at the commas outside brackets, braces, parentheses and literals, trimmed. */
function splitOperands(text: string): string[] {
  if (text.trim() === '') return [];
  const out: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" && text[i + 2] === "'") i += 2;
    else if (c === '[' || c === '{' || c === '(') depth++;
    else if (c === ']' || c === '}' || c === ')') depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(from, i).trim());
      from = i + 1;
    }
  }
  out.push(text.slice(from).trim());
  return out;
}

/** Any of the alias names, anywhere (a cheap test before the exact one: most operands name none). */
const MAY_ALIAS = /sb|sl|fp|ip/i;
const withAliases = (operand: string) =>
  MAY_ALIAS.test(operand) ? operand.replace(ALIAS, (m) => ALIASES[m.toLowerCase()] ?? m) : operand;

/** r0..r15, sp, lr, pc (after aliases) -> its number; null otherwise. */
function registerNumber(text: string): number | null {
  const t = text.trim().toLowerCase();
  if (t === 'sp') return 13;
  if (t === 'lr') return 14;
  if (t === 'pc') return 15;
  const m = /^r(\d{1,2})$/.exec(t);
  if (!m) return null;
  const n = Number(m[1]);
  return n <= 15 ? n : null;
}

const refuse = (context: Context, why: string): never => {
  throw new ReMcpError('invalid-argument', `line ${context.line}: ${why}`);
};

const join = (mnemonic: string, operands: string[]) =>
  operands.length === 0 ? mnemonic : `${mnemonic} ${operands.join(', ')}`;

/** A `.dw` line for an encoding encode.ts made, or null when it made none. */
const raw = (encoded: Encoded | null): string | null =>
  encoded === null ? null : `.dw 0x${encoded.value.toString(16).padStart(8, '0')}`;

// ---------------------------------------------------------------------------------------------- ARM

const MAY_RRX = /rrx/i;

/** The ARM statement in armips' syntax, or null when it stays as written. */
function rewriteArm(mnemonic: string, operandText: string, context: Context): string | null {
  const parsed = parseArmMnemonic(mnemonic);
  if (parsed === null) return null;
  const given = splitOperands(operandText);
  // armips reads RRX as a shift only with its amount, 1.
  const operands = given.map((o) =>
    MAY_RRX.test(o)
      ? withAliases(o)
          .replace(/^rrx$/i, 'rrx #1')
          .replace(/,\s*rrx\s*\]/i, ', rrx #1]')
      : withAliases(o),
  );
  const { base, family, suffix, cond } = parsed;
  const encoded = raw(encodeArm(parsed, operands, context.processor));
  if (encoded !== null) return encoded;
  const pc = unpredictablePc(parsed, operands);
  if (pc !== null)
    refuse(
      context,
      `${mnemonic} ${given.join(', ')}: PC as ${pc} is UNPREDICTABLE on ARMv4T/ARMv5TE and armips does not assemble it (write the word with .dw if these exact bits are meant)`,
    );
  let name: string;
  let ops = operands;
  switch (family) {
    case 'flags':
      name = `${base}${cond}${suffix}`;
      break;
    case 'transfer':
      name = `${base}${cond}${suffix}`;
      break;
    case 'multiple':
      name = `${base}${cond}${suffix === '' ? 'ia' : suffix}`;
      break;
    case 'swap':
      name = `swp${cond}${suffix}`;
      break;
    default:
      name = `${base}${cond}`;
  }
  if (base === 'rrx') {
    // RRX Rd, Rm is MOV Rd, Rm, RRX (armips reads RRX only as a shift).
    name = `mov${cond}${suffix}`;
    ops = [...operands, 'rrx #1'];
  } else if (base === 'svc')
    // encode.ts writes SVC with a plain number; armips' SWI would move a number below 0xff.
    refuse(context, `${mnemonic} takes a plain number here (swi is armips' BIOS-call spelling)`);
  else if (base === 'mrs' || base === 'msr') {
    ops = operands.map(cpsrName);
    if (base === 'msr' && /^(cpsr|spsr)$/i.test(ops[0] ?? ''))
      context.note(
        `"${mnemonic} ${given.join(', ')}" writes all four fields (${ops[0]!.toLowerCase()}_fsxc), as armips reads it: the disassembly prints a field mask of 0 this way`,
      );
  } else if (/^(mcr|mrc|cdp|mcrr|mrrc)/.test(base)) ops = operands.map((o) => o.replace(/^#/, ''));
  else if ((base === 'push' || base === 'pop') && ops.length === 1) {
    // One register: LDR/STR with SP writeback, as GNU as writes it and as the disassembly prints
    // the load (`pop {r4}`); armips would write LDM/STM.
    const single = /^\{\s*([^,\-\s}]+)\s*\}$/.exec(ops[0]!)?.[1];
    if (single !== undefined && registerNumber(single) !== null)
      return base === 'push' ? `str${cond} ${single}, [sp, #-4]!` : `ldr${cond} ${single}, [sp], #4`;
  } else if (base === 'ldr' || base === 'str') {
    if (suffix === 'd' && ops.length >= 3 && ops[1]!.startsWith('[') === false) {
      // LDRD/STRD Rt, Rt2, [...]: armips names only Rt (Rt2 is always Rt + 1).
      const rt = registerNumber(ops[0]!);
      const rt2 = registerNumber(ops[1]!);
      if (rt === null || rt2 !== rt + 1)
        refuse(context, `${mnemonic}: the second register must be the first plus one (${given.join(', ')})`);
      ops = [ops[0]!, ...ops.slice(2)];
    }
  }
  const text = join(name, ops);
  return text === join(mnemonic, given) ? null : text;
}

const MULTIPLIES =
  /^(mul|mla|umull|umlal|smull|smlal|smla[bt][bt]|smlaw[bt]|smul[bt][bt]|smulw[bt]|smlal[bt][bt]|q(d?)(add|sub)|clz|swp)$/;

/**
 * Where a statement names PC in an operand the architecture makes UNPREDICTABLE for it and armips
 * refuses (its register classes without r15): the base of LDM/STM, any operand of a multiply,
 * saturating add, CLZ or SWP, the target of BLX, the destination of MRS, the core register of MCR,
 * MCRR or MRRC. Null otherwise.
 */
function unpredictablePc(parsed: ArmMnemonic, operands: string[]): string | null {
  const isPc = (o: string | undefined) => o !== undefined && registerNumber(o.replace(/!$/, '')) === 15;
  const { base, family } = parsed;
  if (family === 'multiple') return isPc(operands[0]) ? 'the base register' : null;
  if (MULTIPLIES.test(base) || base === 'swp')
    return operands.some((o) => isPc(o.replace(/^\[|\]$/g, ''))) ? 'an operand' : null;
  if (base === 'blx' && operands.length === 1) return isPc(operands[0]) ? 'the target' : null;
  if (base === 'mrs') return isPc(operands[0]) ? 'the destination' : null;
  if (/^(mcr2?|mcrr|mrrc)$/.test(base)) return operands.some(isPc) ? 'a core register' : null;
  return null;
}

/** The status register as ARMv4T/ARMv5TE name it (Capstone and ARMv7 say APSR). */
function cpsrName(operand: string): string {
  const t = operand.toLowerCase();
  if (t === 'apsr') return 'cpsr';
  if (t === 'apsr_nzcvq') return 'cpsr_f';
  if (t === 'apsr_g') return 'cpsr_s';
  if (t === 'apsr_nzcvqg') return 'cpsr_fs';
  return operand;
}

// -------------------------------------------------------------------------------------------- Thumb

/** UAL Thumb mnemonics that armips spells without the S (every such instruction sets the flags). */
const THUMB_FLAGS: Readonly<Record<string, string>> = {
  movs: 'mov',
  adds: 'add',
  subs: 'sub',
  ands: 'and',
  eors: 'eor',
  orrs: 'orr',
  bics: 'bic',
  adcs: 'adc',
  sbcs: 'sbc',
  rors: 'ror',
  mvns: 'mvn',
  muls: 'mul',
  lsls: 'lsl',
  lsrs: 'lsr',
  asrs: 'asr',
  negs: 'neg',
  rsbs: 'rsb',
};
/** Two-register data operations whose operands may be given in either order (Rd = Rd op Rm). */
const COMMUTATIVE = new Set(['and', 'eor', 'orr', 'adc', 'mul']);
const TWO_REGISTER = new Set(['and', 'eor', 'orr', 'adc', 'sbc', 'bic', 'ror', 'mul', 'lsl', 'lsr', 'asr']);

const isLow = (r: number | null): r is number => r !== null && r < 8;

/** The Thumb statement in armips' syntax, or null when it stays as written. */
function rewriteThumb(mnemonic: string, operandText: string, context: Context): string | null {
  const given = splitOperands(operandText);
  const ops = given.map(withAliases);
  const same = join(mnemonic, given);
  const done = (text: string) => (text === same ? null : text);
  const regs = ops.map(registerNumber);
  const flagged = THUMB_FLAGS[mnemonic];
  if (flagged !== undefined) {
    // armips' spelling without the S of a high register is another instruction (MOV/ADD/CMP of the
    // high-register group, which leave the flags alone): refused rather than read as that.
    if (regs.some((r) => r !== null && r > 7))
      refuse(context, `${mnemonic}: Thumb sets the flags only with r0-r7 (${given.join(', ')})`);
    if (flagged === 'mov' && ops.length === 2 && isLow(regs[0]!) && isLow(regs[1]!))
      // MOVS Rd, Rm is LSL Rd, Rm, #0 (armips' `mov` of two low registers is ADD Rd, Rm, #0).
      return `lsl ${ops[0]}, ${ops[1]}, #0`;
    if (flagged === 'rsb') {
      // RSBS Rd, Rm, #0 is NEG Rd, Rm (its only Thumb form).
      if (ops.length === 3 && /^#?0+$|^#?0x0+$/i.test(ops[2]!)) return `neg ${ops[0]}, ${ops[1]}`;
      return refuse(context, `${mnemonic}: Thumb has only rsbs rd, rm, #0 (neg rd, rm)`);
    }
    if (TWO_REGISTER.has(flagged) && ops.length === 3 && regs.every((r) => r !== null)) {
      // The three-register spelling of a two-register operation: Rd = Rd op Rm.
      if (regs[0] === regs[1]) return `${flagged} ${ops[0]}, ${ops[2]}`;
      if (regs[0] === regs[2] && COMMUTATIVE.has(flagged)) return `${flagged} ${ops[0]}, ${ops[1]}`;
      return refuse(
        context,
        `${mnemonic}: Thumb's ${flagged} writes its first operand: rd, rd, rm${COMMUTATIVE.has(flagged) ? ' (or rd, rm, rd)' : ''}`,
      );
    }
    return done(join(flagged, ops));
  }
  if ((mnemonic === 'mov' || mnemonic === 'add') && ops.length === 2 && isLow(regs[0]!) && isLow(regs[1]!))
    context.note(
      `Thumb "${mnemonic} ${given.join(', ')}" of two low registers is read as armips reads it, ${mnemonic === 'mov' ? 'adds rd, rm, #0' : 'adds rd, rd, rm'} (sets the flags): the high-register form the disassembly prints this way is UNPREDICTABLE on ARMv4T/ARMv5TE`,
    );
  if (mnemonic === 'add' && ops.length === 3 && regs[0] !== null && regs[2] === regs[0] && regs[1] !== null)
    // ADD Rd, Rm, Rd (the high-register form, as Capstone spells it with SP or PC): ADD Rd, Rm.
    return `add ${ops[0]}, ${ops[1]}`;
  if (mnemonic === 'adr' && ops.length === 2) return `add ${ops[0]}, =${ops[1]!.replace(/^#/, '')}`;
  if (mnemonic === 'svc')
    return join(
      'swi',
      ops.map((o) => o.replace(/^#/, '')),
    );
  if (['ldm', 'ldmia', 'ldmfd', 'stm', 'stmia', 'stmea'].includes(mnemonic) && ops.length === 2) {
    const name = mnemonic.startsWith('ldm') ? 'ldmia' : 'stmia';
    const base = ops[0]!.replace(/!$/, '').trim();
    const b = registerNumber(base);
    if (!ops[0]!.endsWith('!')) {
      // Thumb's LDM always writes back, unless the base is loaded: UAL then leaves out the `!`.
      const list = registerList(ops[1]!);
      if (name === 'stmia' || b === null || list === null || !list.includes(b))
        refuse(context, `${mnemonic}: Thumb's ${name} writes the base back: write ${base}!`);
    }
    return done(join(name, [`${base}!`, ops[1]!]));
  }
  return done(join(mnemonic, ops));
}

/** The registers of `{r0, r2-r4}`, or null when it is not such a list of plain registers. */
function registerList(text: string): number[] | null {
  const m = /^\{(.*)\}$/s.exec(text.trim());
  if (!m) return null;
  const out: number[] = [];
  for (const part of m[1]!.split(',')) {
    const range = part.split('-');
    if (range.length > 2) return null;
    const from = registerNumber(withAliases(range[0]!));
    const to = range.length === 2 ? registerNumber(withAliases(range[1]!)) : from;
    if (from === null || to === null || to < from) return null;
    for (let r = from; r <= to; r++) out.push(r);
  }
  return out;
}
