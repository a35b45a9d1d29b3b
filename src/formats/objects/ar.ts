// Static library archives (`ar`, what `.a` files are): the members in file order, each a name and a
// view of its bytes. GNU archives (a `/` symbol index, a `//` table of long names referred to as `/N`,
// short names ending in `/`) and BSD ones (`#1/N`: the name's N bytes open the member's data,
// `__.SYMDEF` indexes) are read; thin archives, whose members live in other files, are refused. Every
// header, size and name offset is checked against the file: a malformed archive is refused or read in
// part (the rest counted), never read past its end. Bounded by AR_LIMITS (members, name bytes), and
// the steps yield every STEP_MEMBERS members so a caller keeps its event loop answering. Pure.
import { runSteps, type Steps } from '../../core/cooperative.js';
import { ReMcpError } from '../../core/errors.js';

/** A file that is no archive this reader takes (an invalid-argument ReMcpError). */
class ArError extends ReMcpError {
  constructor(message: string) {
    super('invalid-argument', message);
  }
}

const AR_LIMITS = {
  /** Members read from one archive (the rest are counted, not read). */
  maxMembers: { max: 65_536, unit: 'members' },
  /** Bytes of a member's name; a longer one is skipped, never cut. */
  nameBytes: { max: 256, unit: 'bytes' },
} as const;

interface ArMember {
  name: string;
  /** Offset of its data in the archive. */
  offset: number;
  bytes: Uint8Array;
}

interface ParsedArchive {
  members: ArMember[];
  /** Members not read, and why (the first 100; the rest counted in `skippedMore`). */
  skipped: { offset: number; why: string }[];
  skippedMore: number;
  /** Members past AR_LIMITS.maxMembers, counted. */
  cut: number;
}

const MAGIC = '!<arch>\n';
const THIN = '!<thin>\n';
const HEADER = 60;
const STEP_MEMBERS = 256;
const SKIPPED_KEPT = 100;

const ascii = (bytes: Uint8Array, from: number, to: number) => {
  let s = '';
  for (let i = from; i < to; i++) s += String.fromCharCode(bytes[i]!);
  return s;
};

/** Whether `bytes` starts like an archive (either kind). */
export function isArchive(bytes: Uint8Array): boolean {
  const head = ascii(bytes, 0, Math.min(8, bytes.length));
  return head === MAGIC || head === THIN;
}

export function parseArchive(bytes: Uint8Array): ParsedArchive {
  return runSteps(archiveSteps(bytes));
}

/** A decimal header field, or null when it is not one. */
function decimal(text: string): number | null {
  const t = text.trimEnd();
  if (!/^\d{1,12}$/.test(t)) return null;
  return Number(t);
}

/** parseArchive in steps (see the file comment). */
export function* archiveSteps(bytes: Uint8Array): Steps<ParsedArchive> {
  const head = ascii(bytes, 0, Math.min(8, bytes.length));
  if (head === THIN) throw new ArError('a thin archive: its members are other files, not read');
  if (head !== MAGIC) throw new ArError('not an ar archive');
  const out: ParsedArchive = { members: [], skipped: [], skippedMore: 0, cut: 0 };
  const skip = (offset: number, why: string) => {
    if (out.skipped.length < SKIPPED_KEPT) out.skipped.push({ offset, why });
    else out.skippedMore++;
  };
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let longNames: Uint8Array | null = null;
  let at = MAGIC.length;
  for (let n = 0; at < bytes.length; n++) {
    if (n % STEP_MEMBERS === 0) yield;
    // A lone padding byte at the very end is no member.
    if (bytes.length - at < HEADER) {
      if (bytes.length - at > 1 || bytes[at] !== 0x0a) skip(at, 'a truncated member header at the end');
      break;
    }
    if (bytes[at + 58] !== 0x60 || bytes[at + 59] !== 0x0a) {
      skip(at, 'a member header without its terminator: the rest is not read');
      break;
    }
    const size = decimal(ascii(bytes, at + 48, at + 58));
    const dataAt = at + HEADER;
    if (size === null || size > bytes.length - dataAt) {
      skip(at, size === null ? 'a member size that is not a number' : 'a member running past the file');
      break;
    }
    const next = dataAt + size + (size % 2);
    const field = ascii(bytes, at, at + 16);
    at = next;
    let name: string | null;
    let data = bytes.subarray(dataAt, dataAt + size);
    if (field === '/               ' || field.startsWith('__.SYMDEF') || field === '/SYM64/         ')
      continue; // symbol indexes
    if (field === '//              ') {
      longNames = data;
      continue;
    }
    if (field.startsWith('#1/')) {
      const len = decimal(field.slice(3));
      if (len === null || len > size) {
        skip(dataAt - HEADER, 'a BSD name length that is not a number or runs past its member');
        continue;
      }
      if (len > AR_LIMITS.nameBytes.max) {
        skip(dataAt - HEADER, `a name longer than ${AR_LIMITS.nameBytes.max} bytes`);
        continue;
      }
      const raw = data.subarray(0, len);
      const nul = raw.indexOf(0);
      name = decoder.decode(nul >= 0 ? raw.subarray(0, nul) : raw);
      data = data.subarray(len);
    } else if (/^\/\d/.test(field)) {
      name = longName(longNames, decimal(field.slice(1)), decoder);
      if (name === null) {
        skip(dataAt - HEADER, 'a long name outside the names table (or longer than the limit)');
        continue;
      }
    } else {
      const t = field.trimEnd();
      name = t.endsWith('/') ? t.slice(0, -1) : t;
    }
    if (name.length === 0 || /[\u0000-\u001f/]/.test(name)) {
      skip(dataAt - HEADER, 'an empty member name or one holding a control character or a slash');
      continue;
    }
    if (out.members.length >= AR_LIMITS.maxMembers.max) {
      out.cut++;
      continue;
    }
    out.members.push({ name, offset: data.byteOffset - bytes.byteOffset, bytes: data });
  }
  return out;
}

/** A GNU long name: at `offset` of the `//` table, ending at "/\n" (or "\n"). */
function longName(
  table: Uint8Array | null,
  offset: number | null,
  decoder: { decode(input: Uint8Array): string },
): string | null {
  if (table === null || offset === null || offset >= table.length) return null;
  const stop = Math.min(table.length, offset + AR_LIMITS.nameBytes.max + 2);
  let end = offset;
  while (end < stop && table[end] !== 0x0a && table[end] !== 0) end++;
  if (end === stop && end < table.length) return null;
  if (end > offset && table[end - 1] === 0x2f) end--;
  if (end - offset > AR_LIMITS.nameBytes.max) return null;
  return decoder.decode(table.subarray(offset, end));
}
