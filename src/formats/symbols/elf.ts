// The symbol table of a 32-bit little-endian ARM ELF file (what devkitARM, GCC and decompilation
// projects link): every defined FUNC, OBJECT and NOTYPE symbol with its address, size and mode. A FUNC
// with bit 0 set is Thumb; a NOTYPE label takes the mode of the ARM mapping symbol ($a, $t, $d) that
// covers it in its section; OBJECT is data. Section, file, undefined and mapping symbols are not
// names, and neither are absolute symbols (SHN_ABS: constants and linker-script values such as
// `__itcm_lma` or `FEATURE_MEDIUM_CANREAD = 1`, not places in a section). Where a FUNC or OBJECT
// symbol and untyped labels name one address of one section (`__udivsi3` and
// `.udivsi3_skip_div0_test`, `_start` and `__text_start`), the typed symbol is the name: each label
// it beats is reported as skipped, naming it. A symbol's address is its run address (the ELF's
// virtual address); a section that runs elsewhere than it is loaded (ITCM, DTCM, code start-up copies:
// its PT_LOAD segment's physical address differs from its virtual one) gives its symbols the load
// address too (RawSymbol.loadAddress), so an import can tell them apart from code that runs in place.
// Every offset is checked against the file: a malformed ELF is refused or read in part, never
// read past its end. The work is bounded by the file: a name is looked for in at most
// NAME_BYTES_MAX + 1 bytes of the string table (a longer one is skipped unread), only the first symbol
// table is read (an ELF file has one), at most ELF_LIMITS.movedSegments segments that load elsewhere
// are read, symbols past SYMBOL_LIMITS.maxSymbols are counted without their names being decoded, and
// the steps yield every STEP_SYMBOLS symbols so a caller can keep its event loop answering
// (driveSteps). Pure.
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

const SHT_NOBITS = 8;
const SHT_SYMTAB = 2;
const SHF_ALLOC = 2;
const PT_LOAD = 1;
const STT_NOTYPE = 0;
const STT_OBJECT = 1;
const STT_FUNC = 2;
const SHN_UNDEF = 0;
const SHN_LORESERVE = 0xff00;

const ELF_LIMITS = {
  /** Loadable segments whose load address differs from their run address, read from one file. */
  movedSegments: { max: 256, unit: 'segments' },
} as const;

interface Section {
  type: number;
  flags: number;
  addr: number;
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

/** The parts of an ELF file the symbol reader uses. */
interface ElfFile {
  bytes: Uint8Array;
  u8: (o: number) => number;
  u16: (o: number) => number;
  u32: (o: number) => number;
  sections: Section[];
  /** Per section index: its load address minus its run address, for sections that run elsewhere. */
  moved: Map<number, number>;
}

/** A defined symbol that may become a name. */
interface Kept {
  name: string;
  value: number;
  size: number;
  type: number;
  shndx: number;
  index: number;
}

/** What the table pass collects: the candidates and, per section, where ARM, Thumb and data start. */
interface TableRead {
  kept: Kept[];
  maps: Map<number, { at: number; mode: SymbolMode }[]>;
}

export function parseElfSymbols(bytes: Uint8Array): ParsedSymbols {
  return runSteps(elfSymbolSteps(bytes));
}

/** parseElfSymbols in steps (see the file comment). */
export function* elfSymbolSteps(bytes: Uint8Array): Steps<ParsedSymbols> {
  const out: ParsedSymbols = { symbols: [], skipped: [], skippedMore: 0, cut: 0 };
  const file = readElfFile(bytes, out);
  const read = yield* readSymbolTable(file, out);
  yield;
  yield* chooseNames(file, read, out);
  return out;
}

/** The header checks, the section headers and the sections that run elsewhere. */
function readElfFile(bytes: Uint8Array, out: ParsedSymbols): ElfFile {
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
      flags: u32(o + 8),
      addr: u32(o + 12),
      offset: u32(o + 16),
      size: u32(o + 20),
      link: u32(o + 24),
      entsize: u32(o + 36),
    });
  }
  const file: ElfFile = { bytes, u8, u16, u32, sections, moved: new Map() };
  file.moved = movedSections(file, out);
  return file;
}

/**
 * The sections that run elsewhere than they are loaded: each allocated section with file bytes inside a
 * PT_LOAD segment whose physical (load) address differs from its virtual (run) address, with that
 * difference. A file without program headers (or with unreadable ones) has none.
 */
