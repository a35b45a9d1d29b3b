// The canonical NDS ROM model: plain data, built once per ROM identity by parseNdsRom and shared by
// every static tool. Ranges are half-open [start, end). ROM offsets index the physical file; runtime
// addresses are the processor's view after loading.

import type { Processor } from '../../core/vocabulary.js';
import type { FntDirectory } from './raw/fnt.js';

export interface ByteRange {
  start: number;
  end: number;
}

interface CrcCheck {
  stored: number;
  computed: number;
  ok: boolean;
}

export interface MainExecutable {
  processor: Processor;
  romOffset: number;
  entryAddress: number;
  ramAddress: number;
  /** Stored size in the ROM (the compressed size when the ARM9 is BLZ-compressed). */
  size: number;
  rom: ByteRange;
  /** Runtime range of the loaded image: the stored range, or the decoded one when compressed. */
  runtime: ByteRange;
  /** Runtime range whose bytes equal ROM bytes one-to-one (the raw prefix of a compressed ARM9). */
  fileBackedRuntime: ByteRange;
  compressed: boolean;
  /** Length of the decoded image when compressed and its BLZ footer is sane; otherwise null. */
  decodedSize: number | null;
  entryInside: boolean;
}

export interface AutoloadBlock {
  index: number;
  ramAddress: number;
  codeSize: number;
  bssSize: number;
  /** Where the block's initial bytes sit in the ROM; null when the ARM9 is compressed. */
  romOffset: number | null;
}

/** Whether a self-description (module params, nitrocode footer) was found and is sane. */
export const PARAMS_STATUSES = ['absent', 'valid', 'invalid'] as const;
type ParamsStatus = (typeof PARAMS_STATUSES)[number];

export interface ModuleParamsReport {
  status: ParamsStatus;
  /** Why the params were judged invalid (or how they were located). */
  note: string | null;
  /** Offset inside the ARM9 binary, when located. */
  offsetInArm9: number | null;
  autoloadListStart: number | null;
  autoloadListEnd: number | null;
  autoloadDataStart: number | null;
  bss: ByteRange | null;
  compressedStaticEnd: number | null;
  sdkVersion: number | null;
}

export interface NitrocodeFooterReport {
  status: ParamsStatus;
  romOffset: number;
  moduleParamsOffset: number | null;
  overlaySignaturesOffset: number | null;
}

export interface Overlay {
  processor: Processor;
  /** Position in its table (IDs are usually but not necessarily equal to it). */
  tableIndex: number;
  id: number;
  ramAddress: number;
  ramSize: number;
  bssSize: number;
  staticInit: ByteRange;
  fileId: number;
  compressedSize: number;
  flags: number;
  compressed: boolean;
  verifyHash: boolean;
  /** The FAT range of its file. */
  file: ByteRange;
  /** Runtime initialized range [ram, ram+ramSize) and BSS [ram+ramSize, +bssSize). */
  initialized: ByteRange;
  bss: ByteRange;
  /** Runtime bytes mapped one-to-one from the file: min(ramSize, file size) when uncompressed; null if compressed. */
  fileBacked: ByteRange | null;
}

export interface NitroFile {
  fileId: number;
  /** Full NitroFS path; null for FAT entries no FNT path names (overlay files and unnamed entries). */
  path: string | null;
  start: number;
  end: number;
  /** Overlays whose file this is. */
  overlays: Array<{ processor: Processor; id: number }>;
}

export interface DsiRegion {
  romOffset: number;
  ramAddress: number;
  size: number;
  rom: ByteRange;
  runtime: ByteRange;
  insideFile: boolean;
  /**
   * ROM ranges of this region that a declared modcrypt area covers. Those bytes may be stored
   * AES-encrypted (as on the cartridge), so they are never mapped one-to-one to runtime addresses.
   */
  modcrypt: ByteRange[];
}

export interface DsiInfo {
  arm9i: DsiRegion | null;
  arm7i: DsiRegion | null;
  totalUsedSize: number;
  bannerSize: number;
  titleId: string;
  /** Declared modcrypt areas (header 0x220 / 0x228) with a non-zero size, as ROM ranges. */
  modcryptAreas: ByteRange[];
}

export interface SizeReport {
  physical: number;
  declaredUsed: number;
  /** The end of the declared content: NDS used size, or the DSi total when larger and sane. */
  declaredEnd: number;
  /** Bytes missing at the end when the file is shorter than declaredEnd. */
  shortBy: number;
  /** Data after declaredEnd, when any. */
  appended: ByteRange | null;
}

/**
 * How a runtime range's bytes arise: one-to-one with ROM bytes (file-backed), without a ROM byte of
 * their own (initialized-derived: decoded, encrypted, or past the stored file), or runtime-only (bss).
 */
export const RUNTIME_RANGE_KINDS = ['file-backed', 'initialized-derived', 'bss'] as const;
export type RuntimeRangeKind = (typeof RUNTIME_RANGE_KINDS)[number];

/** The static components a runtime range belongs to. */
export const RUNTIME_COMPONENTS = ['main', 'autoload', 'overlay', 'dsi-main'] as const;
export type RuntimeComponent = (typeof RUNTIME_COMPONENTS)[number];

export interface RuntimeRange {
  processor: Processor;
  component: RuntimeComponent;
  overlayId: number | null;
  autoloadIndex: number | null;
  kind: RuntimeRangeKind;
  start: number;
  end: number;
  /** ROM offset of `start` when kind is file-backed; otherwise null. */
  romOffset: number | null;
}

export interface NdsHeaderModel {
  /** Title bytes decoded as Latin-1 up to the first NUL (may hold non-text, e.g. a branch). */
  title: string;
  titleHex: string;
  gameCode: string;
  makerCode: string;
  unitCode: number;
  deviceCapacity: number;
  /** 128 KiB << deviceCapacity; null when the shift is absurd. */
  capacityBytes: number | null;
  romVersion: number;
  headerSize: number;
  fnt: ByteRange;
  fat: ByteRange;
  arm9OverlayTable: ByteRange;
  arm7OverlayTable: ByteRange;
  bannerOffset: number;
  secureAreaCrc: number;
  arm9AutoloadHook: number;
  arm7AutoloadHook: number;
  arm9ParamsOffsetField: number;
  headerCrc: CrcCheck;
  logoCrc: CrcCheck & { nintendoLogo: boolean };
}

export interface NdsRomModel {
  header: NdsHeaderModel;
  size: SizeReport;
  arm9: MainExecutable;
  arm7: MainExecutable;
  moduleParams: ModuleParamsReport;
  nitrocodeFooter: NitrocodeFooterReport | null;
  /** Null when unknown (no valid params, or the list sits inside compressed bytes). */
  autoloads: AutoloadBlock[] | null;
  /** Every FAT entry, indexed by file ID. */
  files: NitroFile[];
  directories: FntDirectory[];
  overlays: { arm9: Overlay[]; arm7: Overlay[] };
  banner: ByteRange | null;
  dsi: DsiInfo | null;
  runtimeRanges: { arm9: RuntimeRange[]; arm7: RuntimeRange[] };
  /** Reported, non-fatal oddities. */
  issues: string[];
}
