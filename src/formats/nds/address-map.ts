// Both directions of the address map, pure over the model:
// - runtime address -> every static candidate that can hold it (never picks one when several do);
// - ROM range -> every structure that owns those bytes, with a runtime address only where the bytes
//   map one-to-one into memory (never for compressed storage, whose runtime bytes are decoded).

import { ReMcpError } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import type { ByteRange, NdsRomModel, Overlay, RuntimeRange, RuntimeRangeKind } from './model.js';
import { HEADER_BASE_SIZE, HEADER_FIELD_REGIONS } from './raw/header.js';

/** How a mapped runtime address resolves: one plain owner, several, BSS, or a compressed overlay. */
export const MAPPED_STATUSES = ['resolved', 'ambiguous', 'bss', 'compressed-overlay'] as const;
export type MappedStatus = (typeof MAPPED_STATUSES)[number];
/** A runtime address's resolution: a mapped status, or unmapped (no static owner). */
export const RESOLUTION_STATUSES = [...MAPPED_STATUSES, 'unmapped'] as const;
type ResolutionStatus = (typeof RESOLUTION_STATUSES)[number];

interface RuntimeCandidate {
  component: RuntimeRange['component'];
  overlayId: number | null;
  autoloadIndex: number | null;
  region: RuntimeRangeKind;
  /** The candidate's runtime range of that region kind. */
  range: ByteRange;
  /** ROM byte that holds this runtime byte, only for file-backed regions. */
  romOffset: number | null;
  /** File ID backing the component (overlays only). */
  fileId: number | null;
  compressed: boolean;
}

export interface RuntimeResolution {
  processor: Processor;
  address: number;
  status: ResolutionStatus;
  candidates: RuntimeCandidate[];
  /** Candidates dropped because they belong to another overlay than the requested one. */
  excludedByOverlayId: number;
}

/**
 * Every candidate owner of `address` on `processor`. `overlayId`, when given, only drops candidates of
 * other overlays (a static disambiguator: it never claims the overlay is loaded).
 */
export function resolveRuntimeAddress(
  model: NdsRomModel,
  processor: Processor,
  address: number,
  overlayId?: number,
): RuntimeResolution {
  // A disambiguator naming no overlay would silently drop every overlay candidate and could turn a
  // covered address into "unmapped".
  if (overlayId !== undefined && !model.overlays[processor].some((o) => o.id === overlayId)) {
    throw new ReMcpError('not-found', `${processor} has no overlay with ID ${overlayId}`, {
      processor,
      overlayId,
      overlays: model.overlays[processor].length,
    });
  }
  const all: RuntimeCandidate[] = [];
  for (const range of model.runtimeRanges[processor]) {
    if (address < range.start || address >= range.end) continue;
    const records = range.overlayId === null ? [] : overlayRecordsOf(model, processor, range);
    all.push({
      component: range.component,
      overlayId: range.overlayId,
      autoloadIndex: range.autoloadIndex,
      region: range.kind,
      range: { start: range.start, end: range.end },
      romOffset: range.romOffset === null ? null : range.romOffset + (address - range.start),
      // Unknown (null) only when several records with one ID hold the same range.
      fileId: records.length === 1 ? records[0]!.fileId : null,
      compressed:
        range.overlayId !== null
          ? records.length > 0 && records.every((o) => o.compressed)
          : range.component !== 'dsi-main' && model[processor].compressed,
    });
  }
  const candidates =
    overlayId === undefined ? all : all.filter((c) => c.overlayId === null || c.overlayId === overlayId);
  return {
    processor,
    address,
    status: statusOf(candidates),
    candidates,
    excludedByOverlayId: all.length - candidates.length,
  };
}

/**
 * The overlay records an overlay runtime range belongs to. IDs are unique in real tables; when a
 * table repeats one, the records are told apart by the runtime extent that holds the range.
 */
function overlayRecordsOf(model: NdsRomModel, processor: Processor, range: RuntimeRange): Overlay[] {
  const same = model.overlays[processor].filter((o) => o.id === range.overlayId);
  if (same.length <= 1) return same;
  return same.filter((o) => range.start >= o.initialized.start && range.end <= o.bss.end);
}

