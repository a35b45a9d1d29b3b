// The FNT as stored, record by record: the main directory table (sub-table offset, first file ID,
// parent slot) and each directory's sub-table entries in their stored order. parseRawFnt derives the
// tree from the same bytes; this form exists so the table can be written back exactly
// (writeFntTables) or rebuilt after adding files and directories (layoutFntTables).
//
// Call it on a table parseRawFnt accepted: that walk has already bounded every offset and length.
import { invalidRom, u16, u32 } from './byte-source.js';
import { putU16, putU32 } from './le.js';

export interface FntEntryRecord {
  /** Name bytes as stored (1..127 bytes). */
  name: Uint8Array;
  /** Directory ID for a sub-directory entry; undefined for a file. */
  dirId?: number;
}

export interface FntDirectoryRecord {
  /** Offset of the sub-table inside the FNT. */
  subOffset: number;
  firstFileId: number;
  /** The stored parent slot (the directory count for the root). */
  parentField: number;
  entries: FntEntryRecord[];
}

export interface FntTables {
  directories: FntDirectoryRecord[];
  /** Total FNT size in bytes (bytes the records do not cover are kept as `filler`). */
  size: number;
  /** The stored bytes no record covers, by offset (usually none; kept for an exact write-back). */
  filler: Array<{ offset: number; bytes: Uint8Array }>;
}

export function parseFntTables(bytes: Uint8Array): FntTables {
  if (bytes.length === 0) return { directories: [], size: 0, filler: [] };
  if (bytes.length < 8) invalidRom('fnt', 'file name table: shorter than one directory entry');
  const count = u16(bytes, 6);
  if (count < 1 || count * 8 > bytes.length) invalidRom('fnt', 'file name table: bad directory count');
  const covered = new Uint8Array(bytes.length);
  covered.fill(1, 0, count * 8);
  const directories: FntDirectoryRecord[] = [];
  for (let i = 0; i < count; i++) {
    const subOffset = u32(bytes, i * 8);
    const entries: FntEntryRecord[] = [];
    let at = subOffset;
    // Each entry consumes at least two bytes and the walk stops at the table's end.
    for (;;) {
      if (at >= bytes.length) invalidRom('fnt', 'file name table: a sub-table runs past the end');
      const lengthType = bytes[at]!;
      if (lengthType === 0) {
        covered[at] = 1;
        at++;
        break;
      }
      const nameLength = lengthType & 0x7f;
      const isDir = lengthType > 0x80;
      const end = at + 1 + nameLength + (isDir ? 2 : 0);
      if (lengthType === 0x80 || end > bytes.length) invalidRom('fnt', 'file name table: a bad entry');
      const name = bytes.slice(at + 1, at + 1 + nameLength);
      entries.push(isDir ? { name, dirId: u16(bytes, at + 1 + nameLength) } : { name });
      covered.fill(1, at, end);
      at = end;
    }
    directories.push({
      subOffset,
      firstFileId: u16(bytes, i * 8 + 4),
      parentField: u16(bytes, i * 8 + 6),
      entries,
    });
  }
  const filler: FntTables['filler'] = [];
  for (let i = 0; i < bytes.length; ) {
    if (covered[i]) {
      i++;
      continue;
    }
    const start = i;
    while (i < bytes.length && !covered[i]) i++;
    filler.push({ offset: start, bytes: bytes.slice(start, i) });
  }
  return { directories, size: bytes.length, filler };
}

function subTableBytes(dir: FntDirectoryRecord): Uint8Array {
  let length = 1;
  for (const e of dir.entries) length += 1 + e.name.length + (e.dirId === undefined ? 0 : 2);
  const out = new Uint8Array(length);
  let at = 0;
  for (const e of dir.entries) {
    if (e.name.length < 1 || e.name.length > 127) throw new RangeError('an FNT name is 1..127 bytes');
    out[at++] = (e.dirId === undefined ? 0 : 0x80) | e.name.length;
    out.set(e.name, at);
    at += e.name.length;
    if (e.dirId !== undefined) {
      putU16(out, at, e.dirId);
      at += 2;
    }
  }
  return out;
}

/** Writes the records at their stored offsets (the exact inverse of parseFntTables). */
export function writeFntTables(tables: FntTables): Uint8Array {
  const out = new Uint8Array(tables.size);
  for (const f of tables.filler) out.set(f.bytes, f.offset);
  tables.directories.forEach((dir, i) => {
    putU32(out, i * 8, dir.subOffset);
    putU16(out, i * 8 + 4, dir.firstFileId);
    putU16(out, i * 8 + 6, dir.parentField);
    out.set(subTableBytes(dir), dir.subOffset);
  });
  return out;
}

/**
 * The canonical layout: main table, then every sub-table in directory order, no filler; sub-table
 * offsets, the root's directory count and the total size are recomputed. Used when a rebuild changes
 * the tree.
 */
export function layoutFntTables(directories: readonly FntDirectoryRecord[]): FntTables {
  let cursor = directories.length * 8;
  const laid = directories.map((dir, i) => {
    const record = {
      ...dir,
      subOffset: cursor,
      parentField: i === 0 ? directories.length : dir.parentField,
    };
    cursor += subTableBytes(dir).length;
    return record;
  });
  return { directories: laid, size: cursor, filler: [] };
}
