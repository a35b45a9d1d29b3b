// Pattern parsing for nds_search_pattern: exactly four kinds, each compiled to bytes plus a wildcard
// mask. Parsing is strict on purpose — a pattern the caller did not mean (a nibble wildcard read as a
// byte, an out-of-range integer silently wrapped, a string silently re-encoded) would give confident
// but wrong hits, so every ambiguity is refused with a typed error instead.
import { ReMcpError } from '../core/errors.js';

export const PATTERN_LIMITS = {
  /** Encoded pattern bytes. */
  patternBytes: { min: 1, max: 4096, unit: 'bytes' },
} as const;

export const ENDIANNESSES = ['little', 'big'] as const;

export type PatternInput =
  | { kind: 'byte-signature'; signature: string }
  | {
      kind: 'integer';
      value: number;
      width: 8 | 16 | 32;
      endianness: (typeof ENDIANNESSES)[number];
      signed: boolean;
      alignment?: 1 | 2 | 4;
    }
  | { kind: 'ascii'; text: string }
  | { kind: 'utf16le'; text: string };

export interface CompiledPattern {
  kind: PatternInput['kind'];
  /** Encoded bytes; wildcard positions hold 0. */
  bytes: Uint8Array;
  /** 1 = must equal `bytes[i]`, 0 = whole-byte wildcard; null when every byte is exact. */
  mask: Uint8Array | null;
  /** A match start must be a multiple of this absolute ROM offset (integers only; else 1). */
  alignment: 1 | 2 | 4;
  /** A short run of exact bytes (see chooseAnchor): the part the matcher searches for natively. */
  anchorStart: number;
  anchorLength: number;
  /** Canonical spelling, e.g. "1E FF ?? E1", for echoing back to the caller. */
  canonical: string;
}

const MAX = PATTERN_LIMITS.patternBytes.max;

function bad(message: string, details?: Record<string, unknown>): never {
  throw new ReMcpError('invalid-argument', message, details);
}

function checkLength(length: number, kind: string): void {
  if (length < 1) bad(`the ${kind} pattern is empty`);
  if (length > MAX) {
    throw new ReMcpError('limit-exceeded', `the encoded ${kind} pattern is ${length} bytes, over ${MAX}`, {
      bytes: length,
      max: MAX,
    });
  }
}

function hexOf(bytes: Uint8Array, mask: Uint8Array | null = null): string {
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i++) {
    parts.push(mask && mask[i] === 0 ? '??' : bytes[i]!.toString(16).padStart(2, '0').toUpperCase());
  }
  return parts.join(' ');
}

function parseSignature(signature: string): { bytes: Uint8Array; mask: Uint8Array | null } {
  // Bound the work before splitting: 4,096 tokens of "XX" plus generous whitespace.
  if (signature.length > MAX * 8) bad(`the signature text is over ${MAX * 8} characters`);
  const tokens = signature.trim() === '' ? [] : signature.trim().split(/\s+/);
  checkLength(tokens.length, 'byte-signature');
  const bytes = new Uint8Array(tokens.length);
  const mask = new Uint8Array(tokens.length);
  let exact = 0;
  tokens.forEach((token, i) => {
    if (token === '??') return;
    if (/^[0-9A-Fa-f]{2}$/.test(token)) {
      bytes[i] = Number.parseInt(token, 16);
      mask[i] = 1;
      exact++;
      return;
    }
    if (/^([0-9A-Fa-f?]{2})$/.test(token)) {
      bad(`token ${i} "${token}" is a nibble wildcard; only whole bytes "??" may be wildcards`, {
        token,
        index: i,
      });
    }
    bad(`token ${i} "${token.slice(0, 16)}" is not two hex digits or "??"`, { index: i });
  });
  if (exact === 0) bad('a signature needs at least one exact byte; all-wildcard signatures are refused');
  return { bytes, mask: exact === tokens.length ? null : mask };
}

const INTEGER_RANGES = {
  8: { signed: [-0x80, 0x7f], unsigned: [0, 0xff] },
  16: { signed: [-0x8000, 0x7fff], unsigned: [0, 0xffff] },
  32: { signed: [-0x8000_0000, 0x7fff_ffff], unsigned: [0, 0xffff_ffff] },
} as const;

