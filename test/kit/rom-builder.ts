// Test ROM builder: assembles NDS ROMs from parts, independent of the product's parser, and reports
// where it put everything (the layout is the ground truth tests compare the product's model against).
// It may use the product's BLZ encoder for compressed parts (issue 3 allows it).
//
// Layout (ndstool's order): header | ARM9 (+ nitrocode footer) | ARM9 overlay table | ARM9 overlay
// files | ARM7 | ARM7 overlay table | ARM7 overlay files | FNT | FAT | banner | NitroFS files |
// [used size] | DSi ARM9i | ARM7i | appended data; then optional truncation.
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { blzEncode, blzIsCodedFooter } from '../../src/formats/blz/index.js';
import { buildArm9, buildTree } from './rom-builder-layout.js';
import { encodeFnt, fixHeaderCrcs, type Payload, payloadSlice, putU16, putU32 } from './rom-builder-parts.js';

export type { Payload } from './rom-builder-parts.js';

export interface AutoloadSpec {
  ramAddress: number;
  data: Uint8Array;
  bssSize: number;
}

export interface ModuleParamsSpec {
  /** Offset of the 36-byte params inside the ARM9 code (default 0x800). */
  offset?: number;
  autoloads?: AutoloadSpec[];
  bss?: { start: number; end: number };
  sdkVersion?: number;
  /**
   * Footer variants: 'valid' (default), 'points-outside', 'no-magic-at-target', or 'absent' (no
   * footer after the ARM9 at all, as in images whose tools dropped it; the params stay in the ARM9).
   */
  footer?: 'valid' | 'points-outside' | 'no-magic-at-target' | 'absent';
}

export interface MainSpec {
  code: Uint8Array;
  ramAddress?: number;
  entry?: number;
}

export interface Arm9Spec extends MainSpec {
  moduleParams?: ModuleParamsSpec;
  /** BLZ-compress the ARM9 (needs moduleParams; keeps a 0x4000 raw prefix when the image allows). */
  compress?: boolean;
}

export interface FileSpec {
  /** Slash-separated NitroFS path; null for an unnamed FAT entry. */
  path: string | null;
  data?: Payload;
  /** Path of an earlier named file whose FAT range this entry shares. */
  sameAs?: string;
}

export interface OverlaySpec {
  id: number;
  ramAddress: number;
  data: Uint8Array;
  /** Initialized size in RAM (default data length; for compressed overlays the decoded length). */
  ramSize?: number;
  bssSize?: number;
  staticInit?: { start: number; end: number };
  compress?: boolean;
  verifyHash?: boolean;
}

export interface RomSpec {
  title?: string;
  gameCode?: string;
  makerCode?: string;
  unitCode?: number;
  romVersion?: number;
  headerSize?: number;
  arm9: Arm9Spec;
  arm7: MainSpec;
  files?: FileSpec[];
  arm9Overlays?: OverlaySpec[];
  arm7Overlays?: OverlaySpec[];
  banner?: boolean;
  dsi?: {
    arm9i?: { data: Uint8Array; ramAddress: number };
    arm7i?: { data: Uint8Array; ramAddress: number };
  };
  appended?: Payload;
  /** Zero bytes counted in the used size after the last file (real ROMs pad; a short file loses them). */
  usedPadding?: number;
  /** Bytes cut off the end of the finished image (a "short" file). */
  truncate?: number;
}

export interface LayoutRange {
  start: number;
  end: number;
}

export interface LayoutOverlay {
  processor: 'arm9' | 'arm7';
  id: number;
  fileId: number;
  file: LayoutRange;
  ramAddress: number;
  ramSize: number;
  bssSize: number;
  compressed: boolean;
  /** The runtime image (decoded bytes for compressed overlays). */
  runtime: Uint8Array;
}

