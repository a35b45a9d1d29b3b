// Which symbol format a file is, told from its content when the caller does not say: a file that
// starts with the ELF magic (\x7fELF) is ELF; any other is read as text, and its first
// DETECT_LIMITS.bytes bytes are parsed by each text format's own parser. Of the parsers that read
// names from most of those lines, the one that refuses the fewest lines wins, ties going to the more
// specific grammar: symbols.txt's `addr:`, CSV's commas, then no$gba's eight-digit lines (the plain
// list reads those the same way, and no$gba's `.arm` lines as names). A sample no parser reads mostly
// as names is refused with what each made of it. Pure.
import { runSteps } from '../../core/cooperative.js';
import { symbolTextSteps } from './text.js';
import type { SymbolFormat } from './types.js';

export const DETECT_LIMITS = {
  /** Bytes of a text file looked at to tell its format. */
  bytes: { max: 64 * 1024, unit: 'bytes' },
} as const;

const TEXT_FORMATS = ['symbols-txt', 'csv', 'nosgba', 'plain'] as const;

/** The format of `bytes`, or why it cannot be told. */
export function detectSymbolFormat(bytes: Uint8Array): { format: SymbolFormat } | { why: string } {
  if (bytes.length >= 4 && bytes[0] === 0x7f && bytes[1] === 0x45 && bytes[2] === 0x4c && bytes[3] === 0x46)
    return { format: 'elf' };
  let sample = new TextDecoder('utf-8', { fatal: false }).decode(bytes.subarray(0, DETECT_LIMITS.bytes.max));
  // A sample cut inside a line ends at the last whole line.
  if (bytes.length > DETECT_LIMITS.bytes.max && sample.includes('\n'))
    sample = sample.slice(0, sample.lastIndexOf('\n'));
  const read = TEXT_FORMATS.map((format) => {
    const parsed = runSteps(symbolTextSteps(format, sample));
    return { format, names: parsed.symbols.length, bad: parsed.skipped.length + parsed.skippedMore };
  });
  let best: (typeof read)[number] | null = null;
  for (const r of read) if (r.names > r.bad && (best === null || r.bad < best.bad)) best = r;
  if (best !== null) return { format: best.format };
  return {
    why: `its format cannot be told from its content (${read.map((r) => `${r.format}: ${r.names} name(s), ${r.bad} line(s) not read`).join('; ')}); give format`,
  };
}
