// A 32-bit little-endian ARM ELF file read for its contents, not only its names: every section (name,
// type, flags, address, its bytes), the symbol table (name, value, size, type, binding, section) and
// the relocations of each section (REL or RELA: offset, type, symbol, addend). Relocatable objects
// (`.o`, an archive's members) and linked executables alike; extended section numbering (more than
// 65,279 sections) is followed. Every offset and size is checked against the file: a malformed file is
// refused (ElfObjectError) or read in part, never read past its end. Names longer than
// OBJECT_LIMITS.nameBytes are not decoded (the symbol is kept, its name null). The steps yield every
// STEP_ITEMS symbols or relocations. Pure.
import { runSteps, type Steps } from '../../core/cooperative.js';
import { ReMcpError } from '../../core/errors.js';

/** A file that is no ARM ELF file this reader takes (an invalid-argument ReMcpError). */
class ElfObjectError extends ReMcpError {
  constructor(message: string) {
    super('invalid-argument', message);
  }
}

const OBJECT_LIMITS = {
  /** Sections read from one file. */
  maxSections: { max: 65_536, unit: 'sections' },
  /** Bytes of a symbol or section name; a longer one is not decoded. */
  nameBytes: { max: 256, unit: 'bytes' },
} as const;

export const ET_REL = 1;
export const ET_EXEC = 2;
export const SHT_SYMTAB = 2;
const SHT_RELA = 4;
export const SHT_NOBITS = 8;
export const SHT_REL = 9;
const SHT_SYMTAB_SHNDX = 18;
export const SHF_ALLOC = 2;
export const SHF_EXECINSTR = 4;
export const STT_NOTYPE = 0;
export const STT_OBJECT = 1;
export const STT_FUNC = 2;
export const STT_SECTION = 3;
export const STB_LOCAL = 0;
export const STB_WEAK = 2;
const SHN_UNDEF = 0;
const SHN_LORESERVE = 0xff00;
const SHN_XINDEX = 0xffff;
const STEP_ITEMS = 8192;

export interface ObjSection {
  index: number;
  /** Null when it could not be read (outside the names table, or too long). */
  name: string | null;
  type: number;
  flags: number;
  addr: number;
  size: number;
  /** Its bytes in the file (empty for NOBITS and for a section running past the file). */
  data: Uint8Array;
  link: number;
  info: number;
  /** Its alignment in bytes (sh_addralign; 0 and 1 both mean none). */
  align: number;
}

export interface ObjSymbol {
  index: number;
  name: string | null;
  value: number;
  size: number;
  type: number;
  bind: number;
  /** Section index (extended numbering resolved); 0 undefined, 0xfff1 absolute. */
  shndx: number;
}

export interface ObjReloc {
  /** Offset in the target section (an address in an executable). */
  offset: number;
  type: number;
  symbol: number;
  /** RELA only; REL keeps its addend in place. */
  addend: number | null;
}

export interface ElfObject {
  type: number;
  flags: number;
  entry: number;
  sections: ObjSection[];
  symbols: ObjSymbol[];
  /** Relocations by the index of the section they apply to. */
  relocations: Map<number, ObjReloc[]>;
  /** What could not be read, and why (the first 100). */
  problems: string[];
}

export function parseElfObject(bytes: Uint8Array): ElfObject {
  return runSteps(elfObjectSteps(bytes));
}

/** Whether `bytes` starts like an ELF file. */
export const isElf = (bytes: Uint8Array): boolean =>
  bytes.length >= 4 && bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46;