export interface RomLayout {
  size: number;
  usedSize: number;
  declaredEnd: number;
  headerSize: number;
  arm9: { rom: LayoutRange; ramAddress: number; entry: number; compressed: boolean; image: Uint8Array };
  arm7: { rom: LayoutRange; ramAddress: number; entry: number };
  paramsOffset: number | null;
  footerOffset: number | null;
  autoloads: Array<{ ramAddress: number; codeSize: number; bssSize: number; romOffset: number | null }>;
  fnt: LayoutRange;
  fat: LayoutRange;
  arm9OverlayTable: LayoutRange;
  arm7OverlayTable: LayoutRange;
  banner: LayoutRange | null;
  /** Every FAT entry by file ID. */
  files: Array<{ fileId: number; path: string | null; start: number; end: number }>;
  directories: Array<{ id: number; path: string }>;
  overlays: LayoutOverlay[];
  arm9i: LayoutRange | null;
  arm7i: LayoutRange | null;
  appended: LayoutRange | null;
}

interface Chunk {
  offset: number;
  payload: Payload;
}

const ALIGN = 0x200;
const align = (n: number, a = ALIGN) => Math.ceil(n / a) * a;
const ascii = (text: string) => new TextEncoder().encode(text);

/** Builds the ROM in memory. */
export function buildRom(spec: RomSpec): { bytes: Uint8Array; layout: RomLayout } {
  const { layout, chunks, header } = planRom(spec);
  const bytes = new Uint8Array(layout.size);
  bytes.set(header.subarray(0, Math.min(header.length, layout.size)));
  for (const chunk of chunks) {
    const room = Math.max(0, Math.min(chunk.payload.length, layout.size - chunk.offset));
    const view = bytes.subarray(chunk.offset, chunk.offset + room);
    payloadSlice(chunk.payload, 0, view);
  }
  return { bytes, layout };
}

/** Streams the ROM to `path` (generated payloads are written 1 MiB at a time). */
export function writeRomFile(spec: RomSpec, path: string): RomLayout {
  const { layout, chunks, header } = planRom(spec);
  const fd = openSync(path, 'w');
  try {
    writeSync(fd, header, 0, Math.min(header.length, layout.size), 0);
    const buffer = new Uint8Array(1 << 20);
    for (const chunk of chunks) {
      const total = Math.max(0, Math.min(chunk.payload.length, layout.size - chunk.offset));
      for (let done = 0; done < total; done += buffer.length) {
        const piece = buffer.subarray(0, Math.min(buffer.length, total - done));
        payloadSlice(chunk.payload, done, piece);
        writeSync(fd, piece, 0, piece.length, chunk.offset + done);
      }
    }
    ftruncateSync(fd, layout.size);
  } finally {
    closeSync(fd);
  }
  return layout;
}

interface Plan {
  layout: RomLayout;
  chunks: Chunk[];
  header: Uint8Array;
}

