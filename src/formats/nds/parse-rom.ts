// parseNdsRom: bytes -> the canonical model. Reads only the structures it needs through a ByteSource
// (header, tables, footers, a few words; up to 64 KiB of an ARM9 that has no valid footer), so a 256 MiB
// ROM costs a few hundred KiB of reads.
//
// Refusal rules (ReMcpError 'invalid-rom' naming the field): anything that would make a later reader
// index outside the file or misattribute bytes — main executables, tables and FAT ranges outside the
// file, table sizes that are not whole records, FNT structure errors, overlays naming missing files or
// wrapping the address space. Oddities that real ROMs have (bad CRCs, short files, appended data, junk
// in header 0x88, a footer pointing at garbage, an undefined unit code) are reported, never refused.

import { ReMcpError } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import { u16 } from '../le.js';
import { checkProgram, describeArm9, plainExecutable, secureAreaIssue } from './executables.js';
import type {
  ByteRange,
  DsiInfo,
  DsiRegion,
  NdsHeaderModel,
  NdsRomModel,
  NitroFile,
  Overlay,
  SizeReport,
} from './model.js';
import { type ByteSource, invalidRom, readExact } from './raw/byte-source.js';
import { FAT_ENTRY_SIZE, MAX_FAT_ENTRIES, parseRawFat } from './raw/fat.js';
import { MAX_PATH_LENGTH, parseRawFnt } from './raw/fnt.js';
import {
  DSI_HEADER_READ_END,
  HEADER_BASE_SIZE,
  NINTENDO_LOGO_CRC,
  parseRawHeader,
  type RawDsiHeader,
  type RawHeader,
  type RawTableRegion,
} from './raw/header.js';
import { OVERLAY_ENTRY_SIZE, parseRawOverlayTable, type RawOverlayEntry } from './raw/overlay-table.js';
import { buildRuntimeRanges } from './runtime-ranges.js';

export const ROM_LIMITS = {
  /** Overlays per table; real games have a few hundred. */
  maxOverlaysPerTable: 4096,
  /** FNT bytes: 0xF000 files with long names and 4096 directories fit well below this. */
  maxFntBytes: 16 * 1024 * 1024,
  /** Characters in one NitroFS path (a longer one refuses the FNT). */
  maxPathLength: MAX_PATH_LENGTH,
} as const;

const ADDRESS_SPACE = 0x1_0000_0000;
/** Banner sizes by banner version (GBATEK "DS Cartridge Icon/Title"). */
const BANNER_SIZES: Record<number, number> = { 1: 0x840, 2: 0x940, 3: 0xa40, 259: 0x23c0 };

/**
 * The model of an NDS image. A file refused as invalid-rom that starts with an ARM branch where an NDS
 * header has its game title (a GBA-slot image, or a flash-cart build such as a SuperCard `.sc.nds` with
 * its loader in front) says so in the refusal.
 */
export function parseNdsRom(source: ByteSource): NdsRomModel {
  try {
    return parseNds(source);
  } catch (error) {
    if (!(error instanceof ReMcpError) || error.code !== 'invalid-rom' || source.size < 4) throw error;
    if (source.read(0, 4)[3] !== 0xea) throw error;
    throw new ReMcpError(
      'invalid-rom',
      `${error.message} (the file starts with an ARM branch where an NDS header has its game title: it looks like a GBA-slot image or a flash-cart build, e.g. a SuperCard .sc.nds, not an NDS image; use the plain .nds it was made from)`,
      { ...error.details, cartImage: true },
    );
  }
}