function movedSections(file: ElfFile, out: ParsedSymbols): Map<number, number> {
  const { bytes, u16, u32 } = file;
  const moved = new Map<number, number>();
  const phoff = u32(28);
  const phentsize = u16(42);
  const phnum = u16(44);
  if (phoff === 0 || phnum === 0 || phentsize < 32 || phoff + phnum * phentsize > bytes.length) return moved;
  const segments: { offset: number; vaddr: number; paddr: number; filesz: number }[] = [];
  let more = 0;
  for (let i = 0; i < phnum; i++) {
    const o = phoff + i * phentsize;
    const vaddr = u32(o + 8);
    const paddr = u32(o + 12);
    const filesz = u32(o + 16);
    if (u32(o) !== PT_LOAD || vaddr === paddr || filesz === 0) continue;
    if (segments.length >= ELF_LIMITS.movedSegments.max) more++;
    else segments.push({ offset: u32(o + 4), vaddr, paddr, filesz });
  }
  if (more > 0)
    skip(
      out,
      0,
      `${more} more segment(s) loaded elsewhere than they run not read (${ELF_LIMITS.movedSegments.max} are)`,
    );
  if (segments.length === 0) return moved;
  // A section belongs to the segment whose file bytes hold its own (segments may overlap in run
  // addresses: a main program copied below where it is loaded), at the same distance in both.
  for (const [index, s] of file.sections.entries()) {
    // Every allocated section with bytes in the file (code, data, exception and init tables); BSS has none.
    if (s.type === SHT_NOBITS || (s.flags & SHF_ALLOC) === 0 || s.size === 0) continue;
    const seg = segments.find(
      (g) =>
        s.offset >= g.offset &&
        s.offset - g.offset <= g.filesz - s.size &&
        s.size <= g.filesz &&
        s.addr - g.vaddr === s.offset - g.offset,
    );
    if (seg) moved.set(index, seg.paddr - seg.vaddr);
  }
  return moved;
}

/** Reads the first symbol table: the mapping symbols per section and the symbols that may be names. */
function* readSymbolTable(file: ElfFile, out: ParsedSymbols): Steps<TableRead> {
  const { bytes, u8, u16, u32, sections } = file;
  const within = (s: Section) => s.offset <= bytes.length && s.size <= bytes.length - s.offset;
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
  const read: TableRead = { kept: [], maps: new Map() };
  for (let i = 1; i < count; i++) {
    if (i % STEP_SYMBOLS === 0) yield;
    const o = table.offset + i * size;
    const shndx = u16(o + 14);
    const nameAt = u32(o);
    const end = nameEnd(nameAt);
    if (typeof end === 'string') {
      skip(out, i, end);
      continue;
    }
    const from = strStart + nameAt;
    const value = u32(o + 4);
    const type = u8(o + 12) & 0xf;
    // $a, $t, $d, or one of them followed by '.' and anything.
    const mapping = end - from >= 2 && bytes[from] === DOLLAR ? MAPPING_MODES[bytes[from + 1]!] : undefined;
    if (mapping && (end === from + 2 || bytes[from + 2] === DOT)) {
      const list = read.maps.get(shndx) ?? [];
      list.push({ at: value, mode: mapping });
      read.maps.set(shndx, list);
      continue;
    }
    // Undefined, absolute (SHN_ABS) and other reserved indexes name no place in a section.
    if (shndx === SHN_UNDEF || shndx >= SHN_LORESERVE) continue;
    if (type !== STT_NOTYPE && type !== STT_OBJECT && type !== STT_FUNC) continue;
    if (end === from) continue;
    if (read.kept.length >= SYMBOL_LIMITS.maxSymbols.max) {
      out.cut++;
      continue;
    }
    const name = decoder.decode(bytes.subarray(from, end));
    const why = badName(name);
    if (why) {
      skip(out, i, why);
      continue;
    }
    read.kept.push({ name, value, size: u32(o + 8), type, shndx, index: i });
  }
  return read;
}

/** The mode the mapping symbols of section `shndx` give `at` (the last one at or below it). */
function mappedMode(read: TableRead, shndx: number, at: number): SymbolMode | null {
  const list = read.maps.get(shndx);
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
}

const addressOf = (e: Kept) => (e.type === STT_FUNC ? (e.value & ~1) >>> 0 : e.value);

/** The names: typed symbols (FUNC, OBJECT) over the labels at their section and address. */
function* chooseNames(file: ElfFile, read: TableRead, out: ParsedSymbols): Steps<void> {
  for (const list of read.maps.values()) list.sort((a, b) => a.at - b.at);
  const typed = new Map<string, string>();
  for (const [k, e] of read.kept.entries()) {
    if (k % STEP_SYMBOLS === 0) yield;
    const key = `${e.shndx}:${addressOf(e)}`;
    if (e.type !== STT_NOTYPE && !typed.has(key)) typed.set(key, e.name);
  }
  for (const [k, e] of read.kept.entries()) {
    if (k % STEP_SYMBOLS === 0) yield;
    const address = addressOf(e);
    if (e.type === STT_NOTYPE) {
      const winner = typed.get(`${e.shndx}:${address}`);
      if (winner !== undefined) {
        skip(out, e.index, `label ${e.name}: the function or object ${winner} names this address`);
        continue;
      }
    }
    const mode: SymbolMode | null =
      e.type === STT_FUNC
        ? (e.value & 1) === 1
          ? 'thumb'
          : 'arm'
        : e.type === STT_OBJECT
          ? 'data'
          : mappedMode(read, e.shndx, address);
    const delta = file.moved.get(e.shndx);
    const s: RawSymbol = {
      address,
      name: e.name,
      mode,
      size: e.size > 0 ? e.size : null,
      comment: null,
      processor: null,
      overlayId: null,
      line: e.index,
      ...(delta === undefined ? {} : { loadAddress: (address + delta) >>> 0 }),
    };
    out.symbols.push(s);
  }
}
