// Pure debugger policy: the limits, executable ranges and breakpoint validation. Kept apart from the
// session so every refusal can be reasoned about (and tested) without an emulator.
import { ARM_MODES } from '../arm/types.js';
import { ReMcpError } from '../core/errors.js';
import { formatAddress } from '../core/vocabulary.js';
import type { BreakpointKind } from './rsp/packets.js';

export const LIMITS = {
  breakpoints: { max: 32 },
  ranges: { max: 64 },
  memoryRead: { min: 1, max: 4_096 },
  continueMs: { default: 5_000, min: 1, max: 30_000 },
  waitMs: { default: 5_000, min: 1, max: 30_000 },
  pauseMs: { default: 2_000, min: 50, max: 30_000 },
  steps: { default: 1, min: 1, max: 100 },
  stepWaitMs: { default: 1_000, min: 100, max: 5_000 },
  startMs: { default: 15_000, min: 1_000, max: 60_000 },
  gdbWaitMs: { default: 5_000, min: 100, max: 30_000 },
  regions: { max: 8 },
  regionBytes: { min: 1, max: 4_096 },
  pcWindowBytes: 64,
  spWindowBytes: 64,
  history: { max: 256 },
} as const;

export const ADDRESS_SPACE_END = 0x1_0000_0000;

/** What an executable range says of its code's instruction set; `mixed` says nothing. */
export const RANGE_MODES = [...ARM_MODES, 'mixed'] as const;
type RangeMode = (typeof RANGE_MODES)[number];

/** Who declared an executable range: the header (main binary), the start-up copies, or the caller. */
export const RANGE_SOURCES = ['header', 'copied', 'caller'] as const;
type RangeSource = (typeof RANGE_SOURCES)[number];

export interface ExecRange {
  start: number;
  /** Exclusive. */
  end: number;
  label: string;
  /** What the caller (or the header) knows about the code there; `mixed` resolves nothing for `auto`. */
  mode: RangeMode;
  /** header: the main binary; copied: code the start-up path copies (proven statically); caller: given. */
  source: RangeSource;
}

export function validateRanges(ranges: ReadonlyArray<Omit<ExecRange, 'source'>>): ExecRange[] {
  if (ranges.length > LIMITS.ranges.max) {
    throw new ReMcpError(
      'limit-exceeded',
      `at most ${LIMITS.ranges.max} executable ranges (got ${ranges.length})`,
    );
  }
  return ranges.map((r) => {
    if (!Number.isInteger(r.start) || !Number.isInteger(r.end) || r.start < 0 || r.end > ADDRESS_SPACE_END) {
      throw new ReMcpError('invalid-argument', `range "${r.label}" leaves the 32-bit address space`);
    }
    if (r.end <= r.start) throw new ReMcpError('invalid-argument', `range "${r.label}" is empty or reversed`);
    return { ...r, source: 'caller' as const };
  });
}

/** The range containing the whole instruction at `address`, or null. */
export function containingRange(
  ranges: readonly ExecRange[],
  address: number,
  size: number,
): ExecRange | null {
  return ranges.find((r) => address >= r.start && address + size <= r.end) ?? null;
}

interface ModeHints {
  /** Ranges that contain the address. */
  ranges: readonly ExecRange[];
  /** The CPU's entry point (always ARM on the DS). */
  entry: number;
  /** The PC and Thumb state of the current stop, when stopped. */
  stoppedAt: { pc: number; thumb: boolean } | null;
}

/**
 * Resolves `auto` only from facts, never from guesses: an address that is 2- but not 4-aligned can
 * only be Thumb; the entry point is ARM; the current stop PC has a known state; a range may declare a
 * single mode. Anything else (or facts that disagree) is ambiguous and refused.
 */
export function resolveMode(
  address: number,
  requested: BreakpointKind | 'auto',
  hints: ModeHints,
): BreakpointKind {
  if (requested !== 'auto') return requested;
  const votes = new Set<BreakpointKind>();
  const reasons: string[] = [];
  if (address % 4 === 2) {
    votes.add('thumb');
    reasons.push('not 4-aligned');
  }
  if (address === hints.entry) {
    votes.add('arm');
    reasons.push('entry point');
  }
  if (hints.stoppedAt && hints.stoppedAt.pc === address) {
    votes.add(hints.stoppedAt.thumb ? 'thumb' : 'arm');
    reasons.push('current PC');
  }
  for (const r of hints.ranges) {
    if (r.mode !== 'mixed') {
      votes.add(r.mode);
      reasons.push(`range "${r.label}"`);
    }
  }
  if (votes.size === 1) return [...votes][0]!;
  throw new ReMcpError(
    'invalid-argument',
    votes.size === 0
      ? `mode "auto" is ambiguous at ${formatAddress(address)}: nothing proves ARM or Thumb there; pass "arm" or "thumb"`
      : `mode "auto" is ambiguous at ${formatAddress(address)}: the facts disagree (${reasons.join(', ')}); pass "arm" or "thumb"`,
    { address: formatAddress(address) },
  );
}

export function checkAlignment(address: number, mode: BreakpointKind): void {
  const size = mode === 'arm' ? 4 : 2;
  if (address % size !== 0) {
    throw new ReMcpError(
      'invalid-argument',
      `${mode} breakpoints must be ${size}-byte aligned: ${formatAddress(address)}`,
      {
        address: formatAddress(address),
      },
    );
  }
}

/** Clamps [address, address + length) to the address space; returns the readable part. */
export function clampWindow(
  address: number,
  length: number,
): { address: number; length: number; clamped: boolean } {
  const start = Math.max(0, address);
  const end = Math.min(ADDRESS_SPACE_END, address + length);
  return {
    address: start,
    length: Math.max(0, end - start),
    clamped: start !== address || end !== address + length,
  };
}