function parseNds(source: ByteSource): NdsRomModel {
  if (source.size < HEADER_BASE_SIZE) {
    invalidRom('fileSize', `the file is ${source.size} bytes, smaller than an NDS header`);
  }
  const raw = parseRawHeader(source.read(0, Math.min(source.size, DSI_HEADER_READ_END)));
  const issues: string[] = [];
  // Only 0, 2 and 3 are defined. Another value locates nothing (the DSi fields are then simply not
  // read), so it is reported rather than refused; the tables below still have to be sound.
  if (raw.unitCode !== 0 && raw.unitCode !== 2 && raw.unitCode !== 3) {
    issues.push(
      `unit code 0x${raw.unitCode.toString(16)} is not NDS (0), NDS+DSi (2) or DSi (3); modelled as NDS (no DSi extended header)`,
    );
  }
  checkProgram('arm9', raw.arm9, source.size);
  checkProgram('arm7', raw.arm7, source.size);
  checkTable('fnt', raw.fnt, source.size, 1, ROM_LIMITS.maxFntBytes);
  checkTable('fat', raw.fat, source.size, FAT_ENTRY_SIZE, MAX_FAT_ENTRIES * FAT_ENTRY_SIZE);
  const maxTable = ROM_LIMITS.maxOverlaysPerTable * OVERLAY_ENTRY_SIZE;
  checkTable('arm9OverlayTable', raw.arm9OverlayTable, source.size, OVERLAY_ENTRY_SIZE, maxTable);
  checkTable('arm7OverlayTable', raw.arm7OverlayTable, source.size, OVERLAY_ENTRY_SIZE, maxTable);

  const fat = parseRawFat(readTable(source, raw.fat, 'fat'));
  for (let id = 0; id < fat.length; id++) {
    const entry = fat[id]!;
    // A zero-length entry holds no bytes, so where it points cannot mislead a reader (real short
    // files may leave one at the declared end, past the physical end).
    if (entry.start > entry.end || (entry.end > entry.start && entry.end > source.size)) {
      invalidRom(
        'fat',
        `FAT entry ${id} [0x${entry.start.toString(16)}, 0x${entry.end.toString(16)}) is not inside the file`,
        { fileId: id },
      );
    }
  }
  const fnt = parseRawFnt(readTable(source, raw.fnt, 'fnt'), fat.length);
  issues.push(...fnt.issues);

  const overlays = {
    arm9: buildOverlays(
      'arm9',
      parseRawOverlayTable(readTable(source, raw.arm9OverlayTable, 'arm9OverlayTable')),
      fat,
      issues,
    ),
    arm7: buildOverlays(
      'arm7',
      parseRawOverlayTable(readTable(source, raw.arm7OverlayTable, 'arm7OverlayTable')),
      fat,
      issues,
    ),
  };
  for (const processor of ['arm9', 'arm7'] as const) {
    const byId = new Map<number, number[]>();
    for (const o of overlays[processor]) byId.set(o.id, [...(byId.get(o.id) ?? []), o.tableIndex]);
    for (const [id, indexes] of byId) {
      if (indexes.length > 1) {
        issues.push(
          `${processor} overlay ID ${id} appears in ${indexes.length} table records (indexes ${indexes.join(', ')}): selecting it by ID is ambiguous`,
        );
      }
    }
  }
  const files: NitroFile[] = fat.map((entry, fileId) => ({
    fileId,
    path: fnt.paths.get(fileId) ?? null,
    start: entry.start,
    end: entry.end,
    overlays: [],
  }));
  for (const overlay of [...overlays.arm9, ...overlays.arm7]) {
    files[overlay.fileId]!.overlays.push({ processor: overlay.processor, id: overlay.id });
  }

  const arm9Info = describeArm9(source, raw.arm9);
  issues.push(...arm9Info.issues);
  const secureArea = secureAreaIssue(source, raw.arm9);
  if (secureArea !== null) issues.push(secureArea);
  const arm7 = plainExecutable('arm7', raw.arm7);
  const banner = readBanner(source, raw.bannerOffset, issues);
  const dsi = raw.dsi ? buildDsi(raw.dsi, source.size, issues) : null;
  const header = buildHeader(raw);
  if (!header.headerCrc.ok) issues.push('header CRC does not match the header bytes');

  // A loop, not Math.max(...files): up to 61,440 entries would strain the argument limit.
  // An empty table (size 0) holds no bytes, wherever its offset field points.
  const tableEnd = (r: ByteRange) => (r.end > r.start ? r.end : 0);
  let structuresEnd = Math.max(
    arm9Info.arm9.rom.end,
    arm7.rom.end,
    tableEnd(header.fnt),
    tableEnd(header.fat),
    tableEnd(header.arm9OverlayTable),
    tableEnd(header.arm7OverlayTable),
    banner?.end ?? 0,
  );
  for (const f of files) if (f.end > f.start && f.end > structuresEnd) structuresEnd = f.end;
  const size = buildSize(raw, dsi, source.size, structuresEnd, issues);
  const model: NdsRomModel = {
    header,
    size,
    arm9: arm9Info.arm9,
    arm7,
    moduleParams: arm9Info.params,
    nitrocodeFooter: arm9Info.footer,
    autoloads: arm9Info.autoloads,
    files,
    directories: fnt.directories,
    overlays,
    banner,
    dsi,
    runtimeRanges: { arm9: [], arm7: [] },
    issues,
  };
  model.runtimeRanges = buildRuntimeRanges(model);
  return model;
}

