// The strings of a ROM's canonical components: main executables and overlays as their runtime images
// (decoded when stored BLZ-compressed), named NitroFS files as stored. Each string says where it is
// (component, offset, ROM offset, runtime address) and, on request, who references it according to the
// whole-program map of its processor (literal loads, pointer-table words and the code loading the
// table), with the map's coverage so an empty list is never mistaken for "unused". Scanning is bounded
// by bytes, read in pieces, cancellable. The first call for a ROM and listing keeps the places of the
// matching strings (an index, under the server's memory budget); later pages come from it in time
// proportional to the page, not the ROM.

import { EVIDENCE_IDS } from '../analysis/evidence/index.js';
import { getProgramMaps, MAP_LIMITS } from '../analysis/program-map/service.js';
import { TIERS, type Tier } from '../analysis/program-map/types.js';
import { ReMcpError, throwIfCancelled } from '../core/errors.js';
import { KeptValues } from '../core/kept-values.js';
import type { BoundedStatus, Processor } from '../core/vocabulary.js';
import { autoloadImageOffset } from '../formats/nds/address-map.js';
import type { RomHandle, RomStore } from '../nds/rom-store.js';
import {
  type FoundString,
  type StringEncoding,
  scanPieces,
  sjisAvailable,
  stringText,
} from '../search/strings.js';
import { type Services, serviceKey } from '../services.js';

const MiB = 1024 * 1024;

export const STRING_LIST_LIMITS = {
  minLength: { default: 4, min: 3, max: 256, unit: 'characters' },
  limit: { default: 32, min: 1, max: 256, unit: 'strings a page' },
  offset: { default: 0, min: 0, max: 100_000_000, unit: 'matching strings skipped' },
  /** Bytes scanned in one call (a DS cartridge holds at most 512 MiB). */
  maxScanBytes: { max: 512 * MiB, unit: 'bytes scanned' },
  /** Characters of a string's text returned (the rest is counted, not sent). */
  textChars: { max: 160, unit: 'characters' },
  /** Longest run: longer ones are reported cut. */
  runBytes: { max: 4096, unit: 'bytes' },
  /** References listed per string (all are counted). */
  refsPerString: { max: 8, unit: 'references' },
} as const;

export const STRING_AREAS = ['all', 'arm9', 'arm7', 'files'] as const;
export type StringArea = (typeof STRING_AREAS)[number];

export interface StringListRequest {
  area: StringArea;
  encodings: StringEncoding[];
  minLength: number;
  contains: string | null;
  offset: number;
  limit: number;
  maxScanBytes: number;
  references: boolean;
  /** false: scan for this page without the kept index (tests compare the two). Default: use it. */
  index?: boolean;
  signal?: AbortSignal | undefined;
  /** Monotonic: bytes scanned (of `total`), then the program map's code bytes on top (no total). */
  onProgress?: ((done: number, total: number | undefined, message: string) => void) | undefined;
}

export interface StringRef {
  from: number;
  kind: string;
  tier: Tier;
  component: string;
  /** The function whose body holds `from` (code references). */
  function: { address: number; mode: 'arm' | 'thumb' } | null;
  /** A table word: the table's first word and the code loading its address. */
  table: number | null;
  loadedBy: number[];
}

export interface ListedString {
  component: string;
  /** The executable's processor and overlay (null for files, and outside overlays). */
  processor: Processor | null;
  overlayId: number | null;
  offset: number;
  romOffset: number | null;
  address: number | null;
  encoding: StringEncoding;
  chars: number;
  bytes: number;
  terminated: boolean;
  cut: boolean;
  text: string;
  textCut: boolean;
  refs: StringRef[] | null;
  refCount: number | null;
  /** Another component holds the same runtime address (overlays sharing a range). */
  ambiguous: boolean;
}

export interface StringList {
  status: BoundedStatus;
  totalBytes: number;
  scannedBytes: number;
  unscanned: { component: string; bytes: number; reason: string }[];
  matching: number;
  strings: ListedString[];
  referenceCoverage: {
    processor: Processor;
    definitive: boolean;
    notDefinitive: string[];
    codeBytes: number;
    executableBytes: number;
  }[];
  notes: string[];
}

interface Source {
  label: string;
  size: number;
  /** Bytes [start, end) of the source. */
  read(start: number, end: number): Uint8Array;
  /** What an index keeps of it. */
  indexed: IndexedSource;
}

interface PendingSource {
  label: string;
  processor: Processor | null;
  overlayId: number | null;
  size: number;
  open(): Promise<Source>;
}