function encodeInteger(p: Extract<PatternInput, { kind: 'integer' }>): Uint8Array {
  const ranges = INTEGER_RANGES[p.width];
  if (!ranges) bad(`width must be 8, 16 or 32 bits, not ${String(p.width)}`);
  const [min, max] = p.signed ? ranges.signed : ranges.unsigned;
  if (!Number.isInteger(p.value) || p.value < min || p.value > max) {
    bad(
      `value ${p.value} is outside the ${p.signed ? 'signed' : 'unsigned'} ${p.width}-bit range [${min}, ${max}]`,
      { value: p.value, min, max },
    );
  }
  const size = p.width / 8;
  const bytes = new Uint8Array(size);
  // Two's complement for negatives; `>>>` keeps the arithmetic in 32-bit unsigned space.
  const raw = p.value < 0 ? (p.value + 2 ** p.width) >>> 0 : p.value >>> 0;
  for (let i = 0; i < size; i++) {
    const byte = (raw >>> (8 * i)) & 0xff;
    bytes[p.endianness === 'little' ? i : size - 1 - i] = byte;
  }
  return bytes;
}

function encodeAscii(text: string): Uint8Array {
  checkLength(text.length, 'ascii');
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) bad(`character ${i} (U+${code.toString(16).toUpperCase()}) is not ASCII`, { index: i });
    bytes[i] = code;
  }
  return bytes;
}

function encodeUtf16le(text: string): Uint8Array {
  checkLength(text.length * 2, 'utf16le');
  // JavaScript strings are UTF-16 code units already: the encoding is exact, no normalization.
  const bytes = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    bytes[2 * i] = unit & 0xff;
    bytes[2 * i + 1] = unit >>> 8;
  }
  return bytes;
}

/**
 * Needles longer than this make Buffer.indexOf switch from its memchr-driven linear search to a
 * Boyer-Moore-Horspool loop, several times slower (CHANGELOG.md, Development), so the anchor is capped.
 */
export const MAX_ANCHOR = 6;

/** How rare a byte is likely to be in a ROM: padding bytes (00, FF) are the common ones. */
export function rarity(byte: number): number {
  return byte === 0x00 ? 0 : byte === 0xff ? 1 : 3;
}

/**
 * The anchor: the part of the pattern located natively with Buffer.indexOf before JavaScript verifies
 * the rest. A pattern without wildcards is its own anchor (indexOf then does the whole match, in linear
 * time even for 4,096 padding bytes and a final marker). Otherwise it is the window of up to MAX_ANCHOR
 * exact bytes inside one exact run with the most rarity (so "00 x 4094, ?? 01" anchors on 01, not on
 * zeros), then the rarer first byte (memchr stops on each occurrence of it), then the longer, then the
 * earlier window.
 */
function chooseAnchor(bytes: Uint8Array, mask: Uint8Array | null): { start: number; length: number } {
  if (mask === null) return { start: 0, length: bytes.length };
  const runs: Array<{ start: number; end: number }> = [];
  let runStart = -1;
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && mask[i] === 1) {
      if (runStart < 0) runStart = i;
    } else if (runStart >= 0) {
      runs.push({ start: runStart, end: i });
      runStart = -1;
    }
  }
  let best = { start: -1, length: 0, sum: -1, first: -1 };
  for (const run of runs) {
    for (let s = run.start; s < run.end; s++) {
      const length = Math.min(MAX_ANCHOR, run.end - s);
      let sum = 0;
      for (let k = s; k < s + length; k++) sum += rarity(bytes[k]!);
      const first = rarity(bytes[s]!);
      const better =
        sum > best.sum ||
        (sum === best.sum && (first > best.first || (first === best.first && length > best.length)));
      if (better) best = { start: s, length, sum, first };
    }
  }
  return { start: best.start, length: best.length };
}

export function compilePattern(input: PatternInput): CompiledPattern {
  let bytes: Uint8Array;
  let mask: Uint8Array | null = null;
  let alignment: 1 | 2 | 4 = 1;
  switch (input.kind) {
    case 'byte-signature': {
      if (typeof input.signature !== 'string') bad('signature must be a string');
      ({ bytes, mask } = parseSignature(input.signature));
      break;
    }
    case 'integer': {
      if (input.endianness !== 'little' && input.endianness !== 'big')
        bad('endianness must be "little" or "big"');
      if (typeof input.signed !== 'boolean') bad('signed must be given explicitly');
      const a = input.alignment ?? 1;
      if (a !== 1 && a !== 2 && a !== 4) bad(`alignment must be 1, 2 or 4, not ${String(a)}`);
      alignment = a;
      bytes = encodeInteger(input);
      break;
    }
    case 'ascii':
      bytes = encodeAscii(input.text);
      break;
    case 'utf16le':
      bytes = encodeUtf16le(input.text);
      break;
    default:
      bad(`unknown pattern kind ${JSON.stringify((input as { kind: unknown }).kind)}`);
  }
  const anchor = chooseAnchor(bytes, mask);
  return {
    kind: input.kind,
    bytes,
    mask,
    alignment,
    anchorStart: anchor.start,
    anchorLength: anchor.length,
    canonical: hexOf(bytes, mask),
  };
}
