// The text symbol formats, read and written: no$gba `.sym` (`XXXXXXXX name` lines; `.arm`/`.thumb`
// at an address say the mode there, `.byt:`/`.wrd:`/`.dbl:`/`.asc:` mark data; `;` starts a
// comment), a decompilation project's `symbols.txt` (`name kind:function(arm,size=0x20)
// addr:0x02000000`, `kind:data(...)`), a plain `address name [arm|thumb|data]` list (address in hex,
// 0x optional; `#` and `;` comments) and CSV (`address,name,mode,processor,overlay,size,comment`, the
// form Ghidra and IDA scripts import; a first line starting `address,` is its header). Every line is
// checked on its own: a bad line is reported with its number and skipped, never guessed. The work is
// bounded by the text: lines are found one at a time (never split into one array), a line longer than
// SYMBOL_LIMITS.lineChars is skipped unread, and the steps yield every STEP_LINES lines. Pure.
import { runSteps, type Steps } from '../../core/cooperative.js';
import {
  badName,
  type ParsedSymbols,
  type RawSymbol,
  SYMBOL_LIMITS,
  SYMBOL_MODES,
  type SymbolFormat,
  type SymbolMode,
  skip,
} from './types.js';

/** Lines read between two yields. */
const STEP_LINES = 4096;

const HEX32 = /^(?:0x)?([0-9a-f]{1,8})$/i;
const hex32 = (t: string): number | null => {
  const m = HEX32.exec(t);
  return m ? Number.parseInt(m[1]!, 16) >>> 0 : null;
};
const MODES: ReadonlySet<string> = new Set(SYMBOL_MODES);

/**
 * Calls `each` with every line of `text` (CR before the newline removed) and its 1-based number; a line
 * longer than SYMBOL_LIMITS.lineChars is reported to `tooLong` instead. Yields every STEP_LINES lines.
 */
function* eachLine(
  text: string,
  each: (line: string, n: number) => void,
  tooLong: (n: number) => void,
): Steps<void> {
  for (let start = 0, n = 1; start <= text.length; n++) {
    if (n % STEP_LINES === 0) yield;
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (end - start > SYMBOL_LIMITS.lineChars.max) tooLong(n);
    else each(text.slice(start, text.charCodeAt(end - 1) === 13 && end > start ? end - 1 : end), n);
    start = end + 1;
  }
}

function* collect(
  text: string,
  parse: (line: string, n: number) => RawSymbol | string | null,
): Steps<ParsedSymbols> {
  const out: ParsedSymbols = { symbols: [], skipped: [], skippedMore: 0, cut: 0 };
  yield* eachLine(
    text,
    (line, n) => {
      const r = parse(line, n);
      if (r === null) return;
      if (typeof r === 'string') {
        skip(out, n, r);
        return;
      }
      const why = badName(r.name);
      if (why) {
        skip(out, n, why);
        return;
      }
      if (r.comment !== null && r.comment.length > SYMBOL_LIMITS.commentChars.max) {
        skip(out, n, `comment longer than ${SYMBOL_LIMITS.commentChars.max} characters`);
        return;
      }
      if (out.symbols.length >= SYMBOL_LIMITS.maxSymbols.max) out.cut++;
      else out.symbols.push(r);
    },
    (n) => skip(out, n, `line longer than ${SYMBOL_LIMITS.lineChars.max} characters`),
  );
  return out;
}

const symbol = (address: number, name: string, n: number, more: Partial<RawSymbol> = {}): RawSymbol => ({
  address,
  name,
  mode: null,
  size: null,
  comment: null,
  processor: null,
  overlayId: null,
  line: n,
  ...more,
});

const NOSGBA_LINE = /^([0-9a-f]{8})\s+(\S+)$/i;
const NOSGBA_DATA = /^\.(byt|wrd|dbl|asc):[0-9a-f]+$/i;