/** parseElfObject in steps (see the file comment). */
export function* elfObjectSteps(bytes: Uint8Array): Steps<ElfObject> {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (o: number) => dv.getUint16(o, true);
  const u32 = (o: number) => dv.getUint32(o, true);
  if (bytes.length < 52 || !isElf(bytes)) throw new ElfObjectError('not an ELF file');
  if (bytes[4] !== 1) throw new ElfObjectError('not a 32-bit ELF file');
  if (bytes[5] !== 1) throw new ElfObjectError('not a little-endian ELF file');
  if (u16(18) !== 40) throw new ElfObjectError(`not an ARM ELF file (machine ${u16(18)})`);
  const shoff = u32(32);
  const shentsize = u16(46);
  if (shoff === 0) throw new ElfObjectError('the ELF file has no section headers');
  if (shentsize < 40) throw new ElfObjectError('the ELF section header size is too small');
  if (shoff > bytes.length - 40) throw new ElfObjectError('the ELF section headers run past the file');
  let shnum = u16(48);
  let shstrndx = u16(50);
  // Extended numbering: section 0 holds the real count and names-table index.
  if (shnum === 0) shnum = u32(shoff + 20);
  if (shstrndx === SHN_XINDEX) shstrndx = u32(shoff + 24);
  if (shnum > OBJECT_LIMITS.maxSections.max)
    throw new ElfObjectError(`${shnum} sections, over ${OBJECT_LIMITS.maxSections.max}`);
  if (shnum * shentsize > bytes.length - shoff)
    throw new ElfObjectError('the ELF section headers run past the file');
  const problems: string[] = [];
  const problem = (why: string) => {
    if (problems.length < 100) problems.push(why);
  };
  const raw: (Omit<ObjSection, 'name'> & { nameAt: number })[] = [];
  for (let i = 0; i < shnum; i++) {
    const o = shoff + i * shentsize;
    const type = u32(o + 4);
    const offset = u32(o + 16);
    const size = u32(o + 20);
    const inFile = type !== SHT_NOBITS && offset <= bytes.length && size <= bytes.length - offset;
    if (type !== SHT_NOBITS && !inFile && size > 0) problem(`section ${i} runs past the file`);
    raw.push({
      index: i,
      nameAt: u32(o),
      type,
      flags: u32(o + 8),
      addr: u32(o + 12),
      size,
      data: inFile ? bytes.subarray(offset, offset + size) : new Uint8Array(0),
      link: u32(o + 24),
      info: u32(o + 28),
      align: u32(o + 32),
    });
  }
  const names = raw[shstrndx]?.data ?? new Uint8Array(0);
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const sections: ObjSection[] = raw.map(({ nameAt, ...s }) => ({
    ...s,
    name: nameIn(names, nameAt, decoder),
  }));
  yield;
  const symbols = yield* readSymbols(sections, decoder, problem);
  const relocations = new Map<number, ObjReloc[]>();
  for (const s of sections) {
    if (s.type !== SHT_REL && s.type !== SHT_RELA) continue;
    if (s.info === 0 || s.info >= sections.length) {
      problem(`relocation section ${s.index} names no section`);
      continue;
    }
    const entsize = s.type === SHT_REL ? 8 : 12;
    const rv = new DataView(s.data.buffer, s.data.byteOffset, s.data.byteLength);
    const list = relocations.get(s.info) ?? [];
    for (let o = 0, k = 0; o + entsize <= s.data.length; o += entsize, k++) {
      if (k % STEP_ITEMS === 0) yield;
      const info = rv.getUint32(o + 4, true);
      list.push({
        offset: rv.getUint32(o, true),
        type: info & 0xff,
        symbol: info >>> 8,
        addend: s.type === SHT_RELA ? rv.getInt32(o + 8, true) : null,
      });
    }
    relocations.set(s.info, list);
  }
  return { type: u16(16), flags: u32(36), entry: u32(24), sections, symbols, relocations, problems };
}

/** The first symbol table's symbols (index 0, the null symbol, included to keep indexes). */
function* readSymbols(
  sections: ObjSection[],
  decoder: { decode(input: Uint8Array): string },
  problem: (why: string) => void,
): Steps<ObjSymbol[]> {
  const table = sections.find((s) => s.type === SHT_SYMTAB);
  if (!table) return [];
  const strings = sections[table.link]?.data ?? new Uint8Array(0);
  const xindex = sections.find((s) => s.type === SHT_SYMTAB_SHNDX && s.link === table.index)?.data ?? null;
  const sv = new DataView(table.data.buffer, table.data.byteOffset, table.data.byteLength);
  const xv = xindex ? new DataView(xindex.buffer, xindex.byteOffset, xindex.byteLength) : null;
  const out: ObjSymbol[] = [];
  for (let i = 0, o = 0; o + 16 <= table.data.length; i++, o += 16) {
    if (i % STEP_ITEMS === 0) yield;
    const info = sv.getUint8(o + 12);
    let shndx = sv.getUint16(o + 14, true);
    if (shndx === SHN_XINDEX) {
      shndx = xv && i * 4 + 4 <= xv.byteLength ? xv.getUint32(i * 4, true) : SHN_UNDEF;
      if (shndx === SHN_UNDEF) problem(`symbol ${i} names an extended section index the file lacks`);
    } else if (shndx >= SHN_LORESERVE) shndx = shndx | 0x10000; // reserved: never a section index
    out.push({
      index: i,
      name: nameIn(strings, sv.getUint32(o, true), decoder),
      value: sv.getUint32(o + 4, true),
      size: sv.getUint32(o + 8, true),
      type: info & 0xf,
      bind: info >> 4,
      shndx,
    });
  }
  return out;
}

/** The NUL-terminated name at `at` of a string table, or null (outside it, unterminated, too long). */
function nameIn(
  table: Uint8Array,
  at: number,
  decoder: { decode(input: Uint8Array): string },
): string | null {
  if (at >= table.length) return null;
  const stop = Math.min(table.length, at + OBJECT_LIMITS.nameBytes.max + 1);
  const end = table.subarray(at, stop).indexOf(0);
  if (end < 0) return null;
  return decoder.decode(table.subarray(at, at + end));
}

/** Whether a symbol's section index is a real section (not undefined, absolute or common). */
export const inSection = (s: ObjSymbol, sections: readonly ObjSection[]): boolean =>
  s.shndx !== SHN_UNDEF && s.shndx < sections.length;
