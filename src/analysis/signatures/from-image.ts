// Signatures of a linked program (an ELF executable with symbols, or a ROM whose symbol store names
// its functions): there are no relocations left, so the bytes that vary from link to link are found
// in the code itself. A branch with link, and a branch that leaves its function, are masked (their
// offsets name other places) and name their target; a literal-pool word a PC-relative load reads is
// masked when its value is an address of the program (inside a section or component) and names the
// item there, or for a place nothing names, that place's first bytes (a string literal). Pool words
// holding constants (I/O registers, sizes) stay compared. Code is read linearly: the pool words found
// by the loads before them are not decoded as instructions. Pure.
import type { ArmMode } from '../../arm/types.js';
import type { Steps } from '../../core/cooperative.js';
import { u32 } from '../../formats/le.js';
import {
  type ElfObject,
  inSection,
  SHF_ALLOC,
  SHF_EXECINSTR,
  SHT_NOBITS,
  STT_FUNC,
  STT_OBJECT,
} from '../../formats/objects/elf-object.js';
import { badName } from '../../formats/symbols/types.js';
import { directBranchAt, isLinkerStub, literalLoadAt, stubReach } from './relocs.js';
import { SIGNATURE_LIMITS, type SigItem, type SigRef } from './types.js';

/** A named place of the program. */
export interface ImagePlace {
  names: string[];
  /** What references name it by (unique in a set); its first name when left out. */
  key?: string;
  address: number;
  /** Code mode; null for data. */
  mode: ArmMode | null;
  /** Its extent in bytes (0 when unknown: it is then not made an item, only named). */
  size: number;
  /** The part of the image it lies in (a section, an overlay; default 0): its item's place is its address there. */
  section?: number;
}

/** The program as a signature builder reads it. */
interface ProgramImage {
  /** `length` bytes at `address` when all are in one loaded run, else null. */
  read(address: number, length: number): Uint8Array | null;
  /** Whether `value` is an address of the program (varies with its layout). */
  isAddress(value: number): boolean;
}

const STEP_ITEMS = 256;
const keyOf = (p: ImagePlace) => p.key ?? p.names[0]!;

/** Items of the named places of a program image (`origin` names it in reports). */
export function* imageItemSteps(
  image: ProgramImage,
  places: readonly ImagePlace[],
  origin: string,
): Steps<{ items: SigItem[]; skipped: string[] }> {
  const sorted = [...places].sort((a, b) => a.address - b.address);
  const skipped: string[] = [];
  const items: SigItem[] = [];
  for (const [i, p] of sorted.entries()) {
    if (i % STEP_ITEMS === 0) yield;
    if (p.size === 0) continue;
    const keep = p.mode === null ? SIGNATURE_LIMITS.dataBytes.max : SIGNATURE_LIMITS.itemBytes.max;
    const read = image.read(p.address, Math.min(p.size, keep));
    if (read === null && p.mode !== null) {
      skipped.push(`${p.names[0]}: its bytes are not all in the program`);
      continue;
    }
    // Data outside the loaded bytes (uninitialised) is an item without content: named by its users.
    const bytes = read ?? new Uint8Array(0);
    if (p.mode !== null && isLinkerStub(bytes, p.mode)) {
      // The linker's own code, placed and ordered by each link: known by what it reaches alone (its
      // one reference), never by its place, so it names only a stub whose target is named the same.
      const stub = stubItem(image, sorted, p, p.mode, bytes, origin);
      if (stub === null) skipped.push(`${p.names[0]}: a linker stub whose target is not a named place`);
      else items.push(stub);
      continue;
    }
    items.push(
      p.mode === null
        ? {
            kind: 'data',
            key: keyOf(p),
            names: p.names,
            mode: null,
            size: p.size,
            bytes: bytes.slice(),
            ...dataWords(image, sorted, p.address, bytes),
            origin,
          }
        : codeItem(image, sorted, p, p.mode, bytes, origin),
    );
  }
  return { items, skipped };
}

/**
 * A data object's mask and references: its aligned words that hold an address of the program vary with
 * the layout (masked); each that names a named place is a reference to it (a table's slots name the
 * functions it holds, so a table found in another build names its functions there).
 */