function sources(store: RomStore, rom: RomHandle, area: StringArea, signal?: AbortSignal): PendingSource[] {
  const model = rom.model;
  const out: PendingSource[] = [];
  const exe = (processor: Processor, overlayId: number | null, label: string, size: number) =>
    out.push({
      label,
      processor,
      overlayId,
      size,
      async open() {
        const image = await store.decoded.runtimeImage(rom, processor, overlayId, signal);
        const base = image.ramAddress;
        const bytes = image.bytes;
        // The main ARM9's autoload blocks run elsewhere than the image would put them.
        const blocks =
          processor === 'arm9' && overlayId === null
            ? (model.autoloads ?? []).flatMap((b) => {
                const at = autoloadImageOffset(model, b.index);
                return at === null ? [] : [{ at, size: b.codeSize, ram: b.ramAddress }];
              })
            : [];
        const mainEnd = blocks.length > 0 ? Math.min(...blocks.map((b) => b.at)) : bytes.length;
        return {
          label,
          size: bytes.length,
          read: (s, e) => bytes.subarray(s, e),
          indexed: {
            label,
            processor,
            overlayId,
            romStart: image.romOffset === null || image.derived ? null : image.romOffset,
            runtime: { base, blocks, mainEnd },
          },
        };
      },
    });
  const mains: Processor[] = area === 'all' ? ['arm9', 'arm7'] : area === 'files' ? [] : [area];
  for (const p of mains) {
    const e = model[p];
    exe(p, null, `${p} main`, e.decodedSize ?? e.size);
  }
  for (const p of mains) {
    const seen = new Set<number>();
    for (const ov of model.overlays[p]) {
      if (seen.has(ov.id)) continue;
      seen.add(ov.id);
      exe(p, ov.id, `${p} overlay ${ov.id}`, ov.file.end - ov.file.start);
    }
  }
  if (area === 'all' || area === 'files')
    for (const f of model.files) {
      if (f.path === null) continue;
      const label = `file ${f.fileId} (${f.path})`;
      const size = f.end - f.start;
      out.push({
        label,
        processor: null,
        overlayId: null,
        size,
        async open() {
          return {
            label,
            size,
            read: (s, e) => rom.readBytes(f.start + s, e - s),
            indexed: { label, processor: null, overlayId: null, romStart: f.start, runtime: null },
          };
        },
      });
    }
  return out;
}

const PIECE = MiB;
const L = STRING_LIST_LIMITS;

/**
 * The string index (one per ROM and listing: area, encodings, minimum length, filter, scan bound):
 * the matching strings' places, built by the first call's scan and kept, so a later page is read from
 * it instead of scanning the ROM again. Each string costs INDEX_BYTES_PER_STRING; the text is decoded
 * again from its bytes when a page shows it (the bytes of the same ROM: the same text).
 */
export const STRING_INDEX_LIMITS = {
  /** Strings one index holds; a page past them is found by a scan, as without an index. */
  strings: { max: 1 << 20, unit: 'strings in one index' },
  indexes: { max: 16, unit: 'indexes kept' },
  bytes: { max: 128 * MiB, unit: 'bytes of the kept indexes' },
} as const;
const INDEX_BYTES_PER_STRING = 13;
/** The strings one index holds (STRING_INDEX_LIMITS.strings.max; tests lower it to reach past it). */
export const stringIndexing = { maxStrings: STRING_INDEX_LIMITS.strings.max };

/** Where an indexed string's bytes are read again and what its offsets map to. */
interface IndexedSource {
  label: string;
  processor: Processor | null;
  overlayId: number | null;
  /** ROM offset of the source's first byte when its bytes are the ROM's; null for decoded bytes. */
  romStart: number | null;
  /** Runtime mapping (executables): the image base, its autoload blocks and where the main part ends. */
  runtime: { base: number; blocks: { at: number; size: number; ram: number }[]; mainEnd: number } | null;
}

