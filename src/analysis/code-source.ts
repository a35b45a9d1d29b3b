// Code sources for the ARM tools: turns (processor, runtime address | ROM offset, overlay ID, mode)
// into the one eligible span of canonical code, or refuses with a stable code. Eligible: the ARM9 and
// ARM7 main executables, uncompressed overlays (file-backed prefix only), the validated decoded
// images of compressed overlays / a compressed main ARM9 (derived: romOffset null) and, when the
// caller asks for them (autoloads), ARM9 autoload blocks (ITCM/DTCM code): their initial bytes in the
// stored ARM9, or in its decoded image when it is compressed (derived); and, when the caller hands
// them in, the blocks the start-up code copies (copied): main's bytes at the copy's source, at the
// copy's run address, where no static component is. Never BSS or DSi regions;
// never a guess between overlapping components. candidateSource is the other entry: the bytes of one
// explicitly named candidate, for runtime correlation, where the caller already holds every candidate
// and asks for each in turn.

import type { CodeSpan, SpanLookup } from '../arm/cfg.js';
import { ARM_MODES, type ArmMode } from '../arm/types.js';
import { ReMcpError } from '../core/errors.js';
import { formatAddress as hex, type Processor } from '../core/vocabulary.js';
import {
  autoloadImageOffset,
  type RuntimeComponent,
  type RuntimeRangeKind,
  resolveRomOffset,
  resolveRuntimeAddress,
} from '../formats/nds/index.js';
import type { RuntimeImage } from '../roms/decoded-images.js';
import type { RomHandle, RomStore } from '../roms/rom-store.js';
import type { CopiedBlock } from './program-map/types.js';

export interface ResolvedSource {
  span: CodeSpan;
  /** ROM offset of span.bytes[0]; null for decoded (derived) bytes. */
  romOffset: number | null;
  derived: boolean;
  address: number;
  mode: ArmMode;
}

/** The mode a caller asks for at a start: `auto` takes the mode where it is proven. */
export const START_MODES = [...ARM_MODES, 'auto'] as const;

export interface StartRequest {
  processor: Processor;
  address?: number | undefined;
  romOffset?: number | undefined;
  overlayId?: number | undefined;
  mode: (typeof START_MODES)[number];
  /** Autoload blocks are code sources too (tools whose outputs name them); default: refused. */
  autoloads?: boolean | undefined;
  /**
   * Code the start-up path copies to where it runs (evidence/copied-code.ts): an address no static
   * component holds resolves to its copy's bytes (main's at the copy's source). Default: none.
   */
  copied?: readonly CopiedBlock[] | undefined;
  /**
   * For mode auto away from the header entry point: the mode an already established proof gives the
   * code at an address (a whole-program map's proven tier), or null when none does.
   */
  provenMode?: ((address: number, overlayId: number | null) => ArmMode | null) | undefined;
}

/** The runtime address a ROM offset denotes for `processor`: exactly one, or a refusal. */
function addressOfRomOffset(
  rom: RomHandle,
  processor: Processor,
  offset: number,
  autoloads: boolean,
): { address: number; overlayId?: number } {
  // An autoload block's stored bytes run both where the ARM9 loads them and where the block is
  // copied: with autoloads eligible, such an offset names two addresses and is refused as ambiguous.
  const owners = resolveRomOffset(rom.model, offset).filter(
    (o) =>
      o.processor === processor &&
      (o.kind === 'main' || o.kind === 'overlay' || (autoloads && o.kind === 'autoload')) &&
      o.runtimeAddress !== undefined &&
      o.runtimeAddress !== null,
  );
  if (owners.length === 0) {
    throw new ReMcpError('not-code', `ROM offset ${hex(offset)} is not ${processor} code stored one-to-one`, {
      romOffset: offset,
    });
  }
  if (owners.length > 1) {
    throw new ReMcpError(
      'ambiguous-code-source',
      `ROM offset ${hex(offset)} maps to several runtime addresses (${owners
        .map((o) => hex(o.runtimeAddress!))
        .join(', ')}); give the address instead`,
      {
        romOffset: offset,
      },
    );
  }
  const owner = owners[0]!;
  return owner.kind === 'overlay'
    ? { address: owner.runtimeAddress!, overlayId: owner.overlayId! }
    : { address: owner.runtimeAddress! };
}

