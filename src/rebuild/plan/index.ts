// Manifest + source model -> the resolved plan: every byte the build will write, attributed to the
// operation or owned metadata rewrite that asks for it. Nothing here touches the filesystem; the
// service hands in a reader over the checked source ROM and the artifacts it has already loaded and
// hashed.
//
// Layout rules (deterministic, append-only):
// - The source file is kept whole as the output's prefix (trailing data included). Inside it only
//   guarded fixed edits (patch, exact-size replace-component) and the owned header rewrite change bytes.
// - Payloads that change size (v2 replace-file, add-file) and every rebuilt table (FAT, FNT) are
//   appended after the source, each at the next 0x200 boundary, in operation order then FNT, FAT.
//   Gaps between them are zero. The header is pointed at the rebuilt tables, its used size and the
//   smallest sufficient device capacity are set, and its CRCs are resealed.
import { createHash } from 'node:crypto';
import { driveSteps, type Steps } from '../core/cooperative.js';
import { ReMcpError } from '../core/errors.js';
import { formatAddress } from '../core/vocabulary.js';
import { blzEncodeSteps, blzParseFooter } from '../formats/blz/index.js';
import { crc16Modbus as crc16 } from '../formats/crc16.js';
import type { NdsRomModel } from '../formats/nds/index.js';
import { resolveRomOffset } from '../formats/nds/index.js';
import { parseRawFat, type RawFatEntry } from '../formats/nds/raw/fat.js';
import { writeRawFat } from '../formats/nds/raw/fat-write.js';
import {
  type FntDirectoryRecord,
  layoutFntTables,
  parseFntTables,
  writeFntTables,
} from '../formats/nds/raw/fnt-tables.js';
import { parseRawHeader } from '../formats/nds/raw/header.js';
import { sealHeaderCrcs, writeRawHeader } from '../formats/nds/raw/header-write.js';
import { parseRawOverlayTable, type RawOverlayEntry } from '../formats/nds/raw/overlay-table.js';
import { writeRawOverlayTable } from '../formats/nds/raw/overlay-table-write.js';
import { type ModelComponent, resolveComponent } from '../formats/nds/selectors.js';
import type { Manifest, ManifestOperation } from './manifest.js';

export const ENGINE = 're-mcp-rebuild/3';
export const APPEND_ALIGN = 0x200;
const SECURE_AREA = { start: 0x4000, end: 0x8000 } as const;
const HEADER_SIZE = 0x200;

export interface LoadedArtifact {
  path: string;
  sha256: string;
  bytes: Uint8Array;
}

/** A byte range of the output the build writes, and who owns it. */
export interface Piece {
  offset: number;
  bytes: Uint8Array;
  owner: string;
}

export interface PlannedOperation {
  id: string;
  op: ManifestOperation['op'];
  component: string | null;
  fileId: number | null;
  path: string | null;
  /** Where the operation's bytes land in the output. */
  output: { start: string; end: string };
  length: number;
  /** For fixed edits: the source range it replaces. */
  replaced: { start: string; end: string } | null;
  beforeSha256: string | null;
  afterSha256: string;
  /** replace-overlay: SHA-256 of the decoded (runtime) image the stored bytes must decode to. */
  decodedSha256?: string;
  /**
   * Relocating operations (v2 replace-file, replace-overlay): the payload's old source range, and
   * whether it was zeroed (owned by the operation) or kept because something else refers to it.
   */
  oldBytes?: { start: string; end: string; zeroed: boolean; keptBecause?: string };
}