/** Strings found, in order: parallel columns (index i is the i-th string kept). */
class StringColumns {
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

const ENCODINGS: readonly StringEncoding[] = ['ascii', 'sjis', 'utf16le'];

/** One scan's findings: the totals of the whole list and the strings kept from `first` on. */
interface Scanned {
  sources: IndexedSource[];
  totalBytes: number;
  scannedBytes: number;
  unscanned: StringList['unscanned'];
  matching: number;
  /** Index (among the matching strings) of the first one kept. */
  first: number;
  kept: StringColumns;
}

const estimateBytes = (s: Scanned) =>
  s.kept.source.length * INDEX_BYTES_PER_STRING +
  s.sources.reduce((n, x) => n + 256 + x.label.length * 2 + (x.runtime?.blocks.length ?? 0) * 32, 0) +
  s.unscanned.reduce((n, u) => n + 128 + (u.component.length + u.reason.length) * 2, 0);

const STRING_INDEXES = serviceKey<KeptValues<Scanned>>('string-indexes');

function stringIndexes(services: Services): KeptValues<Scanned> {
  return services.lazy(
    STRING_INDEXES,
    () =>
      new KeptValues<Scanned>(services.memory, {
        maxValues: STRING_INDEX_LIMITS.indexes.max,
        maxBytes: STRING_INDEX_LIMITS.bytes.max,
      }),
  );
}

/**
 * Scans the components of `req.area` (in order, within maxScanBytes) and keeps the matching strings
 * whose places in the list are [first, first + keep).
 */
async function scanArea(
  store: RomStore,
  rom: RomHandle,
  req: StringListRequest,
  encodings: ReadonlySet<StringEncoding>,
  first: number,
  keep: number,
): Promise<Scanned> {
  const needle = req.contains === null ? null : req.contains.toLowerCase();
  const list = sources(store, rom, req.area, req.signal);
  const totalBytes = list.reduce((n, s) => n + s.size, 0);
  const unscanned: StringList['unscanned'] = [];
  const indexed: IndexedSource[] = [];
  const kept = new StringColumns();
  let matching = 0;
  let scanned = 0;
  const options = { encodings, minLength: req.minLength, maxBytes: L.runBytes.max };
  for (const pending of list) {
    if (scanned >= req.maxScanBytes) {
      unscanned.push({ component: pending.label, bytes: pending.size, reason: 'maxScanBytes reached' });
      continue;
    }
    let src: Source;
    try {
      src = await pending.open();
    } catch (e) {
      if (e instanceof ReMcpError && e.code !== 'cancelled' && e.code !== 'rom-changed') {
        unscanned.push({ component: pending.label, bytes: pending.size, reason: `${e.code}: ${e.message}` });
        continue;
      }
      throw e;
    }
    const at = indexed.length;
    indexed.push(src.indexed);
    const budgetEnd = Math.min(src.size, req.maxScanBytes - scanned);
    const before = scanned;
    await scanPieces(
      src.read,
      src.size,
      budgetEnd,
      PIECE,
      options,
      (s, text) => {
        if (needle !== null && !text.toLowerCase().includes(needle)) return;
        if (matching >= first && kept.count < keep) kept.push(at, s);
        matching++;
      },
      async (done) => {
        scanned = before + done;
        req.onProgress?.(scanned, Math.min(totalBytes, req.maxScanBytes), `scanning ${src.label}`);
        await new Promise<void>((resolve) => setImmediate(resolve));
        throwIfCancelled(req.signal);
      },
    );
    if (budgetEnd < src.size)
      unscanned.push({ component: src.label, bytes: src.size - budgetEnd, reason: 'maxScanBytes reached' });
  }
  return { sources: indexed, totalBytes, scannedBytes: scanned, unscanned, matching, first, kept };
}

/** The listed string `i` of `scanned` (kept), its text decoded again from its bytes. */
async function listed(
  store: RomStore,
  rom: RomHandle,
  scanned: Scanned,
  i: number,
  signal: AbortSignal | undefined,
): Promise<ListedString> {
  const src = scanned.sources[scanned.kept.source[i]!]!;
  const s = scanned.kept.found(i);
  const offset = s.offset;
  const bytes =
    src.romStart !== null
      ? rom.readBytes(src.romStart + offset, s.byteLength)
      : (await store.decoded.runtimeImage(rom, src.processor!, src.overlayId, signal)).bytes.subarray(
          offset,
          offset + s.byteLength,
        );
  const text = stringText(bytes, { ...s, offset: 0 });
  const chars = [...text];
  return {
    component: src.label,
    processor: src.processor,
    overlayId: src.overlayId,
    offset,
    romOffset: src.romStart === null ? null : src.romStart + offset,
    address: runtimeOf(src, offset),
    encoding: s.encoding,
    chars: s.chars,
    bytes: s.byteLength,
    terminated: s.terminated,
    cut: s.cut,
    text: chars.length > L.textChars.max ? chars.slice(0, L.textChars.max).join('') : text,
    textCut: chars.length > L.textChars.max,
    refs: null,
    refCount: null,
    ambiguous: false,
  };
}

function runtimeOf(src: IndexedSource, o: number): number | null {
  const r = src.runtime;
  if (r === null) return null;
  for (const b of r.blocks) if (o >= b.at && o < b.at + b.size) return b.ram + (o - b.at);
  return o < r.mainEnd ? r.base + o : null;
}

/**
 * One page of the strings of `req.area`, with their places and, on request, their references. The
 * first call for a ROM and listing scans and keeps the index; later pages come from it.
 */
export async function listStrings(
  services: Services,
  store: RomStore,
  rom: RomHandle,
  req: StringListRequest,
): Promise<StringList> {
  const encodings = new Set(req.encodings);
  if (encodings.size === 0) throw new ReMcpError('invalid-argument', 'name at least one encoding');
  const notes: string[] = [];
  if (encodings.has('sjis') && !sjisAvailable()) {
    encodings.delete('sjis');
    notes.push('this Node.js has no Shift-JIS decoder (ICU data): sjis was not searched');
  }
  const indexes = stringIndexes(services);
  const key = JSON.stringify([
    rom.identity.sha256,
    rom.identity.size,
    req.area,
    ENCODINGS.filter((e) => encodings.has(e)),
    req.minLength,
    req.contains === null ? null : req.contains.toLowerCase(),
    req.maxScanBytes,
  ]);
  const indexed = req.index === false ? undefined : indexes.get(key);
  let scanned: Scanned;
  if (
    indexed !== undefined &&
    (req.offset >= indexed.matching ||
      indexed.first + indexed.kept.count >= Math.min(req.offset + req.limit, indexed.matching))
  )
    scanned = indexed;
  else if (indexed !== undefined || req.index === false) {
    // Past what the index holds (or asked not to use one): the page alone, from a scan.
    scanned = await scanArea(store, rom, req, encodings, req.offset, req.limit);
  } else {
    scanned = await scanArea(store, rom, req, encodings, 0, stringIndexing.maxStrings);
    // Kept only for bytes verified unchanged after the scan.
    await rom.verifyUnchanged(req.signal);
    scanned.kept.trim();
    indexes.keep(key, scanned, estimateBytes(scanned));
  }
  const from = Math.max(0, req.offset - scanned.first);
  const to = Math.min(scanned.kept.count, req.offset + req.limit - scanned.first);
  const page: number[] = [];
  for (let i = from; i < to; i++) page.push(i);
  const strings: ListedString[] = [];
  for (const i of page) strings.push(await listed(store, rom, scanned, i, req.signal));
  await rom.verifyUnchanged(req.signal);
  const referenceCoverage: StringList['referenceCoverage'] = [];
  if (req.references) {
    const processors = strings.map((s) => s.processor);
    await addReferences(
      services,
      store,
      rom,
      req,
      strings,
      processors,
      referenceCoverage,
      scanned.scannedBytes,
    );
  } else notes.push('references: true lists who uses each string (builds the program map)');
  return {
    status: scanned.unscanned.length === 0 ? 'complete' : 'truncated',
    totalBytes: scanned.totalBytes,
    scannedBytes: scanned.scannedBytes,
    unscanned: scanned.unscanned,
    matching: scanned.matching,
    strings,
    referenceCoverage,
    notes,
  };
}

async function addReferences(
  services: Services,
  store: RomStore,
  rom: RomHandle,
  req: StringListRequest,
  strings: ListedString[],
  processors: (Processor | null)[],
  coverage: StringList['referenceCoverage'],
  scannedTotal: number,
): Promise<void> {
  const maps = getProgramMaps(services);
  let last = 0;
  let base = scannedTotal;
  for (const processor of ['arm9', 'arm7'] as const) {
    const mine = strings.filter((s, i) => processors[i] === processor && s.address !== null);
    if (mine.length === 0) continue;
    const map = await maps.map(store, rom, {
      processor,
      evidence: EVIDENCE_IDS,
      maxCodeBytes: MAP_LIMITS.maxCodeBytes.default,
      maxSeconds: MAP_LIMITS.maxSeconds.default,
      signal: req.signal,
      onProgress: (codeBytes) => {
        const now = Date.now();
        if (now - last < 100) return;
        last = now;
        req.onProgress?.(
          base + codeBytes,
          undefined,
          `${processor} map: ${codeBytes} bytes of code classified`,
        );
      },
    });
    base += map.coverage('proven').executableBytes;
    const lowest = TIERS[TIERS.length - 1]!;
    const cov = map.coverage(lowest);
    coverage.push({
      processor,
      definitive: cov.definitive,
      notDefinitive: cov.notDefinitive,
      codeBytes: cov.codeBytes,
      executableBytes: cov.executableBytes,
    });
    for (const s of mine) {
      const xrefs = map.xrefs(s.address!, lowest);
      s.refCount = xrefs.length;
      s.ambiguous = map.set.holding(s.address!).length > 1;
      s.refs = xrefs.slice(0, L.refsPerString.max).map((x) => {
        const body = map
          .holders(x.from, lowest)
          .find((h) => h.component === x.component)
          ?.functions.find((f) => f.via === 'body');
        return {
          from: x.from,
          kind: x.kind,
          tier: x.tier,
          component: componentLabel(x.component),
          function: body ? { address: body.fn.address, mode: body.fn.mode } : null,
          table: x.table,
          loadedBy: x.loadedBy.slice(0, 4),
        };
      });
    }
  }
}

function componentLabel(c: { kind: string; overlayId: number | null; autoloadIndex: number | null }): string {
  if (c.kind === 'overlay') return `overlay ${c.overlayId}`;
  if (c.kind === 'autoload') return `autoload ${c.autoloadIndex}`;
  return c.kind;
}
