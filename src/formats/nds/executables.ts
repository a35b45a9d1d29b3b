// The main executables and the ARM9's self-description: the nitrocode footer after the ARM9, the
// module params it points at, the autoload list, and whether the ARM9 is BLZ-compressed. Everything
// is validated before it is believed: a footer or params block that is present but inconsistent is
// reported as invalid and then ignored (never used to locate or decode anything).

import { isReMcpError } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import { blzDecode } from '../blz/index.js';
import { u32 } from '../le.js';
import type { AutoloadBlock, MainExecutable, ModuleParamsReport, NitrocodeFooterReport } from './model.js';
import { type ByteSource, invalidRom } from './raw/byte-source.js';
import type { RawProgramEntry } from './raw/header.js';
import {
  AUTOLOAD_ENTRY_SIZE,
  MODULE_PARAMS_SIZE,
  NITROCODE,
  NITROCODE_FOOTER_SIZE,
  NITROCODE_SWAPPED,
  parseRawAutoloadList,
  parseRawModuleParams,
  parseRawNitrocodeFooter,
  type RawModuleParams,
} from './raw/module-params.js';

/** Real SDK images list a handful of blocks (ITCM, DTCM, a few WRAM); more means garbage. */
const MAX_AUTOLOADS = 64;
/**
 * A compressed ARM9 is decoded at parse (to read its autoload list) only up to this decoded size:
 * twice the DSi's 16 MiB main RAM. A footer may claim up to 9x its stream; that is never allocated.
 */
const MAX_DECODED_ARM9 = 32 * 1024 * 1024;
const ADDRESS_SPACE = 0x1_0000_0000;

/** ROM range of the ARM9 secure area on a retail cartridge layout. */
const SECURE_AREA = { start: 0x4000, end: 0x4800 } as const;

/**
 * A fact about the ARM9's first 2 KiB in the retail layout (ARM9 at 0x4000, entry past 2 KiB): zero-filled
 * (homebrew) and the decrypted marker E7FFDEFF E7FFDEFF are silent; anything else may be a
 * KEY1-encrypted secure area, whose stored bytes are not the bytes the console runs. Reported only:
 * encryption cannot be proven without the console's keys.
 */
export function secureAreaIssue(source: ByteSource, entry: RawProgramEntry): string | null {
  const span = SECURE_AREA.end - SECURE_AREA.start;
  // Only the retail layout: ARM9 at 0x4000 and an entry point past the first 2 KiB (an image whose
  // entry lies inside them uses them as ordinary code).
  if (entry.romOffset !== SECURE_AREA.start || entry.size < span) return null;
  if (entry.entryAddress < entry.ramAddress + span || entry.entryAddress >= entry.ramAddress + entry.size)
    return null;
  const head = source.read(SECURE_AREA.start, 8);
  const w0 = u32(head, 0);
  const w1 = u32(head, 4);
  if ((w0 === 0 && w1 === 0) || (w0 === 0xe7ffdeff && w1 === 0xe7ffdeff)) return null;
  return 'the ARM9 secure area (ROM 0x4000..0x47FF) is neither zero-filled nor starts with the decrypted marker E7FFDEFF E7FFDEFF: it may be stored KEY1-encrypted, and then its bytes are not the code the console runs';
}

/** Refuses a main executable whose stored bytes are not inside the file; names the offending field. */
export function checkProgram(processor: Processor, entry: RawProgramEntry, fileSize: number): void {
  const p = processor;
  if (entry.romOffset < 0x200 || entry.romOffset >= fileSize) {
    invalidRom(`${p}RomOffset`, `${p} ROM offset 0x${entry.romOffset.toString(16)} is outside the file`, {
      value: entry.romOffset,
    });
  }
  if (entry.size === 0 || entry.romOffset + entry.size > fileSize) {
    invalidRom(`${p}Size`, `${p} size 0x${entry.size.toString(16)} does not fit in the file`, {
      value: entry.size,
    });
  }
  if (entry.ramAddress + entry.size > ADDRESS_SPACE) {
    invalidRom(`${p}RamAddress`, `${p} RAM range wraps past 0xFFFFFFFF`, { value: entry.ramAddress });
  }
}

