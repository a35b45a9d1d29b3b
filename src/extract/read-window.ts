// A bounded window of one canonical region of a ROM: a main executable, an overlay or a NitroFS file
// (stored bytes, or the decoded image of a compressed executable or overlay), an ARM9 autoload block,
// the header or one of the header's tables. The caller names a region and an offset inside it, never
// a raw ROM range, and learns for each byte where it sits in the ROM and at run time, where it has
// such a place.
import { ReMcpError } from '../core/errors.js';
import { formatAddress } from '../core/vocabulary.js';
import type { RomHandle, RomStore } from '../roms/rom-store.js';
import type { ComponentSelector } from '../search/search-scope.js';
import { componentArtifact } from './artifacts.js';

export const READ_WINDOW_LIMITS = {
  length: { default: 256, min: 1, max: 4096, unit: 'bytes' },
  offset: { default: 0, min: 0, max: 0x7fffffff, unit: 'bytes into the region' },
} as const;

export const TABLES = ['fnt', 'fat', 'arm9-overlay-table', 'arm7-overlay-table', 'banner'] as const;
type TableName = (typeof TABLES)[number];

export type ReadRegion =
  | ComponentSelector
  | { kind: 'header' }
  | { kind: 'table'; table: TableName }
  | { kind: 'autoload'; index: number };

export const READ_VIEWS = ['stored', 'decoded'] as const;
type ReadView = (typeof READ_VIEWS)[number];

interface RegionWindow {
  label: string;
  view: ReadView;
  /** The region was stored BLZ-compressed. */
  compressed: boolean;
  /** Bytes of the region in this view. */
  size: number;
  offset: number;
  bytes: Uint8Array;
  /** ROM offset of the region's byte `o`, or null where it has none (decoded bytes). */
  romOffsetOf: (o: number) => number | null;
  /** Runtime address of the region's byte `o`, or null where it has none in this view. */
  runtimeOf: (o: number) => number | null;
  /** Said with the result: how the view was chosen, what has no address. */
  notes: string[];
}

interface Region {
  label: string;
  compressed: boolean;
  /** The stored range in the ROM. */
  start: number;
  end: number;
  /** Where the stored bytes run, one to one (main, uncompressed overlay, autoload), if anywhere. */
  runtime: { base: number; start: number; end: number } | null;
  /** For a compressed executable or overlay: how to decode it. */
  image?: { processor: 'arm9' | 'arm7'; overlayId: number | null; ramAddress: number };
}

function tableRange(rom: RomHandle, table: TableName): { start: number; end: number } {
  const h = rom.model.header;
  switch (table) {
    case 'fnt':
      return h.fnt;
    case 'fat':
      return h.fat;
    case 'arm9-overlay-table':
      return h.arm9OverlayTable;
    case 'arm7-overlay-table':
      return h.arm7OverlayTable;
    case 'banner':
      if (rom.model.banner === null) throw new ReMcpError('not-found', 'the ROM has no banner');
      return rom.model.banner;
  }
}

function region(rom: RomHandle, selector: ReadRegion): Region {
  const model = rom.model;
  if (selector.kind === 'header')
    return { label: 'header', compressed: false, start: 0, end: model.header.headerSize, runtime: null };
  if (selector.kind === 'table') {
    const r = tableRange(rom, selector.table);
    return { label: `${selector.table} table`, compressed: false, start: r.start, end: r.end, runtime: null };
  }
  if (selector.kind === 'autoload') {
    const block = model.autoloads?.find((b) => b.index === selector.index);
    if (!block)
      throw new ReMcpError(
        'not-found',
        `no ARM9 autoload block ${selector.index} (nds_inspect_rom lists them)`,
      );
    if (block.romOffset === null)
      throw new ReMcpError(
        'unsupported',
        `autoload block ${selector.index} sits inside the compressed ARM9: read the arm9 component with view "decoded"`,
      );
    const end = block.romOffset + block.codeSize;
    return {
      label: `arm9 autoload ${selector.index}`,
      compressed: false,
      start: block.romOffset,
      end,
      runtime: { base: block.ramAddress, start: block.ramAddress, end: block.ramAddress + block.codeSize },
    };
  }
  const art = componentArtifact(model, selector);
  const out: Region = {
    label: art.label,
    compressed: art.compressed,
    start: art.start,
    end: art.end,
    runtime: null,
  };
  // A file selected by id or path is the file; an executable or overlay also has its run address.
  if (selector.kind === 'arm9' || selector.kind === 'arm7') {
    const exe = model[selector.kind];
    const backed = exe.fileBackedRuntime;
    out.runtime = { base: exe.ramAddress, start: backed.start, end: backed.end };
    if (exe.compressed) out.image = { processor: selector.kind, overlayId: null, ramAddress: exe.ramAddress };
  } else if (selector.kind === 'overlay') {
    const ov = model.overlays[selector.processor].find((o) => o.id === selector.id)!;
    if (ov.compressed)
      out.image = { processor: selector.processor, overlayId: ov.id, ramAddress: ov.ramAddress };
    else
      out.runtime = { base: ov.ramAddress, start: ov.ramAddress, end: ov.ramAddress + (art.end - art.start) };
  }
  return out;
}

/** `length` bytes (fewer at the region's end) from `offset` of the region, in the chosen view. */
export async function readWindow(
  store: RomStore,
  rom: RomHandle,
  selector: ReadRegion,
  options: { offset: number; length: number; view?: ReadView; signal?: AbortSignal },
): Promise<RegionWindow> {
  const r = region(rom, selector);
  const notes: string[] = [];
  const view: ReadView = options.view ?? 'stored';
  if (view === 'decoded' && r.image === undefined)
    notes.push(`${r.label} is not stored compressed: its stored bytes are its image`);
  if (view === 'decoded' && r.image !== undefined) {
    const image = await store.decoded.runtimeImage(rom, r.image.processor, r.image.overlayId, options.signal);
    const size = image.bytes.length;
    checkOffset(r.label, options.offset, size);
    const bytes = image.bytes.subarray(options.offset, Math.min(size, options.offset + options.length));
    const base = image.ramAddress;
    notes.push(`${r.label}: the BLZ-decoded image (derived bytes: no ROM offset)`);
    return {
      label: r.label,
      view,
      compressed: true,
      size,
      offset: options.offset,
      bytes: bytes.slice(),
      romOffsetOf: () => null,
      runtimeOf: (o) => base + o,
      notes,
    };
  }
  const size = r.end - r.start;
  checkOffset(r.label, options.offset, size);
  const length = Math.min(options.length, size - options.offset);
  const bytes = rom.readBytes(r.start + options.offset, length);
  await rom.verifyUnchanged(options.signal);
  if (r.compressed)
    notes.push(
      `${r.label} is stored BLZ-compressed: these are the stored bytes (view "decoded" for the image)`,
    );
  const rt = r.runtime;
  if (rt === null) notes.push(`${r.label} has no runtime address as stored`);
  return {
    label: r.label,
    view: 'stored',
    compressed: r.compressed,
    size,
    offset: options.offset,
    bytes,
    romOffsetOf: (o) => r.start + o,
    runtimeOf: (o) => {
      if (rt === null) return null;
      const at = rt.base + o;
      return at >= rt.start && at < rt.end ? at : null;
    },
    notes,
  };
}

function checkOffset(label: string, offset: number, size: number): void {
  if (offset >= size && !(offset === 0 && size === 0))
    throw new ReMcpError(
      'invalid-argument',
      `offset ${formatAddress(offset)} is past the end of ${label} (${size} bytes)`,
      { offset, size },
    );
}