function dataWords(
  image: ProgramImage,
  sorted: readonly ImagePlace[],
  address: number,
  bytes: Uint8Array,
): { mask: Uint8Array; refs: SigRef[] } {
  const mask = new Uint8Array(bytes.length).fill(1);
  const refs: SigRef[] = [];
  for (let k = (4 - (address & 3)) & 3; k + 4 <= bytes.length; k += 4) {
    const value = u32(bytes, k);
    if (!image.isAddress(value)) continue;
    mask.fill(0, k, k + 4);
    const named = refs.length < SIGNATURE_LIMITS.refsPerItem.max ? wordRef(image, sorted, value, k) : null;
    if (named !== null && named.target !== null) refs.push(named);
  }
  return { mask, refs };
}

/** The place `address` lies in (for a function, its start exactly or inside its extent). */
function placeAt(sorted: readonly ImagePlace[], address: number): ImagePlace | null {
  let lo = 0;
  let hi = sorted.length - 1;
  let at = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.address <= address) {
      at = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  for (let i = at; i >= 0 && i > at - 4; i--) {
    const p = sorted[i]!;
    if (address === p.address || address < p.address + p.size) return p;
  }
  return null;
}

/**
 * A linker stub's item (isLinkerStub): its bytes with the target field masked and one reference, the
 * place it goes to (a branch or an address word); no place of its own, so no neighbour walk names it.
 * Null when what it goes to is no named place.
 */
function stubItem(
  image: ProgramImage,
  sorted: readonly ImagePlace[],
  p: ImagePlace,
  mode: ArmMode,
  bytes: Uint8Array,
  origin: string,
): SigItem | null {
  const mask = new Uint8Array(bytes.length).fill(1);
  const reach = stubReach(bytes, 0, p.address, mode);
  if (reach === null) return null;
  mask.fill(0, reach.at, reach.at + 4);
  let ref: SigRef | null = null;
  if (reach.kind === 'call') {
    const t = placeAt(sorted, reach.target);
    if (t !== null && t.address === reach.target && t.mode !== null)
      ref = { at: reach.at, kind: 'call', target: keyOf(t), offset: 0, content: null };
  } else {
    const named = wordRef(image, sorted, reach.target, reach.at);
    if (named !== null && named.target !== null) ref = named;
  }
  return ref === null ? null : functionItem(p, mode, bytes, mask, [ref], origin);
}

/** A function item of place `p` (`place`: where the neighbour walk finds it, if anywhere). */
function functionItem(
  p: ImagePlace,
  mode: ArmMode,
  bytes: Uint8Array,
  mask: Uint8Array,
  refs: SigRef[],
  origin: string,
  place?: SigItem['place'],
): SigItem {
  return {
    kind: 'function',
    key: keyOf(p),
    names: p.names,
    mode,
    size: p.size,
    bytes: bytes.slice(),
    mask,
    refs,
    origin,
    ...(place ? { place } : {}),
  };
}

function codeItem(
  image: ProgramImage,
  sorted: readonly ImagePlace[],
  p: ImagePlace,
  mode: ArmMode,
  bytes: Uint8Array,
  origin: string,
): SigItem {
  const mask = new Uint8Array(bytes.length).fill(1);
  const refs: SigRef[] = [];
  const pool = new Uint8Array(bytes.length);
  const step = mode === 'arm' ? 4 : 2;
  const ref = (r: SigRef) => {
    if (refs.length < SIGNATURE_LIMITS.refsPerItem.max && r.at + 4 <= bytes.length) refs.push(r);
  };
  for (let o = 0; o + step <= bytes.length; ) {
    if (pool[o]) {
      o += 4;
      continue;
    }
    const address = (p.address + o) >>> 0;
    const b = directBranchAt(bytes, o, address, mode);
    if (b !== null) {
      const leaves = b.target < p.address || b.target >= p.address + p.size;
      if (b.link || leaves) {
        for (let k = o; k < Math.min(o + b.size, bytes.length); k++) mask[k] = 0;
        const t = placeAt(sorted, b.target);
        if (t !== null && t.address === b.target && t.mode !== null)
          ref({ at: o, kind: 'call', target: keyOf(t), offset: 0, content: null });
      }
      o += b.size;
      continue;
    }
    const loaded = literalLoadAt(bytes, o, address, mode);
    if (
      loaded !== null &&
      loaded >= p.address &&
      (loaded & 3) === 0 &&
      loaded + 4 <= p.address + bytes.length
    ) {
      const w = loaded - p.address;
      if (w > o && !pool[w]) {
        pool[w] = 1;
        const value = u32(bytes, w);
        // An address of the program, or of a named data object outside its loaded bytes (a DTCM or
        // uninitialised variable the map does not hold).
        const data = placeAt(sorted, value);
        if (image.isAddress(value) || (data !== null && data.mode === null)) {
          mask.fill(0, w, w + 4);
          const named = wordRef(image, sorted, value, w);
          if (named !== null) ref(named);
        }
      }
    }
    o += step;
  }
  return functionItem(p, mode, bytes, mask, refs, origin, { section: p.section ?? 0, offset: p.address });
}

