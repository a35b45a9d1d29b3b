// The symbol store's entries and its file (symbol-store.ts): a header line, one name a line and a
// closing line, so a store of 200,000 names is written and read back in slices; a store in another
// valid layout (as older versions wrote it, or edited by hand) is read whole once. Every entry read
// back is checked.
import type { Steps } from '../core/cooperative.js';
import { ReMcpError } from '../core/errors.js';
import type { Processor } from '../core/vocabulary.js';
import { badName, type SymbolMode } from '../formats/symbols/types.js';

/** The store's file name inside the ROM's directory. */
export const STORE_FILE = 'symbols.json';
const VERSION = 1;

export type SymbolSource = 'user' | 'elf' | 'nosgba' | 'symbols-txt' | 'plain' | 'csv' | 'signature';

/** One name of the store, a line of its file. */
export interface StoredSymbol {
  processor: Processor;
  address: number;
  /** The overlay the name belongs to; null outside overlays. */
  overlayId: number | null;
  /**
   * Where the address lies: main, autoload, overlay, copied (code the start-up copies runs there), or
   * unmapped (RAM, I/O).
   */
  component: string;
  mode: SymbolMode | null;
  name: string;
  size: number | null;
  comment: string | null;
  source: SymbolSource;
}

/** Names between two yields of the steps below. */
export const STEP_NAMES = 4096;

const header = (sha256: string) => `{"version":${VERSION},"sourceSha256":"${sha256}","symbols":[`;

/**
 * The store's JSON: a header line, one name a line (sorted by processor, overlay and address), and a
 * closing line, so it can be read back a line at a time.
 */
export function* encodeSteps(symbols: StoredSymbol[], sha256: string): Steps<string> {
  const sorted = [...symbols].sort(
    (a, b) =>
      (a.processor === b.processor ? 0 : a.processor < b.processor ? -1 : 1) ||
      (a.overlayId ?? -1) - (b.overlayId ?? -1) ||
      a.address - b.address,
  );
  yield;
  const lines: string[] = [header(sha256)];
  for (const [i, s] of sorted.entries()) {
    if (i % STEP_NAMES === 0) yield;
    lines.push(`${JSON.stringify(s)}${i < sorted.length - 1 ? ',' : ''}`);
  }
  lines.push(']}', '');
  return lines.join('\n');
}

const malformed = () =>
  new ReMcpError('invalid-argument', `the symbol store ${STORE_FILE} holds a malformed entry`);

function checked(s: StoredSymbol): StoredSymbol {
  const ok =
    s !== null &&
    typeof s === 'object' &&
    (s.processor === 'arm9' || s.processor === 'arm7') &&
    Number.isInteger(s.address) &&
    s.address >= 0 &&
    s.address <= 0xffffffff &&
    typeof s.name === 'string' &&
    badName(s.name) === null;
  if (!ok) throw malformed();
  return s;
}

/** The names of a store file: a line at a time in encodeSteps' layout, whole in any other. */
export function* decodeSteps(bytes: Buffer, sha256: string): Steps<StoredSymbol[]> {
  const text = bytes.toString('utf8');
  const first = text.indexOf('\n');
  if (first >= 0 && text.slice(0, first) === header(sha256)) {
    const out: StoredSymbol[] = [];
    let ended = -1;
    for (let start = first + 1, n = 0; start < text.length && ended < 0; n++) {
      if (n % STEP_NAMES === 0) yield;
      let end = text.indexOf('\n', start);
      if (end < 0) end = text.length;
      const line = text.slice(start, end);
      start = end + 1;
      if (line === ']}') {
        ended = start;
        continue;
      }
      let s: StoredSymbol;
      try {
        s = JSON.parse(line.endsWith(',') ? line.slice(0, -1) : line) as StoredSymbol;
      } catch {
        // Not the line layout after all (a store edited by hand): read whole below.
        out.length = 0;
        break;
      }
      out.push(checked(s));
    }
    if (ended >= 0 && text.slice(ended).trim() === '') return out;
  }
  return decodeWhole(text, sha256);
}

function decodeWhole(text: string, sha256: string): StoredSymbol[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new ReMcpError(
      'invalid-argument',
      `the symbol store ${STORE_FILE} is not JSON; move it away to start anew`,
    );
  }
  const d = doc as { version?: unknown; sourceSha256?: unknown; symbols?: unknown };
  if (d?.version !== VERSION || d.sourceSha256 !== sha256 || !Array.isArray(d.symbols))
    throw new ReMcpError(
      'invalid-argument',
      `the symbol store ${STORE_FILE} is not a version ${VERSION} store of this ROM`,
    );
  return (d.symbols as StoredSymbol[]).map(checked);
}