function* parseNosgba(text: string): Steps<ParsedSymbols> {
  const body = (line: string) => NOSGBA_LINE.exec(line.replace(/;.*$/, '').trim());
  const parsed = yield* collect(text, (line, n) => {
    const trimmed = line.replace(/;.*$/, '').trim();
    if (trimmed === '') return null;
    const m = NOSGBA_LINE.exec(trimmed);
    if (!m) return 'expected "XXXXXXXX name"';
    const name = m[2]!;
    if (name === '.arm' || name === '.thumb' || NOSGBA_DATA.test(name)) return null;
    if (name.startsWith('.')) return `unknown directive ${name}`;
    return symbol(Number.parseInt(m[1]!, 16) >>> 0, name, n);
  });
  // Mode directives apply to a name at the same address: a second pass keeps only those (at most one
  // per name kept, whatever the file holds).
  const named = new Map<number, RawSymbol[]>();
  for (const s of parsed.symbols) {
    const at = named.get(s.address);
    if (at) at.push(s);
    else named.set(s.address, [s]);
  }
  yield* eachLine(
    text,
    (line) => {
      const m = body(line);
      if (!m) return;
      const name = m[2]!;
      const mode: SymbolMode | null =
        name === '.arm' ? 'arm' : name === '.thumb' ? 'thumb' : NOSGBA_DATA.test(name) ? 'data' : null;
      if (mode === null) return;
      for (const s of named.get(Number.parseInt(m[1]!, 16) >>> 0) ?? []) s.mode = mode;
    },
    () => {},
  );
  return parsed;
}

function parseSymbolsTxt(text: string): Steps<ParsedSymbols> {
  return collect(text, (line, n) => {
    const body = line.replace(/\/\/.*$/, '').trim();
    if (body === '') return null;
    const [name, ...fields] = body.split(/\s+/);
    const addr = fields.find((f) => f.startsWith('addr:'));
    if (!name || !addr) return 'expected "name kind:... addr:0x..."';
    const address = hex32(addr.slice(5));
    if (address === null) return `bad address ${addr}`;
    const kind = fields.find((f) => f.startsWith('kind:')) ?? '';
    const k = /^kind:(function|data|label)(?:\(([^)]*)\))?$/.exec(kind);
    const args = (k?.[2] ?? '').split(',');
    const mode: SymbolMode | null =
      k?.[1] === 'data' ? 'data' : args.includes('thumb') ? 'thumb' : args.includes('arm') ? 'arm' : null;
    const sizeArg = args.find((a) => a.startsWith('size='));
    const size = sizeArg ? hex32(sizeArg.slice(5)) : null;
    return symbol(address, name, n, { mode, size });
  });
}

function parsePlain(text: string): Steps<ParsedSymbols> {
  return collect(text, (line, n) => {
    const body = line.replace(/[#;].*$/, '').trim();
    if (body === '') return null;
    const parts = body.split(/\s+/);
    if (parts.length < 2 || parts.length > 3) return 'expected "address name [arm|thumb|data]"';
    let address = hex32(parts[0]!);
    let name = parts[1]!;
    if (address === null) {
      // "name address" is accepted too.
      address = hex32(parts[1]!);
      name = parts[0]!;
    }
    if (address === null) return 'no hexadecimal address';
    const mode = parts[2];
    if (mode !== undefined && !MODES.has(mode)) return `unknown mode ${mode}`;
    return symbol(address, name, n, { mode: (mode as SymbolMode | undefined) ?? null });
  });
}

/** One CSV record's fields (RFC 4180 quoting); null on an unterminated quote. */
function csvFields(line: string): string[] | null {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) return null;
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i++];
      }
    } else {
      while (i < line.length && line[i] !== ',') field += line[i++];
    }
    out.push(field);
    if (i >= line.length) return out;
    if (line[i] !== ',') return null;
    i++;
  }
}

const CSV_HEADER = 'address,name,mode,processor,overlay,size,comment';

