// The vocabulary of signature sets: what a signature is (a function's or a data object's bytes with
// the bytes that vary masked out, and what its relocations name), the set that holds them, and the
// bounds every reader and builder keeps. Pure data; docs/SIGNATURES.md describes the file format.
import type { ArmMode } from '../../arm/types.js';

export const SIGNATURE_FORMAT = 're-mcp.signatures';
export const SIGNATURE_VERSION = 2;
/** Versions a reader accepts: 1 has no section spans. */
export const SIGNATURE_VERSIONS_READ = [1, 2] as const;

/** What a set was built from. */
export const SIGNATURE_SOURCE_KINDS = ['archive', 'object', 'elf', 'rom'] as const;
type SignatureSourceKind = (typeof SIGNATURE_SOURCE_KINDS)[number];

export const ITEM_KINDS = ['function', 'data'] as const;
type ItemKind = (typeof ITEM_KINDS)[number];

/**
 * How a relocated (or address-bearing) place names its target: `call` a branch with link or a branch
 * to another function (the target is where the instruction goes), `word` a 32-bit address, `pcrel` a
 * 32-bit offset from the word itself.
 */
export const SIG_REF_KINDS = ['call', 'word', 'pcrel'] as const;
export type RefKind = (typeof SIG_REF_KINDS)[number];

export interface SigRef {
  /** Offset of the relocated place in the item. */
  at: number;
  kind: RefKind;
  /** The key of the item it names (see SigItem.key), or null when nothing names it (a string literal). */
  target: string | null;
  /** Offset into the target that the place names. */
  offset: number;
  /** For a target without a name: its first bytes (a string literal's), to compare. Null otherwise. */
  content: Uint8Array | null;
}

export interface SigItem {
  kind: ItemKind;
  /**
   * What refs name it by: its name for a global symbol, `name@origin` for a local one (two files may
   * each have a static function of one name).
   */
  key: string;
  /** Its names: the first is the one proposed, the rest are aliases at the same place. */
  names: string[];
  /** Code mode (functions), null for data. */
  mode: ArmMode | null;
  /** Its length in bytes; bytes may be empty for data without content (BSS). */
  size: number;
  bytes: Uint8Array;
  /** One entry per byte of `bytes`: 1 compared, 0 masked (varies from program to program). */
  mask: Uint8Array;
  refs: SigRef[];
  /** Where it came from: `libc.a(lib_a-memcpy.o)`, a file, or a ROM. */
  origin: string;
  /**
   * Objects only: its section in the origin and its offset there. A linker keeps an input section
   * whole and in order, so items of one section lie at the same distances from each other in every
   * program that links it (apply.ts places neighbours by it).
   */
  place?: SigPlace | undefined;
}

interface SigPlace {
  /** The section's index in its object (names can repeat). */
  section: number;
  offset: number;
  /**
   * Objects only (format version 2): the section's whole length and alignment. A linker lays the
   * input sections of one object that it keeps in their order in the object, each at the next address
   * its alignment allows, so the sections between two found in a program can be laid out again
   * (narrow.ts). Absent for a linked image's item and in version 1 files.
   */
  span?: { size: number; align: number } | undefined;
}

export interface SignatureSource {
  kind: SignatureSourceKind;
  /** The file's workspace path. */
  path: string;
  sha256: string;
}

export interface SignatureSet {
  name: string;
  sources: SignatureSource[];
  items: SigItem[];
}

/** Names a set's name may take (it names the file). */
export const SET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const SIGNATURE_LIMITS = {
  /** Items (functions and data objects) in one set. */
  maxItems: { max: 200_000, unit: 'signatures' },
  /** Bytes of one item's pattern (a longer function keeps its first bytes). */
  itemBytes: { max: 65_536, unit: 'bytes' },
  /** Bytes of a data object's content kept (a longer object keeps its first bytes). */
  dataBytes: { max: 1024, unit: 'bytes' },
  /** Refs kept per item. */
  refsPerItem: { max: 4096, unit: 'refs' },
  /** Bytes of an unnamed target's content kept (a string literal's). */
  contentBytes: { max: 64, unit: 'bytes' },
  /** Characters of a key (a name, or a name and its origin). */
  keyChars: { max: 512, unit: 'characters' },
  /** Characters of an origin. */
  originChars: { max: 512, unit: 'characters' },
  /** Aliases per item. */
  namesPerItem: { max: 16, unit: 'names' },
  /** A section's alignment kept in a place's span (a larger one is dropped: nothing lays out by it). */
  sectionAlign: { max: 4096, unit: 'bytes' },
  /** Sources named by one set. */
  sources: { max: 64, unit: 'sources' },
} as const;

