// The string index of nds_list_strings (string-list.ts): per ROM and listing, the places of the
// matching strings found by the first call's scan, kept under the server's memory budget in compact
// columns, so a later page is read from it instead of scanning the ROM again.
import { KeptValues } from '../core/kept-values.js';
import type { Processor } from '../core/vocabulary.js';
import { type FoundString, STRING_ENCODINGS, type StringEncoding } from '../search/strings.js';
import { type Services, serviceKey } from '../services.js';

const MiB = 1024 * 1024;

/** The components a scan did not read (or not whole), and why. */
export type Unscanned = { component: string; bytes: number; reason: string }[];

/**
 * The string index (one per ROM and listing: area, encodings, minimum length, filter, scan bound):
 * the matching strings' places, built by the first call's scan and kept, so a later page is read from
 * it instead of scanning the ROM again. Each string costs INDEX_BYTES_PER_STRING; the text is decoded
 * again from its bytes when a page shows it (the bytes of the same ROM: the same text).
 */
const STRING_INDEX_LIMITS = {
  /** Strings one index holds; a page past them is found by a scan, as without an index. */
  strings: { max: 1 << 20, unit: 'strings in one index' },
  indexes: { max: 16, unit: 'indexes kept' },
  bytes: { max: 128 * MiB, unit: 'bytes of the kept indexes' },
} as const;
const INDEX_BYTES_PER_STRING = 13;
/** The strings one index holds (STRING_INDEX_LIMITS.strings.max; tests lower it to reach past it). */
export const stringIndexing = { maxStrings: STRING_INDEX_LIMITS.strings.max };

/** Where an indexed string's bytes are read again and what its offsets map to. */
export interface IndexedSource {
  label: string;
  processor: Processor | null;
  overlayId: number | null;
  /** ROM offset of the source's first byte when its bytes are the ROM's; null for decoded bytes. */
  romStart: number | null;
  /** Runtime mapping (executables): the image base, its autoload blocks and where the main part ends. */
  runtime: { base: number; blocks: { at: number; size: number; ram: number }[]; mainEnd: number } | null;
}

/** Strings found, in order: parallel columns (index i is the i-th string kept). */
export class StringColumns {
  count = 0;
  source = new Uint32Array(1024);
  offset = new Uint32Array(1024);
  byteLength = new Uint16Array(1024);
  chars = new Uint16Array(1024);
  /** encoding index | terminated << 2 | cut << 3 */
  flags = new Uint8Array(1024);

  push(source: number, s: FoundString): void {
    if (this.count === this.source.length) this.grow();
    const i = this.count++;
    this.source[i] = source;
    this.offset[i] = s.offset;
    this.byteLength[i] = s.byteLength;
    this.chars[i] = s.chars;
    this.flags[i] = ENCODINGS.indexOf(s.encoding) | (s.terminated ? 4 : 0) | (s.cut ? 8 : 0);
  }

  /** Gives back the room past the last string (before the columns are kept). */
  trim(): void {
    this.source = this.source.slice(0, this.count);
    this.offset = this.offset.slice(0, this.count);
    this.byteLength = this.byteLength.slice(0, this.count);
    this.chars = this.chars.slice(0, this.count);
    this.flags = this.flags.slice(0, this.count);
  }

  private grow(): void {
    const n = Math.max(1024, this.source.length * 2);
    const more = <A extends Uint32Array | Uint16Array | Uint8Array>(a: A, make: (n: number) => A): A => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.source = more(this.source, (k) => new Uint32Array(k));
    this.offset = more(this.offset, (k) => new Uint32Array(k));
    this.byteLength = more(this.byteLength, (k) => new Uint16Array(k));
    this.chars = more(this.chars, (k) => new Uint16Array(k));
    this.flags = more(this.flags, (k) => new Uint8Array(k));
  }

  found(i: number): FoundString {
    const f = this.flags[i]!;
    return {
      offset: this.offset[i]!,
      byteLength: this.byteLength[i]!,
      encoding: ENCODINGS[f & 3]!,
      chars: this.chars[i]!,
      terminated: (f & 4) !== 0,
      cut: (f & 8) !== 0,
    };
  }
}

/** The encodings by their index in a string's flags (STRING_ENCODINGS' order). */
const ENCODINGS: readonly StringEncoding[] = STRING_ENCODINGS;

/** One scan's findings: the totals of the whole list and the strings kept from `first` on. */
export interface Scanned {
  sources: IndexedSource[];
  totalBytes: number;
  scannedBytes: number;
  unscanned: Unscanned;
  matching: number;
  /** Index (among the matching strings) of the first one kept. */
  first: number;
  kept: StringColumns;
}

/** What a kept index costs, in bytes (its columns, sources and notes). */
export const estimateBytes = (s: Scanned) =>
  s.kept.source.length * INDEX_BYTES_PER_STRING +
  s.sources.reduce((n, x) => n + 256 + x.label.length * 2 + (x.runtime?.blocks.length ?? 0) * 32, 0) +
  s.unscanned.reduce((n, u) => n + 128 + (u.component.length + u.reason.length) * 2, 0);

const STRING_INDEXES = serviceKey<KeptValues<Scanned>>('string-indexes');

export function stringIndexes(services: Services): KeptValues<Scanned> {
  return services.lazy(
    STRING_INDEXES,
    () =>
      new KeptValues<Scanned>(services.memory, {
        maxValues: STRING_INDEX_LIMITS.indexes.max,
        maxBytes: STRING_INDEX_LIMITS.bytes.max,
      }),
  );
}

/** The runtime address of offset `o` of an indexed source, or null where it has none. */
export function runtimeOf(src: IndexedSource, o: number): number | null {
  const r = src.runtime;
  if (r === null) return null;
  for (const b of r.blocks) if (o >= b.at && o < b.at + b.size) return b.ram + (o - b.at);
  return o < r.mainEnd ? r.base + o : null;
}