function parseCsv(text: string): Steps<ParsedSymbols> {
  return collect(text, (line, n) => {
    if (line.trim() === '' || (n === 1 && /^"?address"?,/i.test(line.trim()))) return null;
    const f = csvFields(line);
    if (f === null || f.length < 2 || f.length > 7)
      return 'expected address,name[,mode,processor,overlay,size,comment]';
    const address = hex32(f[0]!.trim());
    if (address === null) return `bad address ${f[0]}`;
    const mode = f[2]?.trim() || null;
    if (mode !== null && !MODES.has(mode)) return `unknown mode ${mode}`;
    const processor = f[3]?.trim() || null;
    if (processor !== null && processor !== 'arm9' && processor !== 'arm7')
      return `unknown processor ${processor}`;
    const overlay = f[4]?.trim() || null;
    if (overlay !== null && !/^\d{1,10}$/.test(overlay)) return `bad overlay ${overlay}`;
    const size = f[5]?.trim() ? hex32(f[5].trim()) : null;
    return symbol(address, f[1]!, n, {
      mode: mode as SymbolMode | null,
      processor: processor as 'arm9' | 'arm7' | null,
      overlayId: overlay === null ? null : Number(overlay),
      size,
      comment: f[6] ? f[6] : null,
    });
  });
}

/** Parses a text symbol file of `format` (the ELF form is parseElfSymbols). */
export function parseSymbolText(format: Exclude<SymbolFormat, 'elf'>, text: string): ParsedSymbols {
  return runSteps(symbolTextSteps(format, text));
}

/** parseSymbolText in steps (see the file comment). */
export function symbolTextSteps(format: Exclude<SymbolFormat, 'elf'>, text: string): Steps<ParsedSymbols> {
  switch (format) {
    case 'nosgba':
      return parseNosgba(text);
    case 'symbols-txt':
      return parseSymbolsTxt(text);
    case 'plain':
      return parsePlain(text);
    case 'csv':
      return parseCsv(text);
  }
}

const h8 = (n: number) => n.toString(16).padStart(8, '0');
const csvField = (s: string) => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** The symbols in `format` (not ELF): what parseSymbolText reads back to the same names and places. */
export function writeSymbolText(format: Exclude<SymbolFormat, 'elf'>, symbols: readonly RawSymbol[]): string {
  const lines: string[] = [];
  const sorted = [...symbols].sort((a, b) => a.address - b.address || a.name.localeCompare(b.name));
  switch (format) {
    case 'nosgba':
      for (const s of sorted) {
        if (s.mode === 'arm' || s.mode === 'thumb') lines.push(`${h8(s.address).toUpperCase()} .${s.mode}`);
        else if (s.mode === 'data')
          lines.push(`${h8(s.address).toUpperCase()} .byt:${h8(s.size ?? 1).slice(4)}`);
        lines.push(`${h8(s.address).toUpperCase()} ${s.name}`);
      }
      break;
    case 'symbols-txt':
      for (const s of sorted) {
        const args = [
          s.mode === 'arm' || s.mode === 'thumb' ? s.mode : null,
          s.size !== null ? `size=0x${s.size.toString(16)}` : null,
        ]
          .filter((a) => a !== null)
          .join(',');
        const kind = s.mode === 'data' ? 'data' : s.mode === null ? 'label' : 'function';
        lines.push(`${s.name} kind:${kind}${args ? `(${args})` : ''} addr:0x${h8(s.address)}`);
      }
      break;
    case 'plain':
      for (const s of sorted) lines.push(`0x${h8(s.address)} ${s.name}${s.mode ? ` ${s.mode}` : ''}`);
      break;
    case 'csv':
      lines.push(CSV_HEADER);
      for (const s of sorted)
        lines.push(
          [
            `0x${h8(s.address)}`,
            csvField(s.name),
            s.mode ?? '',
            s.processor ?? '',
            s.overlayId === null ? '' : String(s.overlayId),
            s.size === null ? '' : `0x${s.size.toString(16)}`,
            csvField((s.comment ?? '').replace(/[\r\n]+/g, ' ')),
          ].join(','),
        );
      break;
  }
  return `${lines.join('\n')}\n`;
}