function statusOf(candidates: RuntimeCandidate[]): ResolutionStatus {
  if (candidates.length === 0) return 'unmapped';
  if (candidates.length > 1) return 'ambiguous';
  const only = candidates[0]!;
  if (only.region === 'bss') return 'bss';
  if (only.component === 'overlay' && only.compressed) return 'compressed-overlay';
  return 'resolved';
}

type RomOwnerKind =
  | 'header'
  | 'header-padding'
  | 'fnt'
  | 'fat'
  | 'overlay-table'
  | 'main'
  | 'autoload'
  | 'nitrocode-footer'
  | 'overlay'
  | 'file'
  | 'dsi-main'
  | 'banner'
  | 'appended'
  | 'unmapped';

export interface RomOwner {
  kind: RomOwnerKind;
  /** The owning structure's ROM range. */
  range: ByteRange;
  field?: string;
  processor?: Processor;
  overlayId?: number;
  fileId?: number;
  path?: string | null;
  tableIndex?: number;
  autoloadIndex?: number;
  compressed?: boolean;
  /** Runtime address of the queried start byte; only when the whole queried range maps directly. */
  runtimeAddress?: number | null;
}

function intersects(range: ByteRange, start: number, end: number): boolean {
  return range.start < end && start < range.end;
}

/** Runtime address of `start` when [start, end) lies inside `rom` and `rom` maps to `runtimeBase`. */
function direct(rom: ByteRange, start: number, end: number, runtimeBase: number): number | null {
  return start >= rom.start && end <= rom.end ? runtimeBase + (start - rom.start) : null;
}

/** Every relationship of the ROM bytes [start, end). An empty result is reported as 'unmapped'. */
export function ownersOfRomRange(model: NdsRomModel, start: number, end: number): RomOwner[] {
  const owners: RomOwner[] = [];
  const hit = (range: ByteRange) => intersects(range, start, end);
  for (const [fStart, fEnd, field] of HEADER_FIELD_REGIONS) {
    const range = { start: fStart, end: fEnd };
    if (hit(range)) owners.push({ kind: 'header', field, range });
  }
  // The area between the 0x200-byte header and the declared header size (bounded: a junk size field
  // must not swallow the ARM9).
  // On DSi units the extended header continues to 0x1000 (hashes, signature); the rest is padding.
  const dsiHeader = { start: HEADER_BASE_SIZE, end: Math.min(0x1000, model.arm9.romOffset) };
  if (model.dsi && hit(dsiHeader)) owners.push({ kind: 'header', field: 'dsiExtended', range: dsiHeader });
  const padding = {
    start: model.dsi ? dsiHeader.end : HEADER_BASE_SIZE,
    end: Math.min(model.header.headerSize, model.arm9.romOffset, 0x8000),
  };
  if (hit(padding)) owners.push({ kind: 'header-padding', range: padding });
  if (hit(model.header.fnt)) owners.push({ kind: 'fnt', range: model.header.fnt });
  if (hit(model.header.fat)) {
    const first = Math.floor((Math.max(start, model.header.fat.start) - model.header.fat.start) / 8);
    owners.push({ kind: 'fat', range: model.header.fat, fileId: first });
  }
  for (const processor of ['arm9', 'arm7'] as const) {
    const table = processor === 'arm9' ? model.header.arm9OverlayTable : model.header.arm7OverlayTable;
    if (hit(table)) {
      const tableIndex = Math.floor((Math.max(start, table.start) - table.start) / 32);
      owners.push({ kind: 'overlay-table', processor, range: table, tableIndex });
    }
    const exe = model[processor];
    if (hit(exe.rom)) {
      const backed = {
        start: exe.rom.start,
        end: exe.rom.start + (exe.fileBackedRuntime.end - exe.fileBackedRuntime.start),
      };
      owners.push({
        kind: 'main',
        processor,
        range: exe.rom,
        compressed: exe.compressed,
        runtimeAddress: direct(backed, start, end, exe.ramAddress),
      });
    }
  }
  for (const block of model.autoloads ?? []) {
    if (block.romOffset === null) continue;
    const range = { start: block.romOffset, end: block.romOffset + block.codeSize };
    if (hit(range)) {
      owners.push({
        kind: 'autoload',
        processor: 'arm9',
        range,
        autoloadIndex: block.index,
        runtimeAddress: direct(range, start, end, block.ramAddress),
      });
    }
  }
  if (model.nitrocodeFooter) {
    const range = { start: model.nitrocodeFooter.romOffset, end: model.nitrocodeFooter.romOffset + 12 };
    if (hit(range)) owners.push({ kind: 'nitrocode-footer', range });
  }
  for (const processor of ['arm9', 'arm7'] as const) {
    for (const overlay of model.overlays[processor]) {
      if (!hit(overlay.file)) continue;
      const backed = overlay.fileBacked
        ? {
            start: overlay.file.start,
            end: overlay.file.start + (overlay.fileBacked.end - overlay.fileBacked.start),
          }
        : null;
      owners.push({
        kind: 'overlay',
        processor,
        overlayId: overlay.id,
        fileId: overlay.fileId,
        range: overlay.file,
        compressed: overlay.compressed,
        runtimeAddress: backed ? direct(backed, start, end, overlay.ramAddress) : null,
      });
    }
  }
  for (const file of model.files) {
    if (file.end > file.start && intersects(file, start, end)) {
      owners.push({
        kind: 'file',
        fileId: file.fileId,
        path: file.path,
        range: { start: file.start, end: file.end },
      });
    }
  }
  for (const [processor, region] of [
    ['arm9', model.dsi?.arm9i],
    ['arm7', model.dsi?.arm7i],
  ] as const) {
    if (region?.insideFile && hit(region.rom)) {
      // Bytes in a modcrypt area may be stored encrypted: no direct runtime address for them.
      const encrypted = region.modcrypt.some((r) => intersects(r, start, end));
      owners.push({
        kind: 'dsi-main',
        processor,
        range: region.rom,
        runtimeAddress: encrypted ? null : direct(region.rom, start, end, region.ramAddress),
      });
    }
  }
  if (model.banner && hit(model.banner)) owners.push({ kind: 'banner', range: model.banner });
  if (model.size.appended && hit(model.size.appended))
    owners.push({ kind: 'appended', range: model.size.appended });
  if (owners.length === 0) owners.push({ kind: 'unmapped', range: unmappedGap(model, start, end) });
  return owners;
}