/** Bytes of component images one operation keeps, so a CFG reads a component once, not per branch. */
export const OPERATION_IMAGE_BYTES = 64 * 1024 * 1024;

/** The runtime image of the main executable (overlayId null) or of one overlay table record. */
type ImageSource = (overlayId: number | null, tableIndex: number | undefined) => Promise<RuntimeImage>;

/**
 * Runtime images for one operation on one ROM: each component is read (or taken from the decoded
 * cache) once and kept while the operation runs, within OPERATION_IMAGE_BYTES (oldest dropped first,
 * the newest always kept). The operation's identity check (withRom) covers every byte read here.
 */
function operationImages(
  store: RomStore,
  rom: RomHandle,
  processor: Processor,
  signal?: AbortSignal,
): ImageSource {
  const images = new Map<string, RuntimeImage>();
  let bytes = 0;
  return async (overlayId, tableIndex) => {
    const key = `${overlayId}:${tableIndex}`;
    const kept = images.get(key);
    if (kept) return kept;
    const image = await store.decoded.runtimeImage(rom, processor, overlayId, signal, tableIndex);
    images.set(key, image);
    bytes += image.bytes.length;
    for (const [k, v] of images) {
      if (bytes <= OPERATION_IMAGE_BYTES || images.size <= 1) break;
      images.delete(k);
      bytes -= v.bytes.length;
    }
    return image;
  };
}

type Found = { span: CodeSpan; romOffset: number | null; derived: boolean };

type Located =
  | Found
  | {
      refusal: 'not-code' | 'ambiguous-code-source';
      why: 'unmapped' | 'bss' | 'ambiguous' | 'not-decodable';
      message: string;
    };

/** One view per (ARM9 image bytes, block), so a DecodeCache keyed by the bytes object decodes it once. */
const autoloadViews = new WeakMap<Uint8Array, Map<number, Uint8Array>>();

/**
 * The initial bytes of ARM9 autoload block `index`, taken from the ARM9 runtime image `main` (stored,
 * or decoded when compressed): the block's code range, never its BSS. A model whose list does not
 * place the block inside that image gets a message, never a read outside it.
 */
function autoloadBytes(rom: RomHandle, index: number, main: RuntimeImage): Found | { message: string } {
  const block = (rom.model.autoloads ?? []).find((b) => b.index === index);
  if (!block) return { message: `autoload block ${index} is not in the model` };
  const at = autoloadImageOffset(rom.model, index);
  if (at === null || block.codeSize <= 0 || at + block.codeSize > main.bytes.length) {
    return { message: `autoload block ${index}: its bytes do not lie inside the ARM9 image` };
  }
  const romOffset = main.romOffset === null ? null : main.romOffset + at;
  if (romOffset !== block.romOffset) {
    return { message: `autoload block ${index}: its ROM offset disagrees with the ARM9 image` };
  }
  let views = autoloadViews.get(main.bytes);
  if (!views) {
    views = new Map();
    autoloadViews.set(main.bytes, views);
  }
  let bytes = views.get(index);
  if (!bytes) {
    bytes = main.bytes.subarray(at, at + block.codeSize);
    views.set(index, bytes);
  }
  return {
    span: { component: 'autoload', overlayId: null, autoloadIndex: index, start: block.ramAddress, bytes },
    romOffset,
    derived: main.derived,
  };
}

/** One view per (main image bytes, copy), like autoloadViews. */
const copiedViews = new WeakMap<Uint8Array, Map<number, Uint8Array>>();