export function plainExecutable(processor: Processor, entry: RawProgramEntry): MainExecutable {
  const rom = { start: entry.romOffset, end: entry.romOffset + entry.size };
  const runtime = { start: entry.ramAddress, end: entry.ramAddress + entry.size };
  return {
    processor,
    romOffset: entry.romOffset,
    entryAddress: entry.entryAddress,
    ramAddress: entry.ramAddress,
    size: entry.size,
    rom,
    runtime,
    fileBackedRuntime: runtime,
    compressed: false,
    decodedSize: null,
    entryInside: entry.entryAddress >= runtime.start && entry.entryAddress < runtime.end,
  };
}

interface Arm9Description {
  footer: NitrocodeFooterReport | null;
  params: ModuleParamsReport;
  autoloads: AutoloadBlock[] | null;
  arm9: MainExecutable;
  issues: string[];
}

const ABSENT_PARAMS: ModuleParamsReport = {
  status: 'absent',
  note: null,
  offsetInArm9: null,
  autoloadListStart: null,
  autoloadListEnd: null,
  autoloadDataStart: null,
  bss: null,
  compressedStaticEnd: null,
  sdkVersion: null,
};

/**
 * How far into the stored ARM9 the module params are searched for when no valid nitrocode footer
 * points at them. SDK images keep them near the start (crt0 reads them before anything is
 * decompressed, so they always sit in the raw prefix).
 */
export const MODULE_PARAMS_SEARCH_BYTES = 0x10000;

/** Offsets (4-aligned) inside the first bytes of the ARM9 where the two params magic words end a 36-byte block. */
export function searchModuleParams(source: ByteSource, entry: RawProgramEntry): number[] {
  const bytes = source.read(entry.romOffset, Math.min(entry.size, MODULE_PARAMS_SEARCH_BYTES));
  const hits: number[] = [];
  const first = MODULE_PARAMS_SIZE - 8;
  // Candidates are found by the native indexOf on the magic's first byte (a few hundred in 64 KiB
  // of code) rather than by testing every 4-aligned word in JavaScript: a new server's first
  // inspect runs this loop cold, before any JIT. The same offsets are accepted as a word-by-word scan.
  const lead = NITROCODE & 0xff;
  for (
    let at = bytes.indexOf(lead, first);
    at !== -1 && at + 8 <= bytes.length;
    at = bytes.indexOf(lead, at + 1)
  ) {
    if ((at - first) % 4 === 0 && u32(bytes, at) === NITROCODE && u32(bytes, at + 4) === NITROCODE_SWAPPED) {
      hits.push(at - first);
    }
  }
  return hits;
}

/**
 * Reads the footer, params, autoloads and compression state of a bounds-checked ARM9.
 *
 * The params are taken where a valid nitrocode footer points. Without one (no footer, or a footer
 * that points outside the ARM9 or at bytes without the magic words, as in some DSi-only dumps),
 * they are searched for: only a single 4-aligned occurrence of the magic words in the first
 * MODULE_PARAMS_SEARCH_BYTES is used, and several occurrences are ambiguous and never chosen from.
 * Either way the params are then validated in full before anything is believed.
 */