/**
 * The whole run of bytes around [start, end) that no structure owns: from the end of the last owned
 * range before it to the start of the first one after it (or the end of the file).
 */
function unmappedGap(model: NdsRomModel, start: number, end: number): ByteRange {
  const fileEnd = Math.max(model.size.physical, end);
  let gapStart = 0;
  let gapEnd = fileEnd;
  for (const owner of ownersOfRomRange(model, 0, fileEnd)) {
    if (owner.range.end <= start) gapStart = Math.max(gapStart, owner.range.end);
    if (owner.range.start >= end) gapEnd = Math.min(gapEnd, owner.range.start);
  }
  return { start: gapStart, end: gapEnd };
}

/** Every relationship of the single ROM byte at `offset`. */
export function resolveRomOffset(model: NdsRomModel, offset: number): RomOwner[] {
  return ownersOfRomRange(model, offset, offset + 1);
}

/**
 * Where autoload block `index`'s initial bytes sit in the ARM9 runtime image (the stored ARM9, or the
 * decoded one when it is compressed): the blocks follow autoloadDataStart consecutively, in list
 * order, as the loader copies them. Null when the model does not place them (no valid module params,
 * no such block, a data start below the ARM9). The caller still checks the range against the image.
 */
export function autoloadImageOffset(model: NdsRomModel, index: number): number | null {
  const params = model.moduleParams;
  if (params.status !== 'valid' || params.autoloadDataStart === null) return null;
  if (params.autoloadDataStart < model.arm9.ramAddress) return null;
  let offset = params.autoloadDataStart - model.arm9.ramAddress;
  for (const block of model.autoloads ?? []) {
    if (block.index === index) return offset;
    offset += block.codeSize;
  }
  return null;
}