/** Whether `item`'s pattern matches `bytes` at `o` (its masked bytes skipped). */
export function matchesAt(item: SigItem, bytes: Uint8Array, o: number): boolean {
  const b = item.bytes;
  const m = item.mask;
  if (o < 0 || o + b.length > bytes.length) return false;
  for (let i = 0; i < b.length; i++) if (m[i] && bytes[o + i] !== b[i]) return false;
  return true;
}

/** What a proposal shows of an item it names: its names, origin and size, and the bytes compared. */
export function candidateOf(item: SigItem, compared: number) {
  return {
    name: item.names[0]!,
    aliases: item.names.slice(1),
    origin: item.origin,
    comparedBytes: compared,
    size: item.size,
  };
}

/** Bytes of an item compared (its mask's ones). */
export function comparedBytes(item: SigItem): number {
  let n = 0;
  for (let i = 0; i < item.mask.length; i++) n += item.mask[i]!;
  return n;
}

/** A function of the program, with the bytes of the component holding it. */
export interface ProgramFunction {
  key: string;
  address: number;
  mode: ArmMode;
  /** Where its code ends (exclusive) as the program map walked it. */
  end: number;
  /** The bytes of its component and the address they start at. */
  bytes: Uint8Array;
  start: number;
}

/** The program's memory as its components hold it. */
export interface ProgramMemory {
  read(address: number, length: number): Uint8Array | null;
  /** Its loaded runs (each component's bytes), when it can list them: data is searched there. */
  regions?(): readonly { start: number; bytes: Uint8Array }[];
}

/** One name a proposal's bytes matched, with its evidence. */
interface Candidate {
  name: string;
  aliases: string[];
  origin: string;
  comparedBytes: number;
  size: number;
  refsAgreed: number;
  refsUnchecked: number;
}

export interface Proposal {
  key: string;
  address: number;
  /** A function's code mode, or `data` for a data label. */
  mode: ArmMode | 'data';
  tier: 'strong' | 'supported' | 'ambiguous';
  /** The proposed name (null when ambiguous). */
  name: string | null;
  /** Score: compared bytes plus 16 per agreeing reference (of the best candidate). */
  score: number;
  /** Every name that matched after the references were checked (one unless ambiguous). */
  candidates: Candidate[];
  /** Other functions of the program the same name matched (ambiguous then). */
  alsoAt: number[];
  reasons: string[];
  /**
   * Whether the map found a function here; false for one its object's layout places where the map
   * found none (its bytes the signature's): then `key` is the key of the function that placed it.
   * Null for a data label.
   */
  inMap: boolean | null;
}

export interface ApplyCounts {
  functions: number;
  signatures: number;
  /** Functions some signature's bytes matched. */
  matched: number;
  strong: number;
  supported: number;
  ambiguous: number;
  /** Matches on fewer than minCompared bytes with no reference agreeing. */
  tooShort: number;
  /** Functions whose every byte match a reference contradicted (or whose body runs past the signature). */
  contradicted: number;
  /** Proposals at functions the map did not find (placed by their object's layout). */
  outsideMap: number;
  /** Data proposals (labels carried by the code using them; not in the tier counts). */
  data: number;
}

/**
 * What `build` derives from a set's items, kept with that items array while it lives (a set read
 * once and applied again derives nothing again). Items are never changed after they are read, so
 * what is derived from them stays true; each kind of derivation is cached under its own `build`.
 */
export function derivedFrom<T>(
  cache: WeakMap<readonly SigItem[], T>,
  items: readonly SigItem[],
  build: (items: readonly SigItem[]) => T,
): T {
  let d = cache.get(items);
  if (d === undefined) {
    d = build(items);
    cache.set(items, d);
  }
  return d;
}
