// Text runs in bytes, the way an analyst looks for strings: maximal runs of printable characters in
// one encoding, at least `minLength` characters long. Byte encodings (ASCII, Shift-JIS) are looked for
// at every offset, UTF-16LE at even offsets of the scanned buffer. A run never goes past `maxBytes`
// (it is then reported cut). What counts as printable, per encoding:
// - ascii: 0x20-0x7e, tab, line feed, carriage return;
// - sjis: those, half-width katakana (0xa1-0xdf) and JIS X 0208 pairs (lead 0x81-0x9f or 0xe0-0xef,
//   trail 0x40-0x7e or 0x80-0xfc); a run is Shift-JIS only when it holds at least one pair and a NUL
//   ends it (otherwise its ASCII part is reported as ascii);
// - utf16le: code units of printable ASCII, Latin-1 (0xa0-0xff), CJK punctuation and kana
//   (0x3000-0x30ff), CJK ideographs (0x4e00-0x9fff) and full-width forms (0xff01-0xffef); a run with
//   any unit beyond ASCII must end in a 0x0000 unit (random data seldom does).
// Pure: bytes in, runs out.
import { u16 } from '../formats/le.js';

export const STRING_ENCODINGS = ['ascii', 'sjis', 'utf16le'] as const;
export type StringEncoding = (typeof STRING_ENCODINGS)[number];

export interface FoundString {
  /** Offset of the first byte in the scanned buffer. */
  offset: number;
  byteLength: number;
  encoding: StringEncoding;
  /** Characters of the run. */
  chars: number;
  /** A NUL (a zero unit for UTF-16LE) follows the run. */
  terminated: boolean;
  /** The run went on past maxBytes. */
  cut: boolean;
}

export interface StringScanOptions {
  encodings: ReadonlySet<StringEncoding>;
  minLength: number;
  /** Longest run in bytes; longer runs are reported cut at this length. */
  maxBytes: number;
}

