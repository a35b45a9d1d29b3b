// Renders a tool's structured result as plain text, so that a client which shows the model only
// `content[]` (or negotiated a protocol version without structured content) still receives the data:
// scalars as `key: value` lines, texts of several lines as indented blocks (line breaks and tabs as
// they are), arrays of records as aligned tables, instruction lists as a listing, hex byte fields as
// hexdumps. Generic by shape, so every tool, present and future, gets it; a few
// specialised renderers (./registry.ts) replace it where a tool's data reads better another way.

import { escapeUnsafe } from '../../core/text-safety.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Record_ = { [key: string]: Json };

const HEX_BYTES = /^(?:[0-9a-fA-F]{2})+$/;
const ADDRESS = /^0x[0-9a-fA-F]{1,16}$/;
/** Field names that carry raw bytes as hex text (memory order). */
const BYTE_FIELDS = new Set(['hex', 'raw', 'data', 'bytesHex']);
/** Widest cell a table holds; a wider one turns the table into one line per record. */
const MAX_CELL = 120;

function isRecord(value: Json | undefined): value is Record_ {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Characters escaped by scalar() since the last renderStructured began (reported under the text). */
let escapedCount = 0;

function scalar(value: Json): string {
  if (value === null) return 'null';
  if (typeof value === 'string') {
    // Data strings may hold control or invisible characters: shown escaped, line breaks included (a
    // value here is one line; a top-level text of several lines is a block: textBlock).
    const safe = escapeUnsafe(value, 'line');
    escapedCount += safe.escaped;
    return safe.text;
  }
  if (typeof value === 'object') {
    // JSON.stringify escapes C0 controls; the invisible and bidirectional ones it leaves are escaped here.
    const safe = escapeUnsafe(JSON.stringify(value), 'line');
    escapedCount += safe.escaped;
    return safe.text;
  }
  return String(value);
}

/** A string of several lines (a text file, a DOT graph): shown as a block. */
const isText = (value: Json | undefined): boolean => typeof value === 'string' && value.includes('\n');

/**
 * A text of several lines under its key, each line indented below it with its tabs as they are (a
 * CRLF pair is one line break; a lone CR and every other unsafe character escaped), so the text reads
 * as written and no line of it stands where the server's own lines do.
 */
function textBlock(key: string, value: string, indent: string, lines: string[]): void {
  const parts = value.split(/\r?\n/);
  if (parts.length > 1 && parts.at(-1) === '') parts.pop();
  lines.push(`${indent}${key} (${parts.length} lines):`);
  for (const part of parts) {
    const safe = escapeUnsafe(part, 'line');
    escapedCount += safe.escaped;
    lines.push(`${indent}  ${safe.text}`);
  }
}

/** 16 bytes a line, each line led by its address (base + offset) when the base is known. */
export function hexdump(hex: string, base: number | null): string[] {
  const lines: string[] = [];
  for (let i = 0; i < hex.length; i += 32) {
    const row =
      hex
        .slice(i, i + 32)
        .toLowerCase()
        .match(/../g)
        ?.join(' ') ?? '';
    const offset = i / 2;
    const label =
      base === null
        ? `+${offset.toString(16).padStart(4, '0')}`
        : `0x${(base + offset).toString(16).padStart(8, '0')}`;
    lines.push(`${label}: ${row}`);
  }
  return lines;
}

function baseAddress(owner: Record_): number | null {
  for (const key of ['address', 'start', 'base']) {
    const v = owner[key];
    if (typeof v === 'string' && ADDRESS.test(v)) return Number.parseInt(v.slice(2), 16);
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  }
  return null;
}

/** A listing: records with an address each, most of them instructions (data rows stay in the listing). */
function isInstructionList(rows: Json[]): boolean {
  if (rows.length === 0 || !rows.every((r) => isRecord(r) && 'address' in r)) return false;
  const instructions = rows.filter((r) => isRecord(r) && 'mnemonic' in r).length;
  return instructions * 2 >= rows.length;
}

/** One line per instruction: address, bytes, mnemonic and operands, then any other facts as k=v. */
function listing(rows: Record_[]): string[] {
  const shown = new Set(['address', 'bytes', 'mnemonic', 'operands', 'size']);
  return rows.map((r) => {
    const extra = Object.entries(r)
      .filter(([k, v]) => !shown.has(k) && v !== null && v !== false && v !== undefined)
      .map(([k, v]) =>
        v === true ? k : `${k}=${v !== null && typeof v === 'object' ? inlineValue(v) : scalar(v)}`,
      );
    const at =
      typeof r.address === 'number'
        ? `0x${r.address.toString(16).padStart(8, '0')}`
        : scalar(r.address ?? '');
    const head =
      `${at}  ${String(r.bytes ?? '').padEnd(8)}  ${scalar(r.mnemonic ?? '')} ${scalar(r.operands ?? '')}`.trimEnd();
    return extra.length > 0 ? `${head}  ; ${extra.join(' ')}` : head;
  });
}

/** A small record of scalars (an identity, a range): split into sub-columns of a table. */
function isFlatRecord(value: Json | undefined): value is Record_ {
  if (!isRecord(value)) return false;
  const values = Object.values(value);
  return values.length > 0 && values.length <= 6 && values.every((v) => v === null || typeof v !== 'object');
}

/**
 * The keys whose every value (where a row has one) is a small record of scalars: those columns are
 * split into one column per key of the record (`identity.address`), so a table shows `0x02000000`
 * instead of a JSON object per cell.
 */
function splitKeys(records: Record_[]): Set<string> {
  const split = new Set<string>();
  const whole = new Set<string>();
  for (const r of records)
    for (const k of Object.keys(r)) {
      if (whole.has(k)) continue;
      const v = r[k];
      if (v === undefined || isFlatRecord(v)) split.add(k);
      else {
        whole.add(k);
        split.delete(k);
      }
    }
  return split;
}

/** A string shown bare inside an inline value, or JSON-quoted when it could be misread there. */
function inlineString(value: string): string {
  return value !== '' && !/[\s=,{}[\]"]/.test(value) ? scalar(value) : scalar(JSON.stringify(value));
}

/** A nested value on one line without JSON's quotes: {k=v k=v}, [a, b]; strings quoted only when needed. */
function inlineValue(value: Json): string {
  if (Array.isArray(value)) return `[${value.map(inlineValue).join(', ')}]`;
  if (isRecord(value))
    return `{${Object.entries(value)
      .map(([k, v]) => `${k}=${inlineValue(v)}`)
      .join(' ')}}`;
  return typeof value === 'string' ? inlineString(value) : scalar(value);
}

/**
 * Columns are the keys of every row in first-seen order; small records of scalars become sub-columns,
 * other nested values compact JSON cells. Null when a cell would be too wide for a table: the caller
 * then writes one line per record, every value whole (nothing is ever cut here). Made in one pass
 * over the rows, each value placed by its column's index (a page of records renders in a fraction of
 * a millisecond).
 */
function table(rows: Json[]): string[] | null {
  const records = rows.filter(isRecord);
  const split = splitKeys(records);
  const columns: string[] = [];
  const index = new Map<string, number>();
  const subIndex = new Map<string, Map<string, number>>();
  const column = (name: string): number => {
    let i = index.get(name);
    if (i === undefined) {
      i = columns.length;
      columns.push(name);
      index.set(name, i);
    }
    return i;
  };
  const values: Json[][] = [];
  for (const r of records) {
    const row: Json[] = [];
    for (const k of Object.keys(r)) {
      const v = r[k] as Json;
      if (split.has(k) && isFlatRecord(v)) {
        let subs = subIndex.get(k);
        if (subs === undefined) {
          subs = new Map();
          subIndex.set(k, subs);
        }
        for (const sk of Object.keys(v)) {
          let i = subs.get(sk);
          if (i === undefined) {
            i = column(`${k}.${sk}`);
            subs.set(sk, i);
          }
          row[i] = v[sk] as Json;
        }
      } else row[column(k)] = v;
    }
    values.push(row);
  }
  const widths = columns.map((c) => c.length);
  const cells: string[][] = [];
  let tooWide = false;
  for (const row of values) {
    const line: string[] = new Array(columns.length);
    for (let i = 0; i < columns.length; i++) {
      const v = row[i];
      const cell = v === undefined ? '-' : scalar(v);
      if (cell.length > MAX_CELL) tooWide = true;
      if (cell.length > widths[i]!) widths[i] = cell.length;
      line[i] = cell;
    }
    cells.push(line);
  }
  if (tooWide) return null;
  const line = (row: string[]) => {
    let out = '';
    for (let i = 0; i < row.length; i++)
      out += i === row.length - 1 ? row[i] : `${row[i]!.padEnd(widths[i]!)}  `;
    return out.trimEnd();
  };
  const out = [line(columns)];
  for (const row of cells) out.push(line(row));
  return out;
}

/** One line per record: `- k=v k=v`, nested values inline and whole. */
function recordLines(rows: Record_[]): string[] {
  return rows.map(
    (r) =>
      `- ${Object.entries(r)
        .map(([k, v]) => `${k}=${inlineValue(v)}`)
        .join(' ')}`,
  );
}

function renderArray(key: string, value: Json[], indent: string, lines: string[]): void {
  if (value.length === 0) {
    lines.push(`${indent}${key}: (none)`);
  } else if (value.every((v) => v === null || typeof v !== 'object')) {
    lines.push(`${indent}${key} (${value.length}): ${value.map(scalar).join(', ')}`);
  } else if (isInstructionList(value)) {
    lines.push(`${indent}${key} (${value.length}):`);
    for (const l of listing(value as Record_[])) lines.push(`${indent}  ${l}`);
  } else if (value.every(isRecord)) {
    lines.push(`${indent}${key} (${value.length}):`);
    for (const l of table(value) ?? recordLines(value)) lines.push(`${indent}  ${l}`);
  } else {
    lines.push(`${indent}${key}: ${JSON.stringify(value)}`);
  }
}

function renderRecord(record: Record_, indent: string, lines: string[]): void {
  for (const [key, value] of Object.entries(record)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) {
      renderArray(key, value, indent, lines);
    } else if (isRecord(value)) {
      const entries = Object.values(value);
      if (entries.length === 0) lines.push(`${indent}${key}: {}`);
      else if (
        entries.length <= 6 &&
        entries.every((v) => v === null || (typeof v !== 'object' && !isText(v))) &&
        !Object.keys(value).some((k) => BYTE_FIELDS.has(k))
      ) {
        lines.push(
          `${indent}${key}: ${Object.entries(value)
            .map(([k, v]) => `${k}=${scalar(v)}`)
            .join(' ')}`,
        );
      } else {
        lines.push(`${indent}${key}:`);
        renderRecord(value, `${indent}  `, lines);
      }
    } else if (typeof value === 'string' && isText(value)) {
      textBlock(key, value, indent, lines);
    } else if (typeof value === 'string' && BYTE_FIELDS.has(key) && HEX_BYTES.test(value)) {
      lines.push(`${indent}${key} (${value.length / 2} bytes):`);
      for (const l of hexdump(value, baseAddress(record))) lines.push(`${indent}  ${l}`);
    } else {
      lines.push(`${indent}${key}: ${scalar(value)}`);
    }
  }
}

/**
 * The value as JSON carries it to a client: a key whose value is undefined is absent (an array's
 * undefined element is null). Records that spell out every optional field then render as the JSON reads.
 */
function asJson(value: unknown): Json {
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map(asJson);
  if (value !== null && typeof value === 'object') {
    const out: Record_ = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = asJson(v);
    return out;
  }
  return value as Json;
}

/** The generic rendering of a structured result: one fact per line, tables and dumps indented. */
export function renderStructured(structured: Record<string, unknown>): string {
  return renderStructuredCounted(structured).text;
}

/**
 * renderStructured, with the number of unsafe characters it escaped. `json`: the value was parsed from
 * its JSON (already as a client receives it), so it is rendered without being normalised first.
 */
export function renderStructuredCounted(
  structured: Record<string, unknown>,
  json = false,
): {
  text: string;
  escaped: number;
} {
  const lines: string[] = [];
  escapedCount = 0;
  renderRecord((json ? structured : asJson(structured)) as Record_, '', lines);
  return { text: lines.join('\n'), escaped: escapedCount };
}
