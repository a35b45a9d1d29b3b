// One bounded linear window of canonical NDS code: resolve the start (code-source), decode at most
// maxInstructions / maxBytes from it, and say why it ended. Words that a literal load earlier in the
// window provably reads are items of their own (literal-pool-data), not decoded instructions. Shared
// by nds_disassemble_range and nds_list_references, and by any analysis that needs straight-line code
// from one start.
import { decodeLinearItems, isLiteralPoolData, type LinearItem } from '../arm/literal-pools.js';
import type { DecodedInstruction, DecodeWindowResult } from '../arm/types.js';
import type { Processor } from '../core/vocabulary.js';
import { u32 } from '../formats/le.js';
import { resolveRuntimeAddress } from '../formats/nds/address-map.js';
import { type WordTarget, wordTarget } from '../formats/nds/index.js';
import { CODE_IMAGE_LIMITS } from '../roms/decoded-images.js';
import type { RomHandle, RomStore } from '../roms/rom-store.js';
import { SCAN_START, type StringEncoding, scanStrings, stringText } from '../search/strings.js';
import { type ResolvedSource, resolveStart, type StartRequest } from './code-source.js';

/** Bounds of one linear window. */
export const LINEAR_LIMITS = {
  instructions: { default: 32, max: 256, min: 1, unit: 'instructions' },
  bytes: { default: 128, max: 1024, min: 2, unit: 'source bytes' },
  ...CODE_IMAGE_LIMITS,
} as const;

/** complete: the requested window decoded; component-end: the code source ended first; decode-stopped: see stop. */
export const LINEAR_WINDOW_STATUSES = ['complete', 'component-end', 'decode-stopped'] as const;
type LinearWindowStatus = (typeof LINEAR_WINDOW_STATUSES)[number];

export interface LinearWindowRequest extends StartRequest {
  maxInstructions: number;
  maxBytes: number;
}

interface LinearWindow {
  source: ResolvedSource;
  status: LinearWindowStatus;
  stop: DecodeWindowResult['stop'];
  /** Instructions and proven literal-pool words, in address order (maxInstructions bounds both). */
  items: LinearItem[];
  /** The instructions among the items (references, counts). */
  instructions: DecodedInstruction[];
  /** Bytes covered by the items. */
  decodedBytes: number;
  /**
   * Every literal-pool slot a word load of the window names inside the window's code span: the word
   * stored there and, when it names a mapped runtime address, what holds that address statically.
   */
  literalWords: Map<number, LiteralWord>;
}

/** The word in a literal-pool slot, as facts: whether code uses it as an address is not claimed. */
export interface LiteralWord {
  value: number;
  target: WordTarget | null;
  /**
   * The text at that address, when the bytes there are a NUL-terminated string of at least
   * TEXT_AT.minChars characters (ASCII, Shift-JIS or UTF-16LE) in the window's own code source or in
   * the one file-backed component that holds the address; cut at TEXT_AT.maxChars ('…' added).
   */
  text: string | null;
}

const TEXT_AT = { minChars: 3, maxChars: 64, readBytes: 256 } as const;
const TEXT_ENCODINGS = new Set<StringEncoding>(['ascii', 'sjis', 'utf16le']);

/** The string at runtime address `value`, read from the window's source or the ROM; null when none. */
function textAt(rom: RomHandle, processor: Processor, src: ResolvedSource, value: number): string | null {
  let bytes: Uint8Array;
  const inSpan = value - src.span.start;
  if (inSpan >= 0 && inSpan < src.span.bytes.length) {
    bytes = src.span.bytes.subarray(inSpan, inSpan + TEXT_AT.readBytes);
  } else {
    const r = resolveRuntimeAddress(rom.model, processor, value);
    const c = r.candidates[0];
    if (r.status !== 'resolved' || r.candidates.length !== 1 || !c || c.romOffset === null) return null;
    bytes = rom.readBytes(c.romOffset, Math.min(TEXT_AT.readBytes, c.range.end - value));
  }
  let best: { text: string; chars: number } | null = null;
  // A run filling the whole read is reported cut (it goes on), not refused as unterminated.
  const options = {
    encodings: TEXT_ENCODINGS,
    minLength: TEXT_AT.minChars,
    maxBytes: Math.max(1, bytes.length - 1),
  };
  scanStrings(bytes, SCAN_START, 1, bytes.length, options, (s) => {
    if (s.offset !== 0 || !(s.terminated || s.cut)) return;
    if (best === null || s.chars > best.chars) best = { text: stringText(bytes, s), chars: s.chars };
  });
  if (best === null) return null;
  const { text } = best as { text: string };
  const chars = [...text];
  return chars.length > TEXT_AT.maxChars ? `${chars.slice(0, TEXT_AT.maxChars).join('')}…` : text;
}

/** Decodes the window from the resolved start; the caller holds the ROM (RomStore.withRom). */
export async function decodeLinearWindow(
  store: RomStore,
  rom: RomHandle,
  req: LinearWindowRequest,
  signal?: AbortSignal,
): Promise<LinearWindow> {
  // Its tools name the component in their output, so autoload blocks (ITCM/DTCM code) are sources.
  const src = await resolveStart(store, rom, { ...req, autoloads: true }, signal);
  return decodeSourceWindow(rom, req.processor, src, req.maxInstructions, req.maxBytes);
}

/** Decodes a window from an already resolved start (an explicit candidate's bytes, or resolveStart's). */
export async function decodeSourceWindow(
  rom: RomHandle,
  processor: StartRequest['processor'],
  src: ResolvedSource,
  maxInstructions: number,
  maxBytes: number,
): Promise<LinearWindow> {
  const req = { processor, maxInstructions, maxBytes };
  const offset = src.address - src.span.start;
  const available = src.span.bytes.length - offset;
  const length = Math.min(available, req.maxBytes);
  const window = src.span.bytes.subarray(offset, offset + length);
  const r = await decodeLinearItems(window, src.address, src.mode, req.processor, req.maxInstructions);
  const instructions = r.items.filter((i): i is DecodedInstruction => !isLiteralPoolData(i));
  const decodedBytes = r.items.reduce((n, i) => n + i.size, 0);
  // The window reaches the component's end when the byte limit does not come first.
  const reachesEnd = available < req.maxBytes;
  let status: LinearWindowStatus = 'complete';
  let stop = r.stop;
  if (stop?.reason === 'truncated-instruction') {
    // An instruction crossing the component's end (also when the byte limit ends exactly there), or
    // merely cut by the byte limit inside the component (then the requested window did complete).
    if (available <= req.maxBytes) status = 'component-end';
    else stop = null;
  } else if (stop) status = 'decode-stopped';
  else if (reachesEnd && r.items.length < req.maxInstructions) status = 'component-end';
  const literalWords = new Map<number, LiteralWord>();
  for (const ins of instructions) {
    if (ins.pcRelative?.kind !== 'literal-pool') continue;
    const slot = ins.pcRelative.address;
    const at = slot - src.span.start;
    if (literalWords.has(slot) || at < 0 || at + 4 > src.span.bytes.length) continue;
    const value = u32(src.span.bytes, at);
    literalWords.set(slot, {
      value,
      target: wordTarget(rom.model, req.processor, value),
      text: textAt(rom, req.processor, src, value),
    });
  }
  return { source: src, status, stop, items: r.items, instructions, decodedBytes, literalWords };
}