const printableByte = (b: number) => (b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d;
const sjisLead = (b: number) => (b >= 0x81 && b <= 0x9f) || (b >= 0xe0 && b <= 0xef);
const sjisTrail = (b: number) => b >= 0x40 && b <= 0xfc && b !== 0x7f;
const kana = (b: number) => b >= 0xa1 && b <= 0xdf;

function utf16Unit(u: number): 0 | 1 | 2 {
  if ((u >= 0x20 && u < 0x7f) || u === 0x09 || u === 0x0a || u === 0x0d) return 1;
  if (
    (u >= 0xa0 && u <= 0xff) ||
    (u >= 0x3000 && u <= 0x30ff) ||
    (u >= 0x4e00 && u <= 0x9fff) ||
    (u >= 0xff01 && u <= 0xffef)
  )
    return 2;
  return 0;
}

/** Where a scan of a buffer taken in pieces goes on: offsets in the whole buffer. */
interface ScanResume {
  /** The byte encodings' next offset. */
  bytes: number;
  /** UTF-16LE's next (even) offset. */
  utf16: number;
  /** A Shift-JIS run tried at or before here failed up to here: none starts before it. */
  sjisFailedUntil: number;
}

export const SCAN_START: ScanResume = { bytes: 0, utf16: 0, sjisFailedUntil: -1 };

/**
 * Every run starting in [resume, own) of `bytes` (runs may extend to `limit`, the end of the bytes
 * available), in offset order. Returns where the next piece's scan goes on, so that scanning a large
 * buffer in pieces (each read with at least maxBytes + 2 bytes after its own part) finds exactly the
 * runs one scan of the whole buffer finds.
 */
export function scanStrings(
  bytes: Uint8Array,
  resume: ScanResume,
  own: number,
  limit: number,
  options: StringScanOptions,
  visit: (s: FoundString) => void,
): ScanResume {
  const byteRuns: FoundString[] = [];
  const wideRuns: FoundString[] = [];
  const b = scanBytes(bytes, resume.bytes, resume.sjisFailedUntil, own, limit, options, byteRuns);
  const utf16 = options.encodings.has('utf16le')
    ? scanUtf16(bytes, resume.utf16, own, limit, options, wideRuns)
    : Math.max(resume.utf16, own);
  // Merge by offset (both lists are in order).
  let i = 0;
  let j = 0;
  while (i < byteRuns.length || j < wideRuns.length) {
    const a = byteRuns[i];
    const w = wideRuns[j];
    if (w === undefined || (a !== undefined && a.offset <= w.offset)) {
      visit(a!);
      i++;
    } else {
      visit(w);
      j++;
    }
  }
  return { bytes: b.next, utf16, sjisFailedUntil: b.sjisFailedUntil };
}

/**
 * scanStrings over `size` bytes read in pieces of `piece` bytes: `read(start, end)` gives bytes
 * [start, end) of the whole. Each run comes with its offset in the whole and its text. Between pieces
 * `between` runs (to yield, check cancellation, report progress); `end` (<= size) bounds where runs
 * may start.
 */
export async function scanPieces(
  read: (start: number, end: number) => Uint8Array,
  size: number,
  end: number,
  piece: number,
  options: StringScanOptions,
  visit: (s: FoundString, text: string) => void,
  between: (scanned: number) => Promise<void>,
): Promise<void> {
  let resume = SCAN_START;
  for (let start = 0; start < end; start += piece) {
    const own = Math.min(end, start + piece);
    const bytes = read(start, Math.min(size, own + options.maxBytes + 2));
    const local: ScanResume = {
      bytes: Math.max(0, resume.bytes - start),
      utf16: Math.max(0, resume.utf16 - start),
      sjisFailedUntil: resume.sjisFailedUntil - start,
    };
    const next = scanStrings(bytes, local, own - start, bytes.length, options, (s) =>
      visit({ ...s, offset: start + s.offset }, stringText(bytes, s)),
    );
    resume = {
      bytes: start + next.bytes,
      utf16: start + next.utf16,
      sjisFailedUntil: start + next.sjisFailedUntil,
    };
    await between(own);
  }
}

function scanBytes(
  bytes: Uint8Array,
  from: number,
  failedUntil: number,
  own: number,
  limit: number,
  o: StringScanOptions,
  out: FoundString[],
): { next: number; sjisFailedUntil: number } {
  const ascii = o.encodings.has('ascii');
  const sjis = o.encodings.has('sjis');
  if (!ascii && !sjis) return { next: Math.max(from, own), sjisFailedUntil: failedUntil };
  let sjisFailedUntil = failedUntil;
  let i = from;
  while (i < own) {
    const b = bytes[i]!;
    if (!printableByte(b) && !(sjis && (kana(b) || sjisLead(b)))) {
      i++;
      continue;
    }
    if (sjis && i >= sjisFailedUntil) {
      // The longest Shift-JIS run from i.
      const stop = Math.min(limit, i + o.maxBytes);
      let at = i;
      let chars = 0;
      let pairs = 0;
      for (;;) {
        if (at >= stop) break;
        const c = bytes[at]!;
        if (printableByte(c) || kana(c)) {
          at++;
          chars++;
        } else if (sjisLead(c) && at + 1 < stop && sjisTrail(bytes[at + 1]!)) {
          at += 2;
          chars++;
          pairs++;
        } else break;
      }
      const terminated = at < limit && bytes[at] === 0;
      if (pairs > 0 && terminated && chars >= o.minLength) {
        out.push({ offset: i, byteLength: at - i, encoding: 'sjis', chars, terminated, cut: false });
        i = at;
        continue;
      }
      // A run starting inside this one ends where it does: not Shift-JIS either.
      sjisFailedUntil = at;
    }
    if (ascii && printableByte(b)) {
      const stop = Math.min(limit, i + o.maxBytes);
      let at = i;
      while (at < stop && printableByte(bytes[at]!)) at++;
      const chars = at - i;
      if (chars >= o.minLength) {
        const cut = at === i + o.maxBytes && at < limit && printableByte(bytes[at]!);
        out.push({
          offset: i,
          byteLength: chars,
          encoding: 'ascii',
          chars,
          terminated: at < limit && bytes[at] === 0,
          cut,
        });
      }
      // No run inside a short one is longer.
      i = Math.max(at, i + 1);
      continue;
    }
    i++;
  }
  return { next: i, sjisFailedUntil };
}

function scanUtf16(
  bytes: Uint8Array,
  from: number,
  own: number,
  limit: number,
  o: StringScanOptions,
  out: FoundString[],
): number {
  let i = from;
  while (i < own && i + 1 < limit) {
    if (utf16Unit(u16(bytes, i)) === 0) {
      i += 2;
      continue;
    }
    const stop = Math.min(limit, i + o.maxBytes);
    let at = i;
    let wide = false;
    while (at + 1 < stop) {
      const k = utf16Unit(u16(bytes, at));
      if (k === 0) break;
      if (k === 2) wide = true;
      at += 2;
    }
    const chars = (at - i) / 2;
    const terminated = at + 1 < limit && u16(bytes, at) === 0;
    const cut = at === i + o.maxBytes && at + 1 < limit && utf16Unit(u16(bytes, at)) !== 0;
    if (chars >= o.minLength && (!wide || terminated)) {
      out.push({ offset: i, byteLength: at - i, encoding: 'utf16le', chars, terminated, cut });
    }
    // The unit at `at` ends the run (or the run was cut there): the next run starts after it at the earliest.
    i = at;
  }
  return i;
}

let sjisDecoder: InstanceType<typeof TextDecoder> | null | undefined;

/** Whether this runtime can decode Shift-JIS (its ICU data has the encoding). */
export function sjisAvailable(): boolean {
  if (sjisDecoder === undefined) {
    try {
      sjisDecoder = new TextDecoder('shift_jis', { fatal: false });
    } catch {
      sjisDecoder = null;
    }
  }
  return sjisDecoder !== null;
}

const latin1 = new TextDecoder('latin1');
const utf16 = new TextDecoder('utf-16le');

/** The run's text. */
export function stringText(bytes: Uint8Array, s: FoundString): string {
  const own = bytes.subarray(s.offset, s.offset + s.byteLength);
  if (s.encoding === 'utf16le') return utf16.decode(own);
  if (s.encoding === 'sjis' && sjisAvailable()) return sjisDecoder!.decode(own);
  return latin1.decode(own);
}

type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be' | 'shift_jis' | 'windows-1252';

interface TextView {
  encoding: TextEncodingName;
  /** How the encoding was chosen. */
  by: 'byte order mark' | 'valid utf-8' | 'valid shift_jis' | 'utf-16le pattern' | 'fallback';
  /** The text; C0 controls other than tab, line feed and carriage return (and DEL) as their Control Pictures. */
  content: string;
  /** Characters shown as Control Pictures. */
  controls: number;
  /** Bytes at the end that start a character the window cuts (read on from there). */
  partialTail: number;
}

const decoderFor = (name: TextEncodingName, fatal: boolean) => {
  try {
    return new TextDecoder(name, { fatal, ignoreBOM: false });
  } catch {
    return null;
  }
};

const tryDecode = (bytes: Uint8Array, name: TextEncodingName, stream: boolean): string | null => {
  try {
    return decoderFor(name, true)?.decode(bytes, { stream }) ?? null;
  } catch {
    return null;
  }
};

/**
 * Decodes with `name`; null when the bytes are not valid text of it. A character the end of the
 * window cuts is no error: it is left out and counted (`tail`).
 */
function decodeValid(bytes: Uint8Array, name: TextEncodingName): { text: string; tail: number } | null {
  const whole = tryDecode(bytes, name, false);
  if (whole !== null) return { text: whole, tail: 0 };
  // A streaming decoder holds an incomplete last character back instead of failing on it.
  const held = tryDecode(bytes, name, true);
  if (held === null) return null;
  for (let n = 1; n <= 3 && n <= bytes.length; n++)
    if (tryDecode(bytes.subarray(0, bytes.length - n), name, false) !== null) return { text: held, tail: n };
  return null;
}

/**
 * A window of bytes as text, for reading a file: a byte order mark decides; else valid UTF-8 (ASCII
 * is), valid Shift-JIS with at least one double-byte character, UTF-16LE when most units are ASCII
 * characters with a zero high byte; else Windows-1252 (what a TextDecoder calls latin1). Pure.
 */
export function textView(bytes: Uint8Array): TextView {
  let encoding: TextEncodingName = 'windows-1252';
  let by: TextView['by'] = 'fallback';
  let body = bytes;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    encoding = 'utf-8';
    by = 'byte order mark';
    body = bytes.subarray(3);
  } else if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    encoding = 'utf-16le';
    by = 'byte order mark';
    body = bytes.subarray(2);
  } else if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    encoding = 'utf-16be';
    by = 'byte order mark';
    body = bytes.subarray(2);
  } else {
    let units = 0;
    let asciiUnits = 0;
    for (let i = 0; i + 1 < bytes.length; i += 2) {
      units++;
      if (bytes[i + 1] === 0 && printableByte(bytes[i]!)) asciiUnits++;
    }
    if (units >= 2 && asciiUnits * 4 >= units * 3) {
      encoding = 'utf-16le';
      by = 'utf-16le pattern';
    } else if (decodeValid(bytes, 'utf-8') !== null) {
      encoding = 'utf-8';
      by = 'valid utf-8';
    } else if (sjisAvailable() && hasSjisPair(bytes) && decodeValid(bytes, 'shift_jis') !== null) {
      encoding = 'shift_jis';
      by = 'valid shift_jis';
    }
  }
  let text: string;
  let tail = 0;
  if (encoding === 'windows-1252') text = latin1.decode(body);
  else {
    const valid = decodeValid(body, encoding);
    if (valid !== null) {
      text = valid.text;
      tail = valid.tail;
    } else {
      // A BOM-marked text with invalid bytes: shown with replacement characters, as marked.
      const units = encoding.startsWith('utf-16') ? body.length & 1 : 0;
      text = decoderFor(encoding, false)!.decode(body.subarray(0, body.length - units));
      tail = units;
    }
  }
  let controls = 0;
  const content = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, (c) => {
    controls++;
    return c === '\u007f' ? '\u2421' : String.fromCharCode(0x2400 + c.charCodeAt(0));
  });
  return { encoding, by, content, controls, partialTail: tail };
}

function hasSjisPair(bytes: Uint8Array): boolean {
  for (let i = 0; i + 1 < bytes.length; i++) if (sjisLead(bytes[i]!) && sjisTrail(bytes[i + 1]!)) return true;
  return false;
}
