// The symbol table of a 32-bit little-endian ARM ELF file (what devkitARM, GCC and decompilation
// projects link): every defined FUNC, OBJECT and NOTYPE symbol with its address, size and mode. A FUNC
// with bit 0 set is Thumb; a NOTYPE label takes the mode of the ARM mapping symbol ($a, $t, $d) that
// covers it in its section; OBJECT is data. Section, file, undefined and mapping symbols are not
// names, and neither are absolute symbols (SHN_ABS: constants and linker-script values such as
// `__itcm_lma` or `FEATURE_MEDIUM_CANREAD = 1`, not places in a section). Where a FUNC or OBJECT
// symbol and untyped labels name one address of one section (`__udivsi3` and
// `.udivsi3_skip_div0_test`, `_start` and `__text_start`), the typed symbol is the name: each label
// it beats is reported as skipped, naming it. Every offset is checked against the file: a malformed ELF is refused or read in part, never
// read past its end. The work is bounded by the file: a name is looked for in at most
// NAME_BYTES_MAX + 1 bytes of the string table (a longer one is skipped unread), only the first symbol
// table is read (an ELF file has one), symbols past SYMBOL_LIMITS.maxSymbols are counted without their
// names being decoded, and the steps yield every STEP_SYMBOLS symbols so a caller can keep its event
// loop answering (driveSteps). Pure.
import { runSteps, type Steps } from '../../core/cooperative.js';
import {
  badName,
  type ParsedSymbols,
  type RawSymbol,
  SYMBOL_LIMITS,
  type SymbolMode,
  skip,
} from './types.js';

export class ElfError extends Error {}

const SHT_SYMTAB = 2;
const STT_NOTYPE = 0;
const STT_OBJECT = 1;
const STT_FUNC = 2;
const SHN_UNDEF = 0;
const SHN_LORESERVE = 0xff00;

interface Section {
  type: number;
  offset: number;
  size: number;
  link: number;
  entsize: number;
}

/** Bytes of the longest name read: SYMBOL_LIMITS.nameChars characters of UTF-8 at 4 bytes each. */
export const NAME_BYTES_MAX = SYMBOL_LIMITS.nameChars.max * 4;
/** Symbols examined between two yields. */
const STEP_SYMBOLS = 4096;

const DOLLAR = 0x24;
const DOT = 0x2e;
const MAPPING_MODES: Readonly<Record<number, SymbolMode>> = { 97: 'arm', 116: 'thumb', 100: 'data' };

export function parseElfSymbols(bytes: Uint8Array): ParsedSymbols {
  return runSteps(elfSymbolSteps(bytes));
}