export interface ResolvedPlan {
  engine: string;
  formatVersion: 1 | 2;
  buildId: string;
  source: { sha256: string; size: number };
  output: { size: number; romName: string };
  operations: PlannedOperation[];
  headerRewrite: Array<{ field: string; before: string; after: string }>;
  /** Rebuilt tables appended to the output. */
  tables: Array<{
    table: 'fat' | 'fnt' | 'arm9-overlay-table' | 'arm7-overlay-table';
    start: string;
    end: string;
    sha256: string;
  }>;
  /** Overlay records the plan rewrites (in rebuilt, appended overlay tables). */
  overlayRecords: Array<{
    processor: 'arm9' | 'arm7';
    id: number;
    tableIndex: number;
    compressedSize: number;
    flags: number;
    /** The decoded image's size, and the BSS that keeps the runtime range where it was. */
    ramSize: number;
    bssSize: number;
  }>;
  /** Final FAT (every file ID's output range). */
  fat: Array<{ start: string; end: string }>;
  deviceCapacity: number;
}

export interface Plan {
  resolved: ResolvedPlan;
  /** Non-overlapping, sorted by offset. */
  pieces: Piece[];
  /** Output ranges inside the source prefix the plan may change (attribution). */
  ownedPrefix: Array<{ start: number; end: number; owner: string }>;
}

export type SourceRead = (offset: number, length: number) => Uint8Array;

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
const align = (n: number) => Math.ceil(n / APPEND_ALIGN) * APPEND_ALIGN;
const hex = (s: string) => Uint8Array.from(s.match(/../g)!.map((x) => Number.parseInt(x, 16)));
const range = (start: number, end: number) => ({ start: formatAddress(start), end: formatAddress(end) });

function opError(
  op: { id: string },
  code: 'invalid-argument' | 'unsupported' | 'not-found' | 'limit-exceeded',
  message: string,
  details = {},
): never {
  throw new ReMcpError(code, `operation "${op.id}": ${message}`, { operation: op.id, ...details });
}

/** SHA-256 of a source range, read in bounded chunks (a yield after each). */
function* hashRangeSteps(read: SourceRead, start: number, end: number): Steps<string> {
  const h = createHash('sha256');
  for (let at = start; at < end; at += 1 << 20) {
    h.update(read(at, Math.min(1 << 20, end - at)));
    yield;
  }
  return h.digest('hex');
}

/** The current SHA-256 of a component a whole replacement targets: it must be the manifest's guard. */
function* guardedHash(
  componentHash: (c: ModelComponent) => Steps<string>,
  op: { id: string; componentSha256: string },
  c: ModelComponent,
): Steps<string> {
  const before = yield* componentHash(c);
  if (before !== op.componentSha256)
    opError(op, 'invalid-argument', `the component guard failed: ${c.label} has another SHA-256`, {
      expected: op.componentSha256,
      actual: before,
    });
  return before;
}

function component(
  model: NdsRomModel,
  op: { id: string; component: Parameters<typeof resolveComponent>[1] },
): ModelComponent {
  try {
    return resolveComponent(model, op.component);
  } catch (error) {
    if (error instanceof ReMcpError)
      opError(op, error.code === 'not-found' ? 'not-found' : 'invalid-argument', error.message);
    throw error;
  }
}