function checkTable(
  field: string,
  region: RawTableRegion,
  fileSize: number,
  record: number,
  max: number,
): void {
  if (region.size === 0) return;
  if (region.size % record !== 0) {
    invalidRom(`${field}Size`, `${field} size ${region.size} is not a multiple of ${record}`, {
      value: region.size,
    });
  }
  if (region.size > max)
    invalidRom(`${field}Size`, `${field} size ${region.size} exceeds ${max}`, { value: region.size });
  if (region.offset < HEADER_BASE_SIZE || region.offset + region.size > fileSize) {
    invalidRom(
      `${field}Offset`,
      `${field} [0x${region.offset.toString(16)}, +0x${region.size.toString(16)}) is not inside the file`,
      {
        value: region.offset,
      },
    );
  }
}

function readTable(source: ByteSource, region: RawTableRegion, field: string): Uint8Array {
  return region.size === 0 ? new Uint8Array(0) : readExact(source, region.offset, region.size, field);
}

function buildOverlays(
  processor: Processor,
  entries: RawOverlayEntry[],
  fat: ReadonlyArray<{ start: number; end: number }>,
  issues: string[],
): Overlay[] {
  const field = `${processor}OverlayTable`;
  return entries.map((e, tableIndex) => {
    const file = fat[e.fileId];
    if (file === undefined) {
      invalidRom(field, `${processor} overlay ${e.id} names file ${e.fileId}, which the FAT does not have`, {
        tableIndex,
      });
    }
    const initEnd = e.ramAddress + e.ramSize;
    if (initEnd + e.bssSize > ADDRESS_SPACE) {
      invalidRom(field, `${processor} overlay ${e.id} RAM range wraps past 0xFFFFFFFF`, { tableIndex });
    }
    const compressed = (e.flags & 1) !== 0;
    const fileSize = file.end - file.start;
    if (compressed && e.compressedSize !== fileSize) {
      issues.push(
        `${processor} overlay ${e.id}: compressed size ${e.compressedSize} differs from its file size ${fileSize}`,
      );
    }
    return {
      processor,
      tableIndex,
      id: e.id,
      ramAddress: e.ramAddress,
      ramSize: e.ramSize,
      bssSize: e.bssSize,
      staticInit: { start: e.staticInitStart, end: e.staticInitEnd },
      fileId: e.fileId,
      compressedSize: e.compressedSize,
      flags: e.flags,
      compressed,
      verifyHash: (e.flags & 2) !== 0,
      file: { start: file.start, end: file.end },
      initialized: { start: e.ramAddress, end: initEnd },
      bss: { start: initEnd, end: initEnd + e.bssSize },
      fileBacked: compressed
        ? null
        : { start: e.ramAddress, end: e.ramAddress + Math.min(e.ramSize, fileSize) },
    };
  });
}

function readBanner(source: ByteSource, offset: number, issues: string[]): ByteRange | null {
  if (offset === 0) return null;
  if (offset + 2 > source.size) {
    issues.push('banner offset is outside the file');
    return null;
  }
  const version = u16(source.read(offset, 2), 0);
  const size = BANNER_SIZES[version];
  if (size === undefined) {
    issues.push(`banner version 0x${version.toString(16)} is unknown; its extent is not known`);
    return null;
  }
  if (offset + size > source.size) {
    issues.push('banner runs past the end of the file');
    return null;
  }
  return { start: offset, end: offset + size };
}

function dsiRegion(
  entry: { romOffset: number; ramAddress: number; size: number },
  fileSize: number,
  modcryptAreas: ByteRange[],
): DsiRegion | null {
  if (entry.size === 0) return null;
  const rom = { start: entry.romOffset, end: entry.romOffset + entry.size };
  const modcrypt: ByteRange[] = [];
  for (const area of modcryptAreas) {
    const start = Math.max(area.start, rom.start);
    const end = Math.min(area.end, rom.end);
    if (end > start) modcrypt.push({ start, end });
  }
  modcrypt.sort((a, b) => a.start - b.start);
  return {
    romOffset: entry.romOffset,
    ramAddress: entry.ramAddress,
    size: entry.size,
    rom,
    runtime: { start: entry.ramAddress, end: entry.ramAddress + entry.size },
    insideFile: entry.romOffset + entry.size <= fileSize && entry.ramAddress + entry.size <= ADDRESS_SPACE,
    modcrypt,
  };
}

