// File name table: authoritative for names and hierarchy. A main table of 8-byte directory entries
// (sub-table offset, first file ID, parent ID; the root's parent slot holds the directory count),
// then per-directory sub-tables of length-prefixed names. Directory IDs start at 0xF000.
//
// Every step is bounded by the table's own size: each directory is visited at most once (a second
// visit is a cycle or a shared child and refuses the table), and each sub-table entry consumes at
// least two bytes, so a hostile table cannot make the walk loop.
import { invalidRom, u16, u32 } from './byte-source.js';
import { latin1 } from './header.js';

export const ROOT_DIRECTORY_ID = 0xf000;
export const MAX_DIRECTORIES = 0x1000;
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

export interface FntResult {
  directories: FntDirectory[];
  /** File ID -> full path, for every file the table names. */
  paths: Map<number, string>;
  /** Non-fatal oddities (e.g. a parent slot that disagrees with the tree, unreachable directories). */
  issues: string[];
}

function fail(message: string, details: Record<string, unknown> = {}): never {
  invalidRom('fnt', `file name table: ${message}`, details);
}

export function parseRawFnt(bytes: Uint8Array, fatCount: number): FntResult {
  const result: FntResult = { directories: [], paths: new Map(), issues: [] };
  if (bytes.length === 0) return result;
  if (bytes.length < 8) fail('shorter than one directory entry', { size: bytes.length });
  const dirCount = u16(bytes, 6);
  if (dirCount < 1 || dirCount > MAX_DIRECTORIES) fail(`bad directory count ${dirCount}`, { dirCount });
  if (dirCount * 8 > bytes.length) fail('the directory table is larger than the FNT', { dirCount });

  const visited = new Uint8Array(dirCount);
  const stack: Array<{ id: number; parentId: number | null; path: string }> = [
    { id: ROOT_DIRECTORY_ID, parentId: null, path: '' },
  ];
  visited[0] = 1;
  // Each directory is pushed at most once (visited guard), so the loop runs at most dirCount times.
  while (stack.length > 0) {
    const dir = stack.pop()!;
    const index = dir.id - ROOT_DIRECTORY_ID;
    const subOffset = u32(bytes, index * 8);
    const firstFileId = u16(bytes, index * 8 + 4);
    if (dir.parentId !== null) {
      const storedParent = u16(bytes, index * 8 + 6);
      if (storedParent !== dir.parentId) {
        result.issues.push(
          `directory 0x${dir.id.toString(16)} names parent 0x${storedParent.toString(16)} but sits under 0x${dir.parentId.toString(16)}`,
        );
      }
    }
    if (subOffset >= bytes.length) fail(`directory 0x${dir.id.toString(16)} sub-table offset outside`);
    const seenNames = new Set<string>();
    let at = subOffset;
    let fileCount = 0;
    for (;;) {
      if (at >= bytes.length) fail(`directory 0x${dir.id.toString(16)} sub-table runs past the end`);
      const lengthType = bytes[at]!;
      if (lengthType === 0) break;
      if (lengthType === 0x80) fail(`reserved entry type 0x80 in directory 0x${dir.id.toString(16)}`);
      const nameLength = lengthType & 0x7f;
      const isDirectory = lengthType > 0x80;
      const entryEnd = at + 1 + nameLength + (isDirectory ? 2 : 0);
      if (entryEnd > bytes.length) fail(`an entry of directory 0x${dir.id.toString(16)} runs past the end`);
      const name = latin1(bytes.subarray(at + 1, at + 1 + nameLength));
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
      if (isDirectory) {
        const childId = u16(bytes, at + 1 + nameLength);
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
      at = entryEnd;
    }
    result.directories.push({ id: dir.id, parentId: dir.parentId, path: dir.path, firstFileId, fileCount });
  }
  const unreached = dirCount - result.directories.length;
  if (unreached > 0) result.issues.push(`${unreached} directory entries are not reachable from the root`);
  result.directories.sort((a, b) => a.id - b.id);
  return result;
}