/** parseElfSymbols in steps (see the file comment). */
export function* elfSymbolSteps(bytes: Uint8Array): Steps<ParsedSymbols> {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u8 = (o: number) => bytes[o]!;
  const u16 = (o: number) => dv.getUint16(o, true);
  const u32 = (o: number) => dv.getUint32(o, true);
  if (bytes.length < 52 || u32(0) !== 0x464c457f) throw new ElfError('not an ELF file');
  if (u8(4) !== 1) throw new ElfError('not a 32-bit ELF file');
  if (u8(5) !== 1) throw new ElfError('not a little-endian ELF file');
  if (u16(18) !== 40) throw new ElfError(`not an ARM ELF file (machine ${u16(18)})`);
  const shoff = u32(32);
  const shentsize = u16(46);
  const shnum = u16(48);
  if (shnum === 0 || shoff === 0) throw new ElfError('the ELF file has no section headers');
  if (shentsize < 40) throw new ElfError('the ELF section header size is too small');
  if (shoff + shnum * shentsize > bytes.length)
    throw new ElfError('the ELF section headers run past the file');
  const sections: Section[] = [];
  for (let i = 0; i < shnum; i++) {
    const o = shoff + i * shentsize;
    sections.push({
      type: u32(o + 4),
      offset: u32(o + 16),
      size: u32(o + 20),
      link: u32(o + 24),
      entsize: u32(o + 36),
    });
  }
  const within = (s: Section) => s.offset <= bytes.length && s.size <= bytes.length - s.offset;
  const out: ParsedSymbols = { symbols: [], skipped: [], skippedMore: 0, cut: 0 };
  const tables = sections.filter((s) => s.type === SHT_SYMTAB);
  if (tables.length === 0) throw new ElfError('the ELF file has no symbol table (stripped)');
  const table = tables[0]!;
  if (tables.length > 1)
    skip(out, 0, `${tables.length - 1} more symbol table(s) not read (an ELF file has one)`);
  const strings = sections[table.link];
  if (!within(table) || !strings || !within(strings))
    throw new ElfError('the ELF symbol table or its string table runs past the file');
  const strStart = strings.offset;
  const strEnd = strings.offset + strings.size;
  const decoder = new TextDecoder('utf-8', { fatal: false });
  /** Where the name at `n` ends (its NUL), or why it cannot be read. */
  const nameEnd = (n: number): number | string => {
    if (n >= strings.size) return 'name outside the string table';
    const from = strStart + n;
    const stop = Math.min(strEnd, from + NAME_BYTES_MAX + 1);
    const at = bytes.subarray(from, stop).indexOf(0);
    if (at >= 0) return from + at;
    return stop === strEnd
      ? 'name outside the string table'
      : `name longer than ${SYMBOL_LIMITS.nameChars.max} characters`;
  };
  const size = Math.max(table.entsize, 16);
  const count = Math.floor(table.size / size);
  // Mapping symbols: per section, where ARM, Thumb and data start.
  const maps = new Map<number, { at: number; mode: SymbolMode }[]>();
  const kept: { name: string; value: number; size: number; type: number; shndx: number; index: number }[] =
    [];
  for (let i = 1; i < count; i++) {
    if (i % STEP_SYMBOLS === 0) yield;
    const o = table.offset + i * size;
    const info = u8(o + 12);
    const shndx = u16(o + 14);
    const nameAt = u32(o);
    const end = nameEnd(nameAt);
    if (typeof end === 'string') {
      skip(out, i, end);
      continue;
    }
    const from = strStart + nameAt;
    const value = u32(o + 4);
    const type = info & 0xf;
    // $a, $t, $d, or one of them followed by '.' and anything.
    const mapping = end - from >= 2 && bytes[from] === DOLLAR ? MAPPING_MODES[bytes[from + 1]!] : undefined;
    if (mapping && (end === from + 2 || bytes[from + 2] === DOT)) {
      const list = maps.get(shndx) ?? [];
      list.push({ at: value, mode: mapping });
      maps.set(shndx, list);
      continue;
    }
    // Undefined, absolute (SHN_ABS) and other reserved indexes name no place in a section.
    if (shndx === SHN_UNDEF || shndx >= SHN_LORESERVE) continue;
    if (type !== STT_NOTYPE && type !== STT_OBJECT && type !== STT_FUNC) continue;
    if (end === from) continue;
    if (kept.length >= SYMBOL_LIMITS.maxSymbols.max) {
      out.cut++;
      continue;
    }
    const name = decoder.decode(bytes.subarray(from, end));
    const why = badName(name);
    if (why) {
      skip(out, i, why);
      continue;
    }
    kept.push({ name, value, size: u32(o + 8), type, shndx, index: i });
  }
  yield;
  for (const list of maps.values()) list.sort((a, b) => a.at - b.at);
  const modeOf = (shndx: number, at: number): SymbolMode | null => {
    const list = maps.get(shndx);
    if (!list) return null;
    let lo = 0;
    let hi = list.length - 1;
    let found: SymbolMode | null = null;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.at <= at) {
        found = list[mid]!.mode;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
  // Typed symbols (FUNC, OBJECT) per section and address: the labels there give way to them.
  const addressOf = (e: (typeof kept)[number]) => (e.type === STT_FUNC ? (e.value & ~1) >>> 0 : e.value);
  const typed = new Map<string, string>();
  for (const [k, e] of kept.entries()) {
    if (k % STEP_SYMBOLS === 0) yield;
    const key = `${e.shndx}:${addressOf(e)}`;
    if (e.type !== STT_NOTYPE && !typed.has(key)) typed.set(key, e.name);
  }
  for (const [k, e] of kept.entries()) {
    if (k % STEP_SYMBOLS === 0) yield;
    const address = addressOf(e);
    if (e.type === STT_NOTYPE) {
      const winner = typed.get(`${e.shndx}:${address}`);
      if (winner !== undefined) {
        skip(out, e.index, `label ${e.name}: the function or object ${winner} names this address`);
        continue;
      }
    }
    const thumbFunc = e.type === STT_FUNC && (e.value & 1) === 1;
    const mode: SymbolMode | null =
      e.type === STT_FUNC
        ? thumbFunc
          ? 'thumb'
          : 'arm'
        : e.type === STT_OBJECT
          ? 'data'
          : modeOf(e.shndx, address);
    const s: RawSymbol = {
      address,
      name: e.name,
      mode,
      size: e.size > 0 ? e.size : null,
      comment: null,
      processor: null,
      overlayId: null,
      line: e.index,
    };
    out.symbols.push(s);
  }
  return out;
}
