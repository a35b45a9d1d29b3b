// File name table: authoritative for names and hierarchy. A main table of 8-byte directory entries
// (sub-table offset, first file ID, parent ID; the root's parent slot holds the directory count),
// then per-directory sub-tables of length-prefixed names. Directory IDs start at 0xF000.
//
// One decoder reads the stored bytes: directoryCount (the main table's size) and subTable (one
// directory's entries, each checked to lie inside the table before it is handed on). Two views are
// built on it:
// - parseRawFnt, the tree the model needs: every directory reached from the root, every file's path;
// - parseFntTables, the records as stored (every directory in ID order, its entries in their stored
//   order), so the table can be written back exactly (writeFntTables) or rebuilt after adding files
//   and directories (layoutFntTables).
//
// Every step is bounded by the table's own size: each directory is visited at most once (a second
// visit is a cycle or a shared child and refuses the table), and each sub-table entry consumes at
// least two bytes, so a hostile table cannot make the walk loop.
import { putU16, putU32, u16, u32 } from '../../le.js';
import { invalidRom } from './byte-source.js';
import { latin1 } from './header.js';

const ROOT_DIRECTORY_ID = 0xf000;
const MAX_DIRECTORIES = 0x1000;
/**
 * Characters in one full path. Nesting multiplies name lengths: without a bound, 4,096 nested
 * directories with 127-character names in under 1 MiB of FNT build paths of half a megabyte for every
 * file (gigabytes in all once a path is flattened). Real NitroFS paths are far shorter; the path
 * selectors of the search and extraction tools accept the same length.
 */
export const MAX_PATH_LENGTH = 1024;

export interface FntDirectory {
  id: number;
  /** null for the root. */
  parentId: number | null;
  /** '/'-joined path without a leading slash; '' for the root. */
  path: string;
  firstFileId: number;
  /** Number of files named directly in this directory. */
  fileCount: number;
}

interface FntResult {
  directories: FntDirectory[];
  /** File ID -> full path, for every file the table names. */
  paths: Map<number, string>;
  /** Non-fatal oddities (e.g. a parent slot that disagrees with the tree, unreachable directories). */
  issues: string[];
}