function buildDsi(raw: RawDsiHeader, fileSize: number, issues: string[]): DsiInfo {
  const hex = (v: number) => v.toString(16).padStart(8, '0');
  const modcryptAreas = raw.modcryptAreas
    .filter((a) => a.size > 0)
    .map((a) => ({ start: a.offset, end: a.offset + a.size }));
  const info: DsiInfo = {
    arm9i: dsiRegion(raw.arm9i, fileSize, modcryptAreas),
    arm7i: dsiRegion(raw.arm7i, fileSize, modcryptAreas),
    totalUsedSize: raw.totalUsedSize,
    bannerSize: raw.bannerSize,
    titleId: hex(raw.titleIdHigh) + hex(raw.titleIdLow),
    modcryptAreas,
  };
  for (const [name, region] of [
    ['ARM9i', info.arm9i],
    ['ARM7i', info.arm7i],
  ] as const) {
    for (const r of region?.modcrypt ?? []) {
      issues.push(
        `${name} ROM bytes [0x${r.start.toString(16)}, 0x${r.end.toString(16)}) lie in a declared modcrypt area: they may be stored AES-encrypted, so they are not mapped to runtime addresses`,
      );
    }
  }
  return info;
}

function decodeTitle(bytes: Uint8Array): string {
  const nul = bytes.indexOf(0);
  const text = bytes.subarray(0, nul === -1 ? bytes.length : nul);
  // Printable ASCII then NUL padding only; anything else (old devkitARM put a branch here, e.g.
  // 2E 00 00 EA, whose first byte alone is a printable '.') gives an empty title.
  for (const b of text) if (b < 0x20 || b > 0x7e) return '';
  if (nul !== -1 && bytes.subarray(nul).some((b) => b !== 0)) return '';
  return String.fromCharCode(...text);
}

function buildHeader(raw: RawHeader): NdsHeaderModel {
  const region = (r: RawTableRegion): ByteRange => ({ start: r.offset, end: r.offset + r.size });
  return {
    title: decodeTitle(raw.titleBytes),
    titleHex: Array.from(raw.titleBytes, (b) => b.toString(16).padStart(2, '0')).join(''),
    gameCode: raw.gameCode,
    makerCode: raw.makerCode,
    unitCode: raw.unitCode,
    deviceCapacity: raw.deviceCapacity,
    capacityBytes: raw.deviceCapacity <= 15 ? 0x20000 * 2 ** raw.deviceCapacity : null,
    romVersion: raw.romVersion,
    headerSize: raw.headerSize,
    fnt: region(raw.fnt),
    fat: region(raw.fat),
    arm9OverlayTable: region(raw.arm9OverlayTable),
    arm7OverlayTable: region(raw.arm7OverlayTable),
    bannerOffset: raw.bannerOffset,
    secureAreaCrc: raw.secureAreaCrc,
    arm9AutoloadHook: raw.arm9AutoloadHook,
    arm7AutoloadHook: raw.arm7AutoloadHook,
    arm9ParamsOffsetField: raw.arm9ParamsOffsetField,
    headerCrc: {
      stored: raw.headerCrcStored,
      computed: raw.headerCrcComputed,
      ok: raw.headerCrcStored === raw.headerCrcComputed,
    },
    logoCrc: {
      stored: raw.logoCrcStored,
      computed: raw.logoCrcComputed,
      ok: raw.logoCrcStored === raw.logoCrcComputed,
      nintendoLogo: raw.logoCrcComputed === NINTENDO_LOGO_CRC,
    },
  };
}

function buildSize(
  raw: RawHeader,
  dsi: DsiInfo | null,
  physical: number,
  structuresEnd: number,
  issues: string[],
): SizeReport {
  let declaredEnd = raw.usedRomSize;
  if (dsi && dsi.totalUsedSize > declaredEnd) {
    // The DSi total counts only when the cartridge could hold it (junk there must not invent a
    // "short" file of gigabytes).
    const capacity = raw.deviceCapacity <= 15 ? 0x20000 * 2 ** raw.deviceCapacity : null;
    if (capacity !== null && dsi.totalUsedSize > capacity) {
      issues.push(
        `DSi total used size 0x${dsi.totalUsedSize.toString(16)} exceeds the device capacity 0x${capacity.toString(16)}; not used`,
      );
    } else declaredEnd = dsi.totalUsedSize;
  }
  if (declaredEnd < structuresEnd) {
    issues.push(
      `declared used size 0x${declaredEnd.toString(16)} ends before the ROM's content (0x${structuresEnd.toString(16)})`,
    );
    declaredEnd = structuresEnd;
  }
  const shortBy = Math.max(0, declaredEnd - physical);
  if (shortBy > 0) issues.push(`the file is ${shortBy} bytes shorter than its declared size`);
  return {
    physical,
    declaredUsed: raw.usedRomSize,
    declaredEnd,
    shortBy,
    appended: physical > declaredEnd ? { start: declaredEnd, end: physical } : null,
  };
}