/** What an address word at `at` names: the place holding it, or the bytes there. */
function wordRef(
  image: ProgramImage,
  sorted: readonly ImagePlace[],
  value: number,
  at: number,
): SigRef | null {
  const held = placeAt(sorted, value & ~1);
  if (held !== null) {
    const offset = held.mode === null ? value - held.address : (value & ~1) - held.address;
    return { at, kind: 'word', target: keyOf(held), offset, content: null };
  }
  let content: Uint8Array | null = null;
  for (let n = SIGNATURE_LIMITS.contentBytes.max; n >= 4 && content === null; n >>= 1)
    content = image.read(value, n);
  if (content === null) return null;
  // A string: up to its terminator. Other bytes: up to the first word holding an address of the
  // program, which another build or layout changes (a table of pointers); none kept when that leaves
  // fewer than 4.
  const nul = content.indexOf(0);
  if (nul >= 4) content = content.subarray(0, nul + 1);
  else {
    let end = content.length;
    for (let k = (4 - (value & 3)) & 3; k + 4 <= end; k += 4) if (image.isAddress(u32(content, k))) end = k;
    if (end < 4) return null;
    content = content.subarray(0, end);
  }
  return { at, kind: 'word', target: null, offset: 0, content: content.slice() };
}

/** Items of a linked ELF executable: its FUNC and OBJECT symbols over its loaded sections. */
export function* imageItemsOfElf(
  obj: ElfObject,
  origin: string,
): Steps<{ items: SigItem[]; skipped: string[] }> {
  const loaded = obj.sections.filter((s) => (s.flags & SHF_ALLOC) !== 0 && s.size > 0);
  const image: ProgramImage = {
    read(address, length) {
      for (const s of loaded) {
        if (s.type === SHT_NOBITS || s.data.length < s.size) continue;
        const o = address - s.addr;
        if (o >= 0 && o + length <= s.size) return s.data.subarray(o, o + length);
      }
      return null;
    },
    isAddress: (value) => loaded.some((s) => value >= s.addr && value < s.addr + s.size),
  };
  const byAddress = new Map<string, ImagePlace>();
  const skipped: string[] = [];
  for (const s of obj.symbols) {
    if (s.name === null || s.name === '' || !inSection(s, obj.sections)) continue;
    if (s.type !== STT_FUNC && s.type !== STT_OBJECT) continue;
    const section = obj.sections[s.shndx]!;
    if ((section.flags & SHF_ALLOC) === 0) continue;
    const why = badName(s.name);
    if (why !== null) {
      skipped.push(`${s.name.slice(0, 64)}: ${why}`);
      continue;
    }
    const code = s.type === STT_FUNC && (section.flags & SHF_EXECINSTR) !== 0;
    const address = code ? s.value & ~1 : s.value;
    const mode: ArmMode | null = code ? ((s.value & 1) === 1 ? 'thumb' : 'arm') : null;
    const key = `${mode}:${address}`;
    const known = byAddress.get(key);
    if (known) {
      if (known.names.length < SIGNATURE_LIMITS.namesPerItem.max && !known.names.includes(s.name))
        known.names.push(s.name);
      known.size = Math.max(known.size, s.size);
    } else byAddress.set(key, { names: [s.name], address, mode, size: s.size, section: s.shndx });
  }
  yield;
  const r = yield* imageItemSteps(image, [...byAddress.values()], origin);
  return { items: r.items, skipped: [...skipped, ...r.skipped] };
}