interface FntEntryRecord {
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

interface FntTables {
  directories: FntDirectoryRecord[];
  /** Total FNT size in bytes (bytes the records do not cover are kept as `filler`). */
  size: number;
  /** The stored bytes no record covers, by offset (usually none; kept for an exact write-back). */
  filler: Array<{ offset: number; bytes: Uint8Array }>;
}

function fail(message: string, details: Record<string, unknown> = {}): never {
  invalidRom('fnt', `file name table: ${message}`, details);
}

/** The number of directories the main table declares; 0 for an empty FNT. */
function directoryCount(bytes: Uint8Array): number {
  if (bytes.length === 0) return 0;
  if (bytes.length < 8) fail('shorter than one directory entry', { size: bytes.length });
  const dirCount = u16(bytes, 6);
  if (dirCount < 1 || dirCount > MAX_DIRECTORIES) fail(`bad directory count ${dirCount}`, { dirCount });
  if (dirCount * 8 > bytes.length) fail('the directory table is larger than the FNT', { dirCount });
  return dirCount;
}

/** One stored sub-table entry: where its name lies in the FNT, and where the entry ends. */
interface StoredEntry {
  nameStart: number;
  nameEnd: number;
  /** The directory ID a sub-directory entry names; undefined for a file. */
  dirId: number | undefined;
  end: number;
}

/**
 * The entries of directory `index`'s sub-table in stored order (the main table holds at least
 * index + 1 records), each one checked to lie inside the FNT before it is yielded; the walk ends at
 * the terminating zero byte.
 */
function* subTable(bytes: Uint8Array, index: number): Generator<StoredEntry, void> {
  const id = (ROOT_DIRECTORY_ID + index).toString(16);
  const subOffset = u32(bytes, index * 8);
  if (subOffset >= bytes.length) fail(`directory 0x${id} sub-table offset outside`);
  let at = subOffset;
  for (;;) {
    if (at >= bytes.length) fail(`directory 0x${id} sub-table runs past the end`);
    const lengthType = bytes[at]!;
    if (lengthType === 0) return;
    if (lengthType === 0x80) fail(`reserved entry type 0x80 in directory 0x${id}`);
    const nameEnd = at + 1 + (lengthType & 0x7f);
    const isDirectory = lengthType > 0x80;
    const end = nameEnd + (isDirectory ? 2 : 0);
    if (end > bytes.length) fail(`an entry of directory 0x${id} runs past the end`);
    yield { nameStart: at + 1, nameEnd, dirId: isDirectory ? u16(bytes, nameEnd) : undefined, end };
    at = end;
  }
}

/** The tree: directories reached from the root and the path of every file the table names. */
export function parseRawFnt(bytes: Uint8Array, fatCount: number): FntResult {
  const result: FntResult = { directories: [], paths: new Map(), issues: [] };
  const dirCount = directoryCount(bytes);
  if (dirCount === 0) return result;

  const visited = new Uint8Array(dirCount);
  const stack: Array<{ id: number; parentId: number | null; path: string }> = [
    { id: ROOT_DIRECTORY_ID, parentId: null, path: '' },
  ];
  visited[0] = 1;
  // Each directory is pushed at most once (visited guard), so the loop runs at most dirCount times.
  while (stack.length > 0) {
    const dir = stack.pop()!;
    const index = dir.id - ROOT_DIRECTORY_ID;
    const firstFileId = u16(bytes, index * 8 + 4);
    if (dir.parentId !== null) {
      const storedParent = u16(bytes, index * 8 + 6);
      if (storedParent !== dir.parentId) {
        result.issues.push(
          `directory 0x${dir.id.toString(16)} names parent 0x${storedParent.toString(16)} but sits under 0x${dir.parentId.toString(16)}`,
        );
      }
    }
    const seenNames = new Set<string>();
    let fileCount = 0;
    for (const entry of subTable(bytes, index)) {
      const name = latin1(bytes.subarray(entry.nameStart, entry.nameEnd));
      if (name.includes('/') || name.includes('\0') || name === '.' || name === '..') {
        fail(`unusable name ${JSON.stringify(name)}`);
      }
      if (seenNames.has(name)) fail(`duplicate name ${JSON.stringify(name)} in one directory`);
      seenNames.add(name);
      const path = dir.path === '' ? name : `${dir.path}/${name}`;
      if (path.length > MAX_PATH_LENGTH) {
        fail(`a path in directory 0x${dir.id.toString(16)} is longer than ${MAX_PATH_LENGTH} characters`, {
          length: path.length,
        });
      }
      if (entry.dirId !== undefined) {
        const childId = entry.dirId;
        const childIndex = childId - ROOT_DIRECTORY_ID;
        if (childIndex <= 0 || childIndex >= dirCount) fail(`bad directory ID 0x${childId.toString(16)}`);
        if (visited[childIndex]) fail(`directory 0x${childId.toString(16)} is reached twice (cycle)`);
        visited[childIndex] = 1;
        stack.push({ id: childId, parentId: dir.id, path });
      } else {
        const fileId = firstFileId + fileCount;
        if (fileId >= fatCount) fail(`file ID ${fileId} is not in the FAT`, { fileId, fatCount });
        if (result.paths.has(fileId)) fail(`file ID ${fileId} is named twice`, { fileId });
        result.paths.set(fileId, path);
        fileCount++;
      }
    }
    result.directories.push({ id: dir.id, parentId: dir.parentId, path: dir.path, firstFileId, fileCount });
  }
  const unreached = dirCount - result.directories.length;
  if (unreached > 0) result.issues.push(`${unreached} directory entries are not reachable from the root`);
  result.directories.sort((a, b) => a.id - b.id);
  return result;
}

/**
 * The records as stored, every directory in ID order (reached from the root or not), and the bytes
 * no record covers. Call it on a table parseRawFnt accepted.
 */
export function parseFntTables(bytes: Uint8Array): FntTables {
  const count = directoryCount(bytes);
  if (count === 0) return { directories: [], size: 0, filler: [] };
  const covered = new Uint8Array(bytes.length);
  covered.fill(1, 0, count * 8);
  const directories: FntDirectoryRecord[] = [];
  for (let i = 0; i < count; i++) {
    const subOffset = u32(bytes, i * 8);
    const entries: FntEntryRecord[] = [];
    // The entries are contiguous from subOffset; the terminating zero byte follows the last one.
    let terminator = subOffset;
    for (const e of subTable(bytes, i)) {
      const name = bytes.slice(e.nameStart, e.nameEnd);
      entries.push(e.dirId === undefined ? { name } : { name, dirId: e.dirId });
      terminator = e.end;
    }
    covered.fill(1, subOffset, terminator + 1);
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
