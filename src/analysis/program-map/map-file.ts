// The whole-program map as a file, so a new process (a CLI call, a restarted server) reads it back
// instead of walking the program again. The file holds what the walk made — its blocks, edges, calls,
// references, entries, function bodies, every byte's class and tier, and the summary counted from
// them — plus the start-up copies it was built over; the function records are made again from those
// on reading (a small part of a build). A file is read back only for the identity it was written for
// (the engine that wrote it, the ROM's SHA-256 and size, the processor, the evidence set), and only
// when every index in it lies in range: a stale or damaged file is refused with the reason, never
// trusted. (Its checksum is the caller's: see map-store.ts.) Pure: bytes in, bytes out.
//
// Layout: "REMCPMAP", the format (u32), the header's length (u32), the header (JSON), then each
// section's bytes (little-endian typed arrays) in the header's order, each padded to 8 bytes.
import type { Steps } from '../../core/cooperative.js';
import { ReMcpError } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import type { CopyDetection } from '../evidence/copied-code.js';
import { bodySections } from './body-store.js';
import type { BuiltMap } from './build.js';
import type { SectionArray } from './columns.js';
import type { ComponentSet } from './components.js';
import { entrySections } from './map-file-entries.js';
import { summarySections } from './map-summary.js';
import type { WalkGaps } from './walk-types.js';

/** 2: the function bodies and the summary are kept too (format 1 made them again on reading). */
const MAP_FILE_FORMAT = 2;
const MAGIC = [0x52, 0x45, 0x4d, 0x43, 0x50, 0x4d, 0x41, 0x50]; // "REMCPMAP"
/** The header is JSON of a few kilobytes (a big program's copies and texts: a few hundred). */
const MAX_HEADER_BYTES = 16 << 20;

/** What a file is for: read back only when every field matches. */
export interface MapFileIdentity {
  /** The analysis code that wrote it (see map-store.ts). */
  engine: string;
  sha256: string;
  size: number;
  processor: Processor;
  /** The evidence classes enabled, sorted. */
  evidence: readonly string[];
}

type SectionType = 'i32' | 'u32' | 'f64' | 'u8' | 'u16';
const ARRAYS = {
  i32: Int32Array,
  u32: Uint32Array,
  f64: Float64Array,
  u8: Uint8Array,
  u16: Uint16Array,
} as const;

interface MapFileHeader extends MapFileIdentity {
  format: number;
  classes: string[];
  millis: number;
  codeBytesLimit: number;
  codeBytes: number;
  gaps: WalkGaps;
  refusals: [string, number][];
  /** The components the walk ran over, to check the set made again on reading is the same. */
  components: { kind: string; overlayId: number | null; start: number; end: number }[];
  copies: CopyDetection | null;
  /** The call store's texts (registers, unresolved reasons), in code order. */
  callTexts: string[];
  /** Evidence class names and refusal reasons of the entries, by index. */
  entryTexts: string[];
  /** The summary's unresolved counts per tier rank (its byte counts and runs are sections). */
  unresolved: unknown;
  sections: { name: string; type: SectionType; length: number }[];
}

/** A section's length in elements: its parts' together. */
const lengthOf = (parts: readonly SectionArray[]): number => parts.reduce((n, a) => n + a.length, 0);

/** A section's element type: its parts' (all of one type, at least one part). */
const typeOf = (parts: readonly SectionArray[]): SectionType => typeOfArray(parts[0]!);

const typeOfArray = (a: SectionArray): SectionType =>
  a instanceof Int32Array
    ? 'i32'
    : a instanceof Uint32Array
      ? 'u32'
      : a instanceof Float64Array
        ? 'f64'
        : a instanceof Uint16Array
          ? 'u16'
          : 'u8';

const pad8 = (n: number) => (8 - (n % 8)) % 8;

/**
 * The file's bytes as chunks (the header, then each section padded to 8 bytes): a complete map only.
 * Yields between the walk's tables and while its entries are packed (a 12 MiB program's map is some
 * hundred megabytes of columns, made in 0.1-0.2 s: the server's loop gets its turns meanwhile).
 */