/** The bytes of a copied block: main's at the copy's source (the copy runs them unchanged). */
function copiedBytes(block: CopiedBlock, main: RuntimeImage): Found | { message: string } {
  const from = block.source - main.ramAddress;
  if (from < 0 || from + block.size > main.bytes.length)
    return { message: `the copy at ${hex(block.start)} has no source bytes in the main image` };
  let views = copiedViews.get(main.bytes);
  if (!views) {
    views = new Map();
    copiedViews.set(main.bytes, views);
  }
  let bytes = views.get(block.index);
  if (!bytes) {
    bytes = main.bytes.subarray(from, from + block.size);
    views.set(block.index, bytes);
  }
  return {
    span: { component: 'copied', overlayId: null, copiedIndex: block.index, start: block.start, bytes },
    romOffset: main.romOffset === null ? null : main.romOffset + from,
    derived: main.derived,
  };
}

const candidateName = (c: { component: string; overlayId: number | null; autoloadIndex: number | null }) =>
  c.component === 'overlay'
    ? `overlay ${c.overlayId}`
    : c.component === 'autoload'
      ? `autoload block ${c.autoloadIndex}`
      : c.component;

/** The eligible span holding `address` (overlayId only narrows overlay candidates), or a refusal. */
async function locate(
  images: ImageSource,
  rom: RomHandle,
  processor: Processor,
  address: number,
  overlayId: number | undefined,
  autoloads: boolean,
  copied: readonly CopiedBlock[] = [],
): Promise<Located> {
  const r = resolveRuntimeAddress(rom.model, processor, address, overlayId);
  const where = `${processor} ${hex(address)}`;
  // Code copied at start-up runs where no static component is, or over main's own range (the main
  // program copied below where it is loaded): its copy is the source there once start-up is over.
  const overMain = r.status === 'resolved' && r.candidates.every((c) => c.component === 'main');
  const copy =
    r.status === 'unmapped' || overMain
      ? copied.find((b) => address >= b.start && address < b.start + b.size)
      : undefined;
  if (copy) {
    const found = copiedBytes(copy, await images(null, undefined));
    return 'message' in found
      ? { refusal: 'not-code', why: 'not-decodable', message: `${where}: ${found.message}` }
      : found;
  }
  if (r.status === 'unmapped') {
    const excluded =
      r.excludedByOverlayId > 0
        ? `: its ${r.excludedByOverlayId} candidate(s) of other overlays were excluded by overlayId ${overlayId}`
        : '';
    return {
      refusal: 'not-code',
      why: 'unmapped',
      message: `${where} is not inside any ${excluded ? 'selected ' : ''}static code component${excluded}`,
    };
  }
  if (r.status === 'bss') {
    return { refusal: 'not-code', why: 'bss', message: `${where} is BSS (runtime-only, never decoded)` };
  }
  if (r.status === 'ambiguous') {
    const list = r.candidates.map(candidateName).join(', ');
    // overlayId only drops other overlays: it picks among overlays, never against main or an autoload.
    const hint = r.candidates.every((c) => c.component === 'overlay')
      ? 'pass overlayId to pick one'
      : 'no static selector picks between them';
    return {
      refusal: 'ambiguous-code-source',
      why: 'ambiguous',
      message: `${where} lies in several static components (${list}); ${hint}`,
    };
  }
  const c = r.candidates[0]!;
  if (c.component === 'autoload') {
    if (!autoloads) {
      return {
        refusal: 'not-code',
        why: 'not-decodable',
        message: `${where} is in ${candidateName(c)}, which this analysis does not cover (main and overlays only)`,
      };
    }
    const found = autoloadBytes(rom, c.autoloadIndex!, await images(null, undefined));
    return 'message' in found
      ? { refusal: 'not-code', why: 'not-decodable', message: `${where}: ${found.message}` }
      : found;
  }
  if (c.component !== 'main' && c.component !== 'overlay') {
    return {
      refusal: 'not-code',
      why: 'not-decodable',
      message: `${where} is in a ${c.component} block, not a decodable code source`,
    };
  }
  // A repeated overlay ID: the one record whose runtime extent holds the candidate's range.
  let tableIndex: number | undefined;
  if (c.component === 'overlay') {
    const records = rom.model.overlays[processor].filter(
      (o) => o.id === c.overlayId && c.range.start >= o.initialized.start && c.range.end <= o.bss.end,
    );
    if (records.length === 0) {
      return { refusal: 'not-code', why: 'not-decodable', message: `${where} has no overlay record` };
    }
    if (records.length > 1) {
      return {
        refusal: 'ambiguous-code-source',
        why: 'ambiguous',
        message: `${where} lies in ${records.length} table records of overlay ${c.overlayId}; the source bytes are not determined`,
      };
    }
    tableIndex = records[0]!.tableIndex;
  }
  const image = await images(c.component === 'main' ? null : c.overlayId, tableIndex);
  // runtimeImage gives only eligible bytes: an uncompressed overlay's file-backed prefix, a main
  // executable's initialized image (decoded when compressed).
  if (address < image.ramAddress || address >= image.ramAddress + image.bytes.length) {
    return {
      refusal: 'not-code',
      why: 'not-decodable',
      message: `${where} has no initialized bytes in its component`,
    };
  }
  return {
    span: { component: c.component, overlayId: c.overlayId, start: image.ramAddress, bytes: image.bytes },
    romOffset: image.romOffset,
    derived: image.derived,
  };
}

