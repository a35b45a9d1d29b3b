// The symbol file vocabulary shared by the parsers and writers of src/formats/symbols: one named
// address as a file states it, before it is mapped onto a ROM.

export const SYMBOL_FORMATS = ['elf', 'nosgba', 'symbols-txt', 'plain', 'csv'] as const;
export type SymbolFormat = (typeof SYMBOL_FORMATS)[number];

/** What kind of place a name marks: code of a mode or data (null where the file does not say). */
export const SYMBOL_MODES = ['arm', 'thumb', 'data'] as const;
export type SymbolMode = (typeof SYMBOL_MODES)[number];

export interface RawSymbol {
  address: number;
  name: string;
  /** Null when the file does not say. */
  mode: SymbolMode | null;
  /** Bytes, when the file says. */
  size: number | null;
  comment: string | null;
  /** Only the CSV form names these. */
  processor: 'arm9' | 'arm7' | null;
  overlayId: number | null;
  /** 1-based line (text formats) or symbol index (ELF), for reports. */
  line: number;
  /**
   * Where the file loads the bytes of a place that runs elsewhere (an ELF section whose load address
   * differs from its run address: ITCM, DTCM, code the start-up copies); absent when it runs where it
   * is loaded or the file does not say.
   */
  loadAddress?: number;
}

interface SkippedEntry {
  line: number;
  why: string;
}

export interface ParsedSymbols {
  symbols: RawSymbol[];
  /** The first SYMBOL_LIMITS.skippedKept skipped entries, in file order. */
  skipped: SkippedEntry[];
  /** Skipped entries past those, counted. */
  skippedMore: number;
  /** Entries past `maxSymbols`, not read. */
  cut: number;
}

/** Records a skipped entry (the first SYMBOL_LIMITS.skippedKept are kept, the rest counted). */
export function skip(out: ParsedSymbols, line: number, why: string): void {
  if (out.skipped.length < SYMBOL_LIMITS.skippedKept.max) out.skipped.push({ line, why });
  else out.skippedMore++;
}

export const SYMBOL_LIMITS = {
  /** Symbols read from one file (the rest are counted, not read). */
  maxSymbols: { max: 200_000, unit: 'symbols' },
  /** Characters of a name; longer names are skipped, never cut. */
  nameChars: { max: 256, unit: 'characters' },
  commentChars: { max: 1024, unit: 'characters' },
  /** Characters of one line of a text format; a longer line is skipped unread. */
  lineChars: { max: 8192, unit: 'characters' },
  /** Skipped entries reported one by one (the rest are counted). */
  skippedKept: { max: 1000, unit: 'entries' },
} as const;

/**
 * Why a name is refused, or null: empty, too long, or holding a control, bidi, zero-width or
 * separator character that could make it read as something else.
 */
export function badName(name: string): string | null {
  if (name.length === 0) return 'empty name';
  if (name.length > SYMBOL_LIMITS.nameChars.max)
    return `name longer than ${SYMBOL_LIMITS.nameChars.max} characters`;
  if (
    /[\u0000-\u0020\u007f-\u00a0\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/.test(name)
  )
    return 'name holds a space, control, bidi or invisible character';
  return null;
}