export function describeArm9(source: ByteSource, entry: RawProgramEntry): Arm9Description {
  const issues: string[] = [];
  const arm9 = plainExecutable('arm9', entry);
  const footerAt = entry.romOffset + entry.size;
  let footer: NitrocodeFooterReport | null = null;
  let footerProblem: string | null = null;
  let paramsOffset: number | null = null;
  let raw: RawModuleParams | null = null;
  if (footerAt + NITROCODE_FOOTER_SIZE <= source.size) {
    const rawFooter = parseRawNitrocodeFooter(source.read(footerAt, NITROCODE_FOOTER_SIZE));
    if (rawFooter.magicOk) {
      footer = {
        status: 'valid',
        romOffset: footerAt,
        moduleParamsOffset: rawFooter.moduleParamsOffset,
        overlaySignaturesOffset: rawFooter.overlaySignaturesOffset,
      };
      if (rawFooter.moduleParamsOffset + MODULE_PARAMS_SIZE > entry.size) {
        footerProblem = 'the nitrocode footer points outside the ARM9';
      } else {
        const atFooter = parseRawModuleParams(
          source.read(entry.romOffset + rawFooter.moduleParamsOffset, MODULE_PARAMS_SIZE),
        );
        if (atFooter.magicOk) {
          paramsOffset = rawFooter.moduleParamsOffset;
          raw = atFooter;
        } else footerProblem = 'no magic words where the footer points';
      }
      if (footerProblem !== null) footer.status = 'invalid';
    }
  }
  let locatedBy = 'located by the nitrocode footer';
  if (raw === null) {
    const hits = searchModuleParams(source, entry);
    const footerText = footerProblem ?? 'no nitrocode footer follows the ARM9';
    if (hits.length > 1) {
      const note = `${footerText}; the params magic words occur ${hits.length} times in the ARM9 (ambiguous, none used)`;
      issues.push(`ARM9 module params ignored: ${note}`);
      return { footer, params: { ...ABSENT_PARAMS, status: 'invalid', note }, autoloads: null, arm9, issues };
    }
    if (hits.length === 0) {
      if (footerProblem === null) return { footer, params: ABSENT_PARAMS, autoloads: null, arm9, issues };
      issues.push(`ARM9 module params ignored: ${footerProblem}`);
      const params = { ...ABSENT_PARAMS, status: 'invalid' as const, note: footerProblem };
      return { footer, params, autoloads: null, arm9, issues };
    }
    paramsOffset = hits[0]!;
    raw = parseRawModuleParams(source.read(entry.romOffset + paramsOffset, MODULE_PARAMS_SIZE));
    locatedBy = `located by its magic words (the only 4-aligned occurrence in the first 0x${MODULE_PARAMS_SEARCH_BYTES.toString(16)} bytes of the ARM9): ${footerText}`;
    if (footerProblem !== null) {
      issues.push(
        `nitrocode footer ignored: ${footerProblem}; ARM9 module params located by their magic words instead`,
      );
    }
  }
  const invalid = (note: string): Arm9Description => {
    issues.push(`ARM9 module params ignored: ${note}`);
    return { footer, params: { ...ABSENT_PARAMS, status: 'invalid', note }, autoloads: null, arm9, issues };
  };
  const ramEnd = entry.ramAddress + entry.size;
  if (
    raw.compressedStaticEnd !== 0 &&
    (raw.compressedStaticEnd <= entry.ramAddress || raw.compressedStaticEnd > ramEnd)
  ) {
    return invalid('compressed static end is outside the stored ARM9');
  }
  if (
    raw.autoloadListStart > raw.autoloadListEnd ||
    (raw.autoloadListEnd - raw.autoloadListStart) % AUTOLOAD_ENTRY_SIZE
  ) {
    return invalid('the autoload list bounds are inconsistent');
  }
  if ((raw.autoloadListEnd - raw.autoloadListStart) / AUTOLOAD_ENTRY_SIZE > MAX_AUTOLOADS) {
    return invalid(`more than ${MAX_AUTOLOADS} autoload entries`);
  }
  if (raw.bssStart > raw.bssEnd) return invalid('BSS start is after BSS end');
  const params: ModuleParamsReport = {
    status: 'valid',
    note: locatedBy,
    offsetInArm9: paramsOffset,
    autoloadListStart: raw.autoloadListStart,
    autoloadListEnd: raw.autoloadListEnd,
    autoloadDataStart: raw.autoloadDataStart,
    bss: { start: raw.bssStart, end: raw.bssEnd },
    compressedStaticEnd: raw.compressedStaticEnd,
    sdkVersion: raw.sdkVersion,
  };

  if (raw.compressedStaticEnd === 0) {
    const image = { bytes: null, ramAddress: entry.ramAddress, size: entry.size, romOffset: entry.romOffset };
    return { footer, params, autoloads: readAutoloads(source, image, raw, issues), arm9, issues };
  }
  describeCompressed(source, entry, raw.compressedStaticEnd, arm9, issues);
  // The autoload list sits inside the compressed bytes: decode the image to read it. A blob that does
  // not decode is reported (the ARM9 stays described by its stored bytes), never trusted.
  if (arm9.decodedSize === null) return { footer, params, autoloads: null, arm9, issues };
  if (arm9.decodedSize > MAX_DECODED_ARM9) {
    issues.push(
      `compressed ARM9 would decode to ${arm9.decodedSize} bytes, over the ${MAX_DECODED_ARM9}-byte limit; not decoded, autoloads unknown`,
    );
    return { footer, params, autoloads: null, arm9, issues };
  }
  let decoded: Uint8Array;
  try {
    decoded = blzDecode(source.read(entry.romOffset, raw.compressedStaticEnd - entry.ramAddress));
  } catch (error) {
    if (!isReMcpError(error)) throw error;
    issues.push(`compressed ARM9 does not decode (${error.message}); autoloads unknown`);
    return { footer, params, autoloads: null, arm9, issues };
  }
  const image = { bytes: decoded, ramAddress: entry.ramAddress, size: decoded.length, romOffset: null };
  return { footer, params, autoloads: readAutoloads(source, image, raw, issues), arm9, issues };
}