/** Canonical JSON (sorted keys) of the manifest's content: the build identity hashes it. */
export function canonicalJson(value: unknown): string {
  const norm = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(norm);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
          .sort()
          .map((k) => [k, norm((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return JSON.stringify(norm(value), null, 1);
}

/** The manifest as stored with the build: addresses in the one output form. */
export function normalizeManifest(m: Manifest): unknown {
  return {
    ...m,
    operations: m.operations.map((o) =>
      o.op === 'patch'
        ? {
            ...o,
            offset: formatAddress(o.offset),
            original: o.original.toLowerCase(),
            replacement: o.replacement.toLowerCase(),
            runtimeAddress: o.runtimeAddress === undefined ? undefined : formatAddress(o.runtimeAddress),
          }
        : o,
    ),
  };
}

/** The header (the DSi header when there is one): never zeroed, whatever a FAT entry claims. */
const headerEnd = (model: NdsRomModel) => (model.dsi ? 0x1000 : HEADER_SIZE);

/**
 * The old source bytes of file `fileId`, which a relocating operation leaves unreferenced: zeroed
 * unless any other structure the model names overlaps them (another FAT entry, an executable with its
 * footer, a table, the banner, a DSi region, the header) or they lie past the source.
 */
function oldPayload(
  model: NdsRomModel,
  fileId: number,
  sourceSize: number,
): { start: number; end: number; zeroed: boolean; keptBecause?: string } {
  const f = model.files[fileId]!;
  const keep = (keptBecause: string) => ({ start: f.start, end: f.end, zeroed: false, keptBecause });
  if (f.end <= f.start) return keep('empty');
  if (f.end > sourceSize) return keep('past the end of the source');
  const others: Array<[string, { start: number; end: number }]> = [
    ['the header', { start: 0, end: headerEnd(model) }],
    ['the ARM9 binary', { start: model.arm9.rom.start, end: model.arm9.rom.end + 12 }],
    ['the ARM7 binary', model.arm7.rom],
    ['the FNT', model.header.fnt],
    ['the FAT', model.header.fat],
    ['the ARM9 overlay table', model.header.arm9OverlayTable],
    ['the ARM7 overlay table', model.header.arm7OverlayTable],
  ];
  if (model.banner) others.push(['the banner', model.banner]);
  for (const r of [model.dsi?.arm9i, model.dsi?.arm7i]) if (r) others.push(['a DSi region', r.rom]);
  for (const o of model.files) if (o.fileId !== fileId) others.push([`file ${o.fileId}`, o]);
  for (const [what, r] of others) {
    if (r.end > r.start && r.start < f.end && r.end > f.start) return keep(`${what} overlaps it`);
  }
  return { start: f.start, end: f.end, zeroed: true };
}

/** The smallest device capacity code n (128 KiB << n) that holds `size` bytes. */
export function capacityFor(size: number): number {
  let n = 0;
  while (0x20000 * 2 ** n < size) n++;
  return n;
}

/**
 * Plans a build without holding the event loop: hashing and BLZ encoding run in slices of at most
 * COOPERATIVE_SLICE_MS, with `signal` checked between them.
 */
export function planRebuild(
  model: NdsRomModel,
  read: SourceRead,
  sourceSize: number,
  sourceSha256: string,
  manifest: Manifest,
  artifacts: ReadonlyMap<string, LoadedArtifact>,
  signal?: AbortSignal,
): Promise<Plan> {
  return driveSteps(planSteps(model, read, sourceSize, sourceSha256, manifest, artifacts), { signal });
}

function* planSteps(
  model: NdsRomModel,
  read: SourceRead,
  sourceSize: number,
  sourceSha256: string,
  manifest: Manifest,
  artifacts: ReadonlyMap<string, LoadedArtifact>,
): Steps<Plan> {
  if (manifest.source.sha256 !== sourceSha256 || manifest.source.size !== sourceSize) {
    throw new ReMcpError('invalid-argument', 'the manifest names another source ROM', {
      expected: manifest.source,
      actual: { sha256: sourceSha256, size: sourceSize },
    });
  }
  const ids = new Set<string>();
  for (const o of manifest.operations) {
    if (ids.has(o.id)) opError(o, 'invalid-argument', 'the operation id is used twice');
    ids.add(o.id);
  }
  const fixed: Piece[] = [];
  const planned: PlannedOperation[] = [];
  // Each component is hashed once per plan, however many operations guard it; each distinct image
  // is BLZ-encoded once.
  const hashes = new Map<string, string>();
  const componentHash = function* (c: ModelComponent): Steps<string> {
    const key = `${c.rom.start}:${c.rom.end}`;
    let h = hashes.get(key);
    if (h === undefined) {
      h = yield* hashRangeSteps(read, c.rom.start, c.rom.end);
      hashes.set(key, h);
    }
    return h;
  };
  const encoded = new Map<string, Uint8Array>();
  const artifact = (o: { id: string; artifact: string; artifactSha256: string }) => {
    const a = artifacts.get(o.artifact);
    if (!a) opError(o, 'not-found', 'its artifact was not loaded');
    if (a.sha256 !== o.artifactSha256) {
      opError(o, 'invalid-argument', 'the artifact SHA-256 differs from the manifest', {
        expected: o.artifactSha256,
        actual: a.sha256,
      });
    }
    return a;
  };
  // v2 state: the FAT as it will be, appended payloads, FNT records when the tree changes.
  const fatRaw = parseRawFat(read(model.header.fat.start, model.header.fat.end - model.header.fat.start));
  const fat: RawFatEntry[] = fatRaw.map((e) => ({ ...e }));
  let fatChanged = false;
  let fntDirs: FntDirectoryRecord[] | null = null;
  const appended: Array<{ bytes: Uint8Array; owner: string; fileId: number }> = [];
  const touchedFiles = new Set<number>();
  const overlayTables: Partial<Record<'arm9' | 'arm7', RawOverlayEntry[]>> = {};
  const overlayRecords: ResolvedPlan['overlayRecords'] = [];
  // A relocated payload's old bytes become a fixed zero edit owned by its operation (attributed like
  // any edit; a patch of the same bytes is then a conflict). Zero-filled memory is not touched until
  // it is copied, so a large old payload costs no resident memory here.
  const zeroOld = (owner: string, fileId: number): PlannedOperation['oldBytes'] => {
    const old = oldPayload(model, fileId, sourceSize);
    if (old.zeroed) fixed.push({ offset: old.start, bytes: new Uint8Array(old.end - old.start), owner });
    return { ...range(old.start, old.end), zeroed: old.zeroed, keptBecause: old.keptBecause };
  };

  for (const o of manifest.operations) {
    if (o.op === 'patch') {
      const c = component(model, o);
      if (c.compressed)
        opError(o, 'unsupported', `${c.label} is stored compressed; a byte edit of it is refused`);
      const original = hex(o.original);
      const replacement = hex(o.replacement);
      if (original.length !== replacement.length)
        opError(o, 'invalid-argument', 'original and replacement differ in length');
      const size = c.rom.end - c.rom.start;
      if (o.offset + original.length > size) {
        opError(
          o,
          'invalid-argument',
          `offset ${formatAddress(o.offset)} + ${original.length} lies outside ${c.label} (${size} bytes)`,
        );
      }
      if (c.fileId !== null && touchedFiles.has(c.fileId))
        opError(o, 'invalid-argument', `${c.label} is replaced by another operation`);
      const start = c.rom.start + o.offset;
      const now = read(start, original.length);
      if (sha(now) !== sha(original)) {
        opError(o, 'invalid-argument', 'the original-byte guard failed: the ROM holds other bytes there', {
          expected: o.original.toLowerCase(),
          actual: Buffer.from(now).toString('hex'),
        });
      }
      if (o.componentSha256 !== undefined && (yield* componentHash(c)) !== o.componentSha256) {
        opError(o, 'invalid-argument', `the component guard failed: ${c.label} has another SHA-256`);
      }
      if (o.runtimeAddress !== undefined) {
        const owners = resolveRomOffset(model, start);
        if (!owners.some((r) => r.runtimeAddress === o.runtimeAddress)) {
          opError(
            o,
            'invalid-argument',
            `the runtime guard failed: ROM offset ${formatAddress(start)} does not load at ${formatAddress(o.runtimeAddress)}`,
          );
        }
      }
      fixed.push({ offset: start, bytes: replacement, owner: o.id });
      planned.push({
        id: o.id,
        op: o.op,
        component: c.label,
        fileId: c.fileId,
        path: c.path,
        output: range(start, start + replacement.length),
        length: replacement.length,
        replaced: range(start, start + original.length),
        beforeSha256: sha(original),
        afterSha256: sha(replacement),
      });
    } else if (o.op === 'replace-component' || o.op === 'replace-file') {
      const c = component(model, o);
      const a = artifact(o);
      const size = c.rom.end - c.rom.start;
      const before = yield* guardedHash(componentHash, o, c);
      if (c.fileId !== null) {
        if (touchedFiles.has(c.fileId)) opError(o, 'invalid-argument', `${c.label} is replaced twice`);
        touchedFiles.add(c.fileId);
      }
      if (o.op === 'replace-component') {
        if (a.bytes.length !== size) {
          opError(
            o,
            'invalid-argument',
            `exact-size replacement: the artifact is ${a.bytes.length} bytes, ${c.label} is ${size}`,
          );
        }
        fixed.push({ offset: c.rom.start, bytes: a.bytes, owner: o.id });
        planned.push({
          id: o.id,
          op: o.op,
          component: c.label,
          fileId: c.fileId,
          path: c.path,
          output: range(c.rom.start, c.rom.end),
          length: size,
          replaced: range(c.rom.start, c.rom.end),
          beforeSha256: before,
          afterSha256: a.sha256,
        });
      } else {
        if (c.kind !== 'file' || c.fileId === null) {
          opError(
            o,
            'unsupported',
            `${c.label} is not a plain NitroFS file (overlays and executables change size only through their own operations)`,
          );
        }
        appended.push({ bytes: a.bytes, owner: o.id, fileId: c.fileId });
        fatChanged = true;
        planned.push({
          id: o.id,
          op: o.op,
          component: c.label,
          fileId: c.fileId,
          path: c.path,
          output: range(0, 0), // set once the append layout is known
          length: a.bytes.length,
          replaced: null,
          beforeSha256: before,
          afterSha256: a.sha256,
          oldBytes: zeroOld(o.id, c.fileId),
        });
      }
    } else if (o.op === 'replace-overlay') {
      const c = component(model, { id: o.id, component: { kind: 'overlay', ...o.overlay } });
      const ov = model.overlays[o.overlay.processor].find((x) => x.id === o.overlay.id)!;
      const a = artifact(o);
      const before = yield* guardedHash(componentHash, o, c);
      // The image may change size inside the overlay's runtime range: its BSS absorbs the difference,
      // so [ramAddress, ramAddress + ramSize + bssSize) stays where it was (no new overlap with other
      // overlays or the ARM9), and the static-initializer list must lie inside the new image.
      const runtimeSize = ov.ramSize + ov.bssSize;
      const resized = a.bytes.length !== ov.ramSize;
      if (resized && (a.bytes.length > runtimeSize || a.bytes.length === 0 || a.bytes.length % 4 !== 0)) {
        opError(
          o,
          'invalid-argument',
          `the decoded image is ${a.bytes.length} bytes; ${c.label} needs a non-empty multiple of 4 of at most ${runtimeSize} (its RAM size ${ov.ramSize} plus BSS ${ov.bssSize}: its runtime range may not change)`,
        );
      }
      const imageEnd = ov.ramAddress + a.bytes.length;
      const init = ov.staticInit;
      if (resized && init.end > init.start && (init.start < ov.ramAddress || init.end > imageEnd)) {
        opError(
          o,
          'invalid-argument',
          `the static-initializer list ${formatAddress(init.start)}..${formatAddress(init.end)} would lie outside the new image (${formatAddress(ov.ramAddress)}..${formatAddress(imageEnd)}): its runtime range may not change`,
        );
      }
      const ramSize = a.bytes.length;
      const bssSize = runtimeSize - ramSize;
      if (touchedFiles.has(ov.fileId)) opError(o, 'invalid-argument', `${c.label} is replaced twice`);
      touchedFiles.add(ov.fileId);
      let stored = a.bytes;
      let flags = ov.flags;
      let compressedSize = ov.compressedSize;
      if (ov.compressed) {
        let blob = encoded.get(a.sha256);
        if (blob === undefined) {
          blob = yield* blzEncodeSteps(a.bytes);
          encoded.set(a.sha256, blob);
        }
        if (blzParseFooter(blob).coded) {
          stored = blob;
          compressedSize = blob.length;
        } else {
          // A "not coded" result must be stored plain: the console would read its last word as a footer.
          flags &= ~1;
          compressedSize = 0;
        }
      }
      const table = p2(overlayTables, o.overlay.processor, () => {
        const region = model.header[o.overlay.processor === 'arm9' ? 'arm9OverlayTable' : 'arm7OverlayTable'];
        return parseRawOverlayTable(read(region.start, region.end - region.start));
      });
      table[ov.tableIndex] = { ...table[ov.tableIndex]!, flags, compressedSize, ramSize, bssSize };
      overlayRecords.push({
        processor: o.overlay.processor,
        id: ov.id,
        tableIndex: ov.tableIndex,
        compressedSize,
        flags,
        ramSize,
        bssSize,
      });
      appended.push({ bytes: stored, owner: o.id, fileId: ov.fileId });
      fatChanged = true;
      planned.push({
        id: o.id,
        op: o.op,
        component: c.label,
        fileId: ov.fileId,
        path: c.path,
        output: range(0, 0),
        length: stored.length,
        replaced: null,
        beforeSha256: before,
        afterSha256: sha(stored),
        decodedSha256: a.sha256,
        oldBytes: zeroOld(o.id, ov.fileId),
      });
    } else {
      // add-file (v2)
      const a = artifact(o);
      fntDirs ??= parseFntTables(
        read(model.header.fnt.start, model.header.fnt.end - model.header.fnt.start),
      ).directories;
      const fileId = addFile(o, model, fntDirs, fat.length);
      fat.push({ start: 0, end: 0 });
      appended.push({ bytes: a.bytes, owner: o.id, fileId });
      fatChanged = true;
      planned.push({
        id: o.id,
        op: o.op,
        component: `file ${fileId}`,
        fileId,
        path: o.path,
        output: range(0, 0),
        length: a.bytes.length,
        replaced: null,
        beforeSha256: null,
        afterSha256: a.sha256,
      });
    }
  }

  // Conflicts: two fixed edits may not touch one byte.
  fixed.sort((x, y) => x.offset - y.offset);
  for (let i = 1; i < fixed.length; i++) {
    const p = fixed[i - 1]!;
    const q = fixed[i]!;
    if (q.offset < p.offset + p.bytes.length) {
      throw new ReMcpError(
        'invalid-argument',
        `operations "${p.owner}" and "${q.owner}" change the same bytes`,
        {
          operations: [p.owner, q.owner],
        },
      );
    }
  }

  // Append layout.
  const pieces: Piece[] = [];
  let cursor = align(sourceSize);
  for (const item of appended) {
    const start = cursor;
    fat[item.fileId] = { start, end: start + item.bytes.length };
    pieces.push({ offset: start, bytes: item.bytes, owner: item.owner });
    const p = planned.find((x) => x.id === item.owner)!;
    p.output = range(start, start + item.bytes.length);
    cursor = align(start + Math.max(item.bytes.length, 1));
  }
  const tables: ResolvedPlan['tables'] = [];
  const headerBytes = read(0, HEADER_SIZE).slice();
  const h = parseRawHeader(headerBytes);
  const next = { ...h };
  // Rewritten tables follow the appended data, each aligned; returns the header's offset/size pair.
  const placeTable = (table: ResolvedPlan['tables'][number]['table'], bytes: Uint8Array) => {
    const at = { offset: cursor, size: bytes.length };
    pieces.push({ offset: cursor, bytes, owner: `rebuild:${table}` });
    tables.push({ table, ...range(cursor, cursor + bytes.length), sha256: sha(bytes) });
    cursor = align(cursor + Math.max(bytes.length, 1));
    return at;
  };
  if (fntDirs !== null) next.fnt = placeTable('fnt', writeFntTables(layoutFntTables(fntDirs)));
  for (const processor of ['arm9', 'arm7'] as const) {
    const table = overlayTables[processor];
    if (!table) continue;
    next[processor === 'arm9' ? 'arm9OverlayTable' : 'arm7OverlayTable'] = placeTable(
      `${processor}-overlay-table`,
      writeRawOverlayTable(table),
    );
  }
  if (fatChanged) next.fat = placeTable('fat', writeRawFat(fat));
  const outputSize =
    pieces.length > 0 ? Math.max(...pieces.map((p) => p.offset + p.bytes.length)) : sourceSize;
  if (outputSize > 0xffffffff) throw new ReMcpError('limit-exceeded', 'the rebuilt ROM would exceed 4 GiB');
  if (pieces.length > 0) {
    next.usedRomSize = Math.max(h.usedRomSize, outputSize);
    next.deviceCapacity = capacityFor(outputSize);
  }

  // Header rewrite: the fields above, the secure-area CRC when an edit reached the secure area and the
  // stored CRC was the CRC of the source bytes (a CRC that was already stale is not invented).
  const secureTouched = fixed.some(
    (p) => p.offset < SECURE_AREA.end && p.offset + p.bytes.length > SECURE_AREA.start,
  );
  if (secureTouched && sourceSize >= SECURE_AREA.end) {
    const area = read(SECURE_AREA.start, SECURE_AREA.end - SECURE_AREA.start).slice();
    if (crc16(area) === h.secureAreaCrc) {
      for (const p of fixed) applyInto(area, SECURE_AREA.start, p);
      next.secureAreaCrc = crc16(area);
    }
  }
  for (const p of fixed) {
    if (p.offset < HEADER_SIZE) throw new ReMcpError('internal-error', 'a component edit reached the header');
  }
  let header = writeRawHeader(headerBytes, next);
  const headerChanged = header.some((b, i) => b !== headerBytes[i]);
  const headerRewrite: ResolvedPlan['headerRewrite'] = [];
  if (headerChanged) {
    // Reseal only when the source CRCs were right; a source with a stale CRC keeps its stale value
    // recomputed over the new bytes either way, so the console accepts the result.
    sealHeaderCrcs(header);
    header = header.slice();
    for (const [field, at, width] of HEADER_FIELDS) {
      const b = readLe(headerBytes, at, width);
      const a = readLe(header, at, width);
      if (a !== b) headerRewrite.push({ field, before: formatAddress(b), after: formatAddress(a) });
    }
    fixed.push({ offset: 0, bytes: header, owner: 'rebuild:header' });
  }
  fixed.sort((x, y) => x.offset - y.offset);
  const all = [...fixed, ...pieces].sort((x, y) => x.offset - y.offset);

  const finalFat = fatChanged ? fat : fatRaw;
  const resolved: ResolvedPlan = {
    engine: ENGINE,
    formatVersion: manifest.formatVersion,
    buildId: '',
    source: { sha256: sourceSha256, size: sourceSize },
    output: { size: outputSize, romName: 'rebuilt.nds' },
    operations: planned,
    headerRewrite,
    tables,
    overlayRecords,
    fat: finalFat.map((e) => range(e.start, e.end)),
    deviceCapacity: headerChanged ? header[0x14]! : h.deviceCapacity,
  };
  resolved.buildId = sha(
    canonicalJson({
      engine: ENGINE,
      manifest: normalizeManifest(manifest),
      artifacts: planned.map((p) => p.afterSha256),
    }),
  ).slice(0, 16);
  return {
    resolved,
    pieces: all,
    ownedPrefix: fixed.map((p) => ({ start: p.offset, end: p.offset + p.bytes.length, owner: p.owner })),
  };
}

const HEADER_FIELDS: ReadonlyArray<readonly [string, number, 1 | 2 | 4]> = [
  ['deviceCapacity', 0x14, 1],
  ['fntOffset', 0x40, 4],
  ['fntSize', 0x44, 4],
  ['fatOffset', 0x48, 4],
  ['fatSize', 0x4c, 4],
  ['arm9OverlayTableOffset', 0x50, 4],
  ['arm9OverlayTableSize', 0x54, 4],
  ['arm7OverlayTableOffset', 0x58, 4],
  ['arm7OverlayTableSize', 0x5c, 4],
  ['secureAreaCrc', 0x6c, 2],
  ['usedRomSize', 0x80, 4],
  ['logoCrc', 0x15c, 2],
  ['headerCrc', 0x15e, 2],
];

function p2<K extends string, V>(map: Partial<Record<K, V>>, key: K, make: () => V): V {
  map[key] ??= make();
  return map[key]!;
}

function readLe(b: Uint8Array, at: number, width: number): number {
  let v = 0;
  for (let i = width - 1; i >= 0; i--) v = v * 256 + b[at + i]!;
  return v;
}

function applyInto(target: Uint8Array, base: number, p: Piece): void {
  for (let i = 0; i < p.bytes.length; i++) {
    const at = p.offset + i - base;
    if (at >= 0 && at < target.length) target[at] = p.bytes[i]!;
  }
}

/**
 * Adds `path` to the FNT records and returns its new file ID (`nextId`, the first free FAT slot).
 * File IDs of one directory are consecutive, so a new file can join a directory only when that
 * directory's files end at the last ID (or it has none); missing directories are created, each new
 * one starting at the new ID. Anything else would renumber existing files and is refused.
 */
function addFile(
  op: { id: string; path: string },
  model: NdsRomModel,
  dirs: FntDirectoryRecord[],
  nextId: number,
): number {
  const parts = op.path.split('/');
  const enc = (s: string) => Uint8Array.from([...s].map((ch) => ch.charCodeAt(0)));
  for (const part of parts) {
    if (
      part === '' ||
      part === '.' ||
      part === '..' ||
      part.length > 127 ||
      /[\u0000-\u001f\u007f/\u0080-\uffff]/.test(part)
    ) {
      opError(
        op,
        'invalid-argument',
        `bad path segment ${JSON.stringify(part)} (1..127 printable ASCII characters, no control characters)`,
      );
    }
  }
  if (model.files.some((f) => f.path === op.path))
    opError(op, 'invalid-argument', `a file already exists at ${op.path}`);
  if (dirs.length === 0) opError(op, 'unsupported', 'the ROM has no file name table');
  const name = (e: { name: Uint8Array }) => String.fromCharCode(...e.name);
  let dirIndex = 0;
  for (const part of parts.slice(0, -1)) {
    const dir = dirs[dirIndex]!;
    const existing = dir.entries.find((e) => name(e) === part);
    if (existing && existing.dirId === undefined)
      opError(op, 'invalid-argument', `${part} is a file, not a directory`);
    if (existing) {
      dirIndex = existing.dirId! - 0xf000;
      continue;
    }
    if (dirs.length >= 0x1000) opError(op, 'limit-exceeded', 'the FNT already holds 4096 directories');
    const id = 0xf000 + dirs.length;
    dir.entries.push({ name: enc(part), dirId: id });
    dirs.push({ subOffset: 0, firstFileId: nextId, parentField: 0xf000 + dirIndex, entries: [] });
    dirIndex = id - 0xf000;
  }
  const dir = dirs[dirIndex]!;
  const leaf = parts[parts.length - 1]!;
  if (dir.entries.some((e) => name(e) === leaf))
    opError(op, 'invalid-argument', `${leaf} already exists in its directory`);
  const files = dir.entries.filter((e) => e.dirId === undefined).length;
  if (files === 0) dir.firstFileId = nextId;
  else if (dir.firstFileId + files !== nextId) {
    opError(
      op,
      'unsupported',
      "the directory's files do not end at the last file ID; adding one would renumber existing files",
      {
        directoryFirstFileId: dir.firstFileId,
        files,
        nextId,
      },
    );
  }
  dir.entries.push({ name: enc(leaf) });
  return nextId;
}