/** Resolves a tool's start arguments into an eligible, aligned start with a proven mode. */
export async function resolveStart(
  store: RomStore,
  rom: RomHandle,
  req: StartRequest,
  signal?: AbortSignal,
): Promise<ResolvedSource> {
  if ((req.address === undefined) === (req.romOffset === undefined)) {
    throw new ReMcpError('invalid-argument', 'give exactly one of address and romOffset');
  }
  let address = req.address!;
  let overlayId = req.overlayId;
  const autoloads = req.autoloads === true;
  if (req.romOffset !== undefined) {
    const found = addressOfRomOffset(rom, req.processor, req.romOffset, autoloads);
    address = found.address;
    if (found.overlayId !== undefined) {
      if (overlayId !== undefined && overlayId !== found.overlayId) {
        throw new ReMcpError(
          'invalid-argument',
          `ROM offset belongs to overlay ${found.overlayId}, not ${overlayId}`,
        );
      }
      overlayId = found.overlayId;
    }
  }
  const images = operationImages(store, rom, req.processor, signal);
  const source = await locate(images, rom, req.processor, address, overlayId, autoloads, req.copied);
  if ('refusal' in source) {
    throw new ReMcpError(source.refusal, source.message, {
      processor: req.processor,
      address,
      why: source.why,
    });
  }
  let mode: ArmMode;
  if (req.mode === 'auto') {
    // Proven: the processor's header entry point in its main executable (ARM), or code a map built
    // earlier walked at its proven tier.
    const entry = rom.model[req.processor].entryAddress;
    const proven =
      address === entry && source.span.component === 'main'
        ? 'arm'
        : (req.provenMode?.(address, source.span.overlayId) ?? null);
    if (proven === null) {
      throw new ReMcpError(
        'invalid-argument',
        `mode auto is proven only at the ${req.processor} header entry point ${hex(entry)} and in code a whole-program map (nds_program_map) walked at its proven tier; give arm or thumb`,
      );
    }
    mode = proven;
  } else mode = req.mode;
  const alignment = mode === 'arm' ? 4 : 2;
  if (address % alignment !== 0) {
    throw new ReMcpError(
      'invalid-argument',
      `${mode} code starts ${alignment}-byte aligned; ${hex(address)} is not`,
    );
  }
  return { ...source, address, mode };
}

/**
 * The overlay ID that owns a branch target from `from`: the source overlay's, when the target lies in
 * that overlay record's own runtime extent (initialized + BSS). That overlay is loaded (its code is
 * running), so an overlapping overlay is not a candidate there and the target's real status (BSS,
 * no decodable bytes) is the reason. Anywhere else: undefined (every candidate counts).
 */
function ownOverlayOf(rom: RomHandle, processor: Processor, from: CodeSpan, address: number) {
  if (from.component !== 'overlay' || from.overlayId === null) return undefined;
  const source = rom.model.overlays[processor].filter(
    (o) => o.id === from.overlayId && o.ramAddress === from.start,
  );
  return source.length === 1 && address >= source[0]!.initialized.start && address < source[0]!.bss.end
    ? from.overlayId
    : undefined;
}