interface Arm9Image {
  /** Decoded bytes, or null to read the stored (uncompressed) ARM9 through the source. */
  bytes: Uint8Array | null;
  ramAddress: number;
  size: number;
  /** ROM offset of the image start when it is stored uncompressed. */
  romOffset: number | null;
}

/** Reads the autoload list named by valid module params; null (with an issue) when it does not fit. */
function readAutoloads(
  source: ByteSource,
  image: Arm9Image,
  raw: { autoloadListStart: number; autoloadListEnd: number; autoloadDataStart: number },
  issues: string[],
): AutoloadBlock[] | null {
  const end = image.ramAddress + image.size;
  const inImage = (address: number) => address >= image.ramAddress && address <= end;
  if (!inImage(raw.autoloadListStart) || !inImage(raw.autoloadListEnd) || !inImage(raw.autoloadDataStart)) {
    issues.push('autoload list addresses lie outside the ARM9 image; not used');
    return null;
  }
  const listAt = raw.autoloadListStart - image.ramAddress;
  const listLength = raw.autoloadListEnd - raw.autoloadListStart;
  const listBytes =
    image.bytes === null
      ? source.read(image.romOffset! + listAt, listLength)
      : image.bytes.subarray(listAt, listAt + listLength);
  const list = parseRawAutoloadList(listBytes);
  let cursor = raw.autoloadDataStart - image.ramAddress;
  const autoloads: AutoloadBlock[] = [];
  for (let i = 0; i < list.length; i++) {
    const block = list[i]!;
    if (
      cursor + block.codeSize > image.size ||
      block.ramAddress + block.codeSize + block.bssSize > ADDRESS_SPACE
    ) {
      issues.push(`autoload block ${i} does not fit in the ARM9; the autoload list is not used`);
      return null;
    }
    autoloads.push({
      index: i,
      ...block,
      romOffset: image.romOffset === null ? null : image.romOffset + cursor,
    });
    cursor += block.codeSize;
  }
  return autoloads;
}

/**
 * Fills in the decoded size of a compressed ARM9 from the BLZ footer at its compressed end, and the
 * raw prefix that BLZ stores verbatim (those runtime bytes map one-to-one to ROM bytes).
 */
function describeCompressed(
  source: ByteSource,
  entry: RawProgramEntry,
  compressedEnd: number,
  arm9: MainExecutable,
  issues: string[],
): void {
  const blobLength = compressedEnd - entry.ramAddress;
  arm9.compressed = true;
  arm9.fileBackedRuntime = { start: entry.ramAddress, end: entry.ramAddress };
  arm9.runtime = { start: entry.ramAddress, end: entry.ramAddress };
  if (blobLength < 8) {
    issues.push('compressed ARM9 is too short for a BLZ footer');
    return;
  }
  const tail = source.read(entry.romOffset + blobLength - 8, 8);
  const word = u32(tail, 0);
  const compressedLength = word & 0xffffff;
  const headerLength = word >>> 24;
  const extra = u32(tail, 4);
  if (
    headerLength < 8 ||
    headerLength > 11 ||
    compressedLength < headerLength ||
    compressedLength > blobLength
  ) {
    issues.push('compressed ARM9 has an inconsistent BLZ footer; decoded size unknown');
    return;
  }
  const decoded = blobLength + extra;
  if (entry.ramAddress + decoded > ADDRESS_SPACE) {
    issues.push('decoded ARM9 would wrap the address space; decoded size unknown');
    return;
  }
  const prefix = blobLength - compressedLength;
  arm9.decodedSize = decoded;
  arm9.runtime = { start: entry.ramAddress, end: entry.ramAddress + decoded };
  arm9.fileBackedRuntime = { start: entry.ramAddress, end: entry.ramAddress + prefix };
  arm9.entryInside = entry.entryAddress >= arm9.runtime.start && entry.entryAddress < arm9.runtime.end;
}
