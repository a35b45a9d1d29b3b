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
import { cooperativeTurn } from '../core/cooperative.js';
import { ReMcpError, throwIfCancelled } from '../core/errors.js';
import type { BoundedStatus, Processor } from '../core/vocabulary.js';
import { autoloadImageOffset } from '../formats/nds/address-map.js';
import type { RomHandle, RomStore } from '../roms/rom-store.js';
import {
  STRING_ENCODINGS,
  type StringEncoding,
  scanPieces,
  sjisAvailable,
  stringText,
} from '../search/strings.js';
import type { Services } from '../services.js';
import {
  estimateBytes,
  type IndexedSource,
  runtimeOf,
  type Scanned,
  StringColumns,
  stringIndexes,
  stringIndexing,
  type Unscanned,
} from './string-index.js';

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
type StringArea = (typeof STRING_AREAS)[number];

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

interface StringRef {
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

interface ListedString {
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

interface StringList {
  status: BoundedStatus;
  totalBytes: number;
  scannedBytes: number;
  unscanned: Unscanned;
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
        await cooperativeTurn(req.signal);
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
    STRING_ENCODINGS.filter((e) => encodings.has(e)),
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