/**
 * Cross-component lookup for the CFG: follows a target only when exactly one source holds it.
 * `autoloads`: autoload blocks are sources too (as in resolveStart).
 */
export function spanLookup(
  store: RomStore,
  rom: RomHandle,
  processor: Processor,
  signal?: AbortSignal,
  options: { autoloads?: boolean; copied?: readonly CopiedBlock[] } = {},
): SpanLookup {
  const images = operationImages(store, rom, processor, signal);
  return async (address, _mode, from) => {
    let found: Located;
    try {
      const overlayId = ownOverlayOf(rom, processor, from, address);
      found = await locate(
        images,
        rom,
        processor,
        address,
        overlayId,
        options.autoloads === true,
        options.copied,
      );
    } catch (error) {
      // A compressed target component that does not decode (or a component over the code image
      // limit) leaves the edge unresolved; the graph around it is still valid.
      if (error instanceof ReMcpError && (error.code === 'blz-malformed' || error.code === 'limit-exceeded'))
        return { unresolved: error.code };
      throw error;
    }
    return 'refusal' in found
      ? { unresolved: found.why === 'ambiguous' ? 'ambiguous-code-source' : found.why }
      : { span: found.span };
  };
}

/** One explicit static candidate of a runtime address (as resolveRuntimeAddress lists it). */
interface ExplicitCandidate {
  component: RuntimeComponent;
  overlayId: number | null;
  autoloadIndex: number | null;
  region: RuntimeRangeKind;
  range: { start: number; end: number };
}

/**
 * The bytes one explicit candidate puts at `address`, or why it has none. Unlike resolveStart this
 * never refuses an overlap: the caller names the component, so its bytes are determined (which one
 * is loaded is a runtime question, answered elsewhere). Main, overlays and autoload blocks come from
 * their runtime images (decoded when compressed; an autoload block's from the ARM9's); BSS and DSi
 * regions never.
 */
export async function candidateSource(
  store: RomStore,
  rom: RomHandle,
  processor: Processor,
  c: ExplicitCandidate,
  address: number,
  signal?: AbortSignal,
): Promise<{ span: CodeSpan; romOffset: number | null; derived: boolean } | { note: string }> {
  if (c.region === 'bss') return { note: 'BSS: runtime-only, no static bytes (never decoded)' };
  if (c.component === 'dsi-main') return { note: 'dsi-main block: not a decodable code source' };
  if (c.component === 'autoload') {
    if (processor !== 'arm9') return { note: 'autoload blocks belong to the ARM9' };
    const main = await store.decoded.runtimeImage(rom, 'arm9', null, signal);
    const found = autoloadBytes(rom, c.autoloadIndex ?? -1, main);
    if ('message' in found) return { note: found.message };
    if (address < found.span.start || address >= found.span.start + found.span.bytes.length)
      return { note: 'no initialized bytes at this address in the component' };
    return found;
  }
  let tableIndex: number | undefined;
  if (c.component === 'overlay') {
    const records = rom.model.overlays[processor].filter(
      (o) => o.id === c.overlayId && c.range.start >= o.initialized.start && c.range.end <= o.bss.end,
    );
    if (records.length !== 1)
      return {
        note: `${records.length} table records of overlay ${c.overlayId} hold this range: its source bytes are not determined`,
      };
    tableIndex = records[0]!.tableIndex;
  }
  const image = await store.decoded.runtimeImage(
    rom,
    processor,
    c.component === 'main' ? null : c.overlayId,
    signal,
    tableIndex,
  );
  if (address < image.ramAddress || address >= image.ramAddress + image.bytes.length)
    return { note: 'no initialized bytes at this address in the component' };
  return {
    span: { component: c.component, overlayId: c.overlayId, start: image.ramAddress, bytes: image.bytes },
    romOffset: image.romOffset,
    derived: image.derived,
  };
}