export function* encodeMapFile(
  built: BuiltMap,
  set: ComponentSet,
  copies: CopyDetection | null,
  id: MapFileIdentity,
): Steps<Uint8Array[]> {
  const w = built.walker;
  // Each section as one array or its parts in order (a paged column's pages: written without a copy).
  const sections: [string, SectionArray[]][] = [];
  const add = (prefix: string, cols: Record<string, SectionArray | SectionArray[]>) => {
    for (const [name, a] of Object.entries(cols))
      sections.push([`${prefix}.${name}`, Array.isArray(a) ? a : [a]]);
  };
  add('block', w.blocks.fileColumns());
  yield;
  add('edge', w.edges.fileColumns());
  yield;
  add('call', w.calls.fileColumns());
  yield;
  add('ref', w.refs.fileColumns());
  yield;
  const entries = yield* entrySections(w.entries);
  add('entry', entries.columns);
  add('body', bodySections(built.bodies, w.entries));
  if (!built.summary)
    throw new ReMcpError('internal-error', 'a map is kept only once its summary is counted');
  add('summary', summarySections(built.summary));
  yield;
  for (const c of set.list) add(`component${c.index}`, { cls: c.cls, tier: c.tier });
  const header: MapFileHeader = {
    format: MAP_FILE_FORMAT,
    ...id,
    evidence: [...id.evidence],
    classes: built.classes,
    millis: built.millis,
    codeBytesLimit: built.codeBytesLimit,
    codeBytes: w.codeBytes,
    gaps: { ...w.gaps },
    refusals: [...built.refusals],
    components: set.list.map((c) => ({ kind: c.kind, overlayId: c.overlayId, start: c.start, end: c.end })),
    copies,
    callTexts: [...w.calls.texts.all()],
    entryTexts: entries.texts,
    unresolved: built.summary.unresolved,
    sections: sections.map(([name, parts]) => ({ name, type: typeOf(parts), length: lengthOf(parts) })),
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const head = new Uint8Array(16 + json.length + pad8(16 + json.length));
  head.set(MAGIC, 0);
  const view = new DataView(head.buffer);
  view.setUint32(8, MAP_FILE_FORMAT, true);
  view.setUint32(12, json.length, true);
  head.set(json, 16);
  const out: Uint8Array[] = [head];
  for (const [, parts] of sections) {
    let size = 0;
    for (const a of parts) {
      out.push(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      size += a.byteLength;
    }
    if (pad8(size) > 0) out.push(new Uint8Array(pad8(size)));
  }
  return out;
}

/** A file read back: its header and its sections by name (typed arrays over or copied from the bytes). */
export interface MapFileContents {
  header: MapFileHeader;
  sections: Map<string, SectionArray>;
}

/**
 * Reads a file's container: the magic, the format, the header, the sections laid out exactly to the
 * end. Returns why it is refused (a text) when it is not a map file of this format for `id`.
 */
export function readMapFile(bytes: Uint8Array, id: MapFileIdentity): MapFileContents | string {
  if (bytes.length < 16 || MAGIC.some((b, i) => bytes[i] !== b)) return 'not a map file';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const format = view.getUint32(8, true);
  if (format !== MAP_FILE_FORMAT) return `format ${format}, not ${MAP_FILE_FORMAT}`;
  const length = view.getUint32(12, true);
  if (length > MAX_HEADER_BYTES || 16 + length > bytes.length) return 'a header longer than the file';
  let header: MapFileHeader;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(16, 16 + length)));
  } catch {
    return 'a header that is not JSON';
  }
  const stale = identityMismatch(header, id);
  if (stale) return stale;
  if (header.copies !== null && !copiesWellFormed(header.copies)) return 'malformed start-up copies';
  if (!Array.isArray(header.sections)) return 'no section list';
  const sections = new Map<string, SectionArray>();
  let at = 16 + length + pad8(16 + length);
  for (const s of header.sections) {
    const Ctor = ARRAYS[s?.type as SectionType];
    if (!Ctor || typeof s.name !== 'string' || !Number.isSafeInteger(s.length) || s.length < 0)
      return 'a malformed section';
    const size = s.length * Ctor.BYTES_PER_ELEMENT;
    if (at + size > bytes.length) return `section ${s.name} runs past the end`;
    if (sections.has(s.name)) return `section ${s.name} twice`;
    sections.set(s.name, sectionArray(Ctor, bytes, at, s.length));
    at += size + pad8(size);
  }
  if (at !== bytes.length) return 'bytes after the last section';
  return { header, sections };
}

/** Why a header is not for `id` (another engine, ROM, processor or evidence set), or null. */
function identityMismatch(h: MapFileHeader, id: MapFileIdentity): string | null {
  if (typeof h !== 'object' || h === null) return 'a header that is no object';
  if (h.engine !== id.engine) return 'written by another version of the analysis';
  if (h.sha256 !== id.sha256 || h.size !== id.size) return 'the map of another ROM';
  if (h.processor !== id.processor) return 'the map of the other processor';
  if (!Array.isArray(h.evidence) || h.evidence.join(',') !== id.evidence.join(','))
    return 'the map of another evidence set';
  return null;
}

/** The most copies a detection names (see evidence/copied-code.ts: a start-up makes a handful). */
const MAX_COPIES = 4096;
const u32 = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= 0xffffffff;

/** Whether `c` has the shape of a CopyDetection, every number a 32-bit address or count. */
export function copiesWellFormed(c: CopyDetection): boolean {
  if (typeof c !== 'object' || c === null) return false;
  const blocks = (list: unknown) =>
    Array.isArray(list) &&
    list.length <= MAX_COPIES &&
    list.every(
      (b: CopyDetection['copies'][number]) =>
        typeof b === 'object' &&
        b !== null &&
        [b.index, b.start, b.size, b.source, b.storedBy].every(u32) &&
        typeof b.executed === 'boolean',
    );
  const dtcm = c.dtcm === null || (typeof c.dtcm === 'object' && u32(c.dtcm?.start) && u32(c.dtcm?.end));
  return (
    blocks(c.copies) &&
    blocks(c.dataCopies) &&
    dtcm &&
    typeof c.ended === 'string' &&
    u32(c.steps) &&
    u32(c.paths)
  );
}

/** A typed array over `bytes` at `at` when aligned there, else a copy (a file read into any buffer). */
function sectionArray(
  Ctor: (typeof ARRAYS)[SectionType],
  bytes: Uint8Array,
  at: number,
  length: number,
): SectionArray {
  const offset = bytes.byteOffset + at;
  if (offset % Ctor.BYTES_PER_ELEMENT === 0) return new Ctor(bytes.buffer as ArrayBuffer, offset, length);
  const copy = new Uint8Array(length * Ctor.BYTES_PER_ELEMENT);
  copy.set(bytes.subarray(at, at + copy.length));
  return new Ctor(copy.buffer, 0, length);
}