function planRom(spec: RomSpec): Plan {
  const headerSize = spec.headerSize ?? 0x4000;
  const header = new Uint8Array(Math.max(headerSize, 0x200));
  const chunks: Chunk[] = [];
  let cursor = headerSize;
  const place = (payload: Payload, alignTo = ALIGN): LayoutRange => {
    cursor = align(cursor, alignTo);
    const start = cursor;
    chunks.push({ offset: start, payload });
    cursor += payload.length;
    return { start, end: cursor };
  };

  // ARM9 (+ module params, autoloads, compression, footer)
  const arm9 = buildArm9(spec.arm9);
  const arm9Rom = place(arm9.stored);
  let footerOffset: number | null = null;
  if (arm9.footer) {
    footerOffset = cursor;
    chunks.push({ offset: cursor, payload: arm9.footer });
    cursor += arm9.footer.length;
  }
  const autoloads = arm9.autoloads.map((a) => ({
    ...a,
    romOffset: spec.arm9.compress ? null : arm9Rom.start + a.imageOffset,
  }));

  // File IDs: overlays first (ARM9 then ARM7), then FNT-named files by directory, then unnamed ones.
  const overlaySpecs = [
    ...(spec.arm9Overlays ?? []).map((o) => ({ processor: 'arm9' as const, o })),
    ...(spec.arm7Overlays ?? []).map((o) => ({ processor: 'arm7' as const, o })),
  ];
  const tree = buildTree(spec.files ?? [], overlaySpecs.length);
  const fatCount = overlaySpecs.length + tree.named.length + tree.unnamed.length;
  const fat: LayoutRange[] = new Array(fatCount);

  const overlays: LayoutOverlay[] = [];
  const tables: Record<'arm9' | 'arm7', LayoutRange> = {
    arm9: { start: 0, end: 0 },
    arm7: { start: 0, end: 0 },
  };
  const arm7Bytes = spec.arm7.code;
  let arm7Rom: LayoutRange = { start: 0, end: 0 };
  for (const processor of ['arm9', 'arm7'] as const) {
    if (processor === 'arm7') arm7Rom = place(arm7Bytes);
    const group = overlaySpecs
      .map((s, fileId) => ({ ...s, fileId }))
      .filter((s) => s.processor === processor);
    if (group.length === 0) continue;
    const table = new Uint8Array(group.length * 32);
    tables[processor] = place(table);
    group.forEach(({ o, fileId }, i) => {
      // A plain Uint8Array copy: the encoder must not see a Buffer (whose slice() does not copy).
      const stored = o.compress ? blzEncode(new Uint8Array(o.data)) : o.data;
      // A not-coded blob must be stored as uncompressed (the console would read its last word as a footer).
      if (o.compress && !blzIsCodedFooter(stored))
        throw new Error(`overlay ${o.id}: data does not compress; store it plainly`);
      const file = place(stored);
      fat[fileId] = file;
      const ramSize = o.ramSize ?? o.data.length;
      const at = i * 32;
      putU32(table, at, o.id);
      putU32(table, at + 4, o.ramAddress);
      putU32(table, at + 8, ramSize);
      putU32(table, at + 12, o.bssSize ?? 0);
      putU32(table, at + 16, o.staticInit?.start ?? 0);
      putU32(table, at + 20, o.staticInit?.end ?? 0);
      putU32(table, at + 24, fileId);
      const flags = (o.compress ? 1 : 0) | (o.verifyHash ? 2 : 0);
      putU32(table, at + 28, ((o.compress ? stored.length : 0) & 0xffffff) | (flags << 24));
      overlays.push({
        processor,
        id: o.id,
        fileId,
        file,
        ramAddress: o.ramAddress,
        ramSize,
        bssSize: o.bssSize ?? 0,
        compressed: o.compress === true,
        runtime: o.data,
      });
    });
  }

  const fntBytes = encodeFnt(tree.dirs);
  const fnt = place(fntBytes);
  const fatBytes = new Uint8Array(fatCount * 8);
  const fatRange = place(fatBytes);
  let banner: LayoutRange | null = null;
  if (spec.banner !== false) {
    const bannerBytes = new Uint8Array(0x840);
    putU16(bannerBytes, 0, 1);
    banner = place(bannerBytes);
  }
  const byPath = new Map<string, LayoutRange>();
  for (const f of [...tree.named, ...tree.unnamed]) {
    if (f.spec.sameAs !== undefined) continue;
    const data = f.spec.data ?? new Uint8Array(0);
    const range = data.length === 0 ? { start: align(cursor), end: align(cursor) } : place(data);
    fat[f.fileId] = range;
    if (f.spec.path !== null) byPath.set(f.spec.path, range);
  }
  for (const f of [...tree.named, ...tree.unnamed]) {
    if (f.spec.sameAs === undefined) continue;
    const target = byPath.get(f.spec.sameAs);
    if (!target) throw new Error(`sameAs names an unknown or later file: ${f.spec.sameAs}`);
    fat[f.fileId] = target;
  }
  fat.forEach((r, i) => {
    putU32(fatBytes, i * 8, r.start);
    putU32(fatBytes, i * 8 + 4, r.end);
  });
  cursor += spec.usedPadding ?? 0;
  const usedSize = cursor;

  let arm9i: LayoutRange | null = null;
  let arm7i: LayoutRange | null = null;
  const unitCode = spec.unitCode ?? (spec.dsi ? 2 : 0);
  if (spec.dsi?.arm9i) arm9i = place(spec.dsi.arm9i.data, 0x400);
  if (spec.dsi?.arm7i) arm7i = place(spec.dsi.arm7i.data, 0x400);
  const dsiEnd = spec.dsi ? align(cursor, 0x400) : usedSize;
  cursor = Math.max(cursor, dsiEnd);
  const declaredEnd = cursor;
  const appended = spec.appended ? place(spec.appended, 1) : null;
  const size = cursor - (spec.truncate ?? 0);

  // Header fields
  header.set(ascii((spec.title ?? 'RE-MCP TEST').slice(0, 12)), 0);
  header.set(ascii((spec.gameCode ?? 'RTST').slice(0, 4)), 0x0c);
  header.set(ascii((spec.makerCode ?? '01').slice(0, 2)), 0x10);
  header[0x12] = unitCode;
  let capacity = 0;
  while (0x20000 * 2 ** capacity < declaredEnd && capacity < 15) capacity++;
  header[0x14] = capacity;
  header[0x1e] = spec.romVersion ?? 0;
  const arm9Ram = spec.arm9.ramAddress ?? 0x02000000;
  const arm7Ram = spec.arm7.ramAddress ?? 0x02380000;
  const arm9Entry = spec.arm9.entry ?? arm9Ram;
  const arm7Entry = spec.arm7.entry ?? arm7Ram;
  for (const [i, v] of [arm9Rom.start, arm9Entry, arm9Ram, arm9Rom.end - arm9Rom.start].entries()) {
    putU32(header, 0x20 + i * 4, v);
  }
  for (const [i, v] of [arm7Rom.start, arm7Entry, arm7Ram, arm7Rom.end - arm7Rom.start].entries()) {
    putU32(header, 0x30 + i * 4, v);
  }
  const region = (at: number, r: LayoutRange) => {
    putU32(header, at, r.end > r.start ? r.start : 0);
    putU32(header, at + 4, r.end - r.start);
  };
  region(0x40, fnt);
  region(0x48, fatRange);
  region(0x50, tables.arm9);
  region(0x58, tables.arm7);
  putU32(header, 0x68, banner?.start ?? 0);
  putU32(header, 0x80, usedSize);
  putU32(header, 0x84, headerSize);
  if (unitCode === 2 || unitCode === 3) {
    const program = (at: number, r: LayoutRange | null, ram: number) => {
      if (!r) return;
      putU32(header, at, r.start);
      putU32(header, at + 8, ram);
      putU32(header, at + 12, r.end - r.start);
    };
    program(0x1c0, arm9i, spec.dsi?.arm9i?.ramAddress ?? 0);
    program(0x1d0, arm7i, spec.dsi?.arm7i?.ramAddress ?? 0);
    putU32(header, 0x208, 0x840);
    putU32(header, 0x210, declaredEnd);
  }
  fixHeaderCrcs(header);

  const layout: RomLayout = {
    size,
    usedSize,
    declaredEnd,
    headerSize,
    arm9: {
      rom: arm9Rom,
      ramAddress: arm9Ram,
      entry: arm9Entry,
      compressed: spec.arm9.compress === true,
      image: arm9.image,
    },
    arm7: { rom: arm7Rom, ramAddress: arm7Ram, entry: arm7Entry },
    paramsOffset: arm9.paramsOffset,
    footerOffset,
    autoloads: autoloads.map(({ ramAddress, codeSize, bssSize, romOffset }) => ({
      ramAddress,
      codeSize,
      bssSize,
      romOffset,
    })),
    fnt,
    fat: fatRange,
    arm9OverlayTable: tables.arm9,
    arm7OverlayTable: tables.arm7,
    banner,
    files: fat.map((r, fileId) => ({
      fileId,
      path: tree.pathOf.get(fileId) ?? null,
      start: r.start,
      end: r.end,
    })),
    directories: tree.dirs.map((d) => ({ id: d.id, path: d.path })),
    overlays,
    arm9i,
    arm7i,
    appended,
  };
  return { layout, chunks, header };
}
