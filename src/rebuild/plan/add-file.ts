// Planning a v2 add-file: a new NitroFS file (missing directories created) whose payload is appended
// after the source; the FNT records change, so a rebuilt FNT is appended too, and the new file takes
// the first free FAT slot.
import type { NdsRomModel } from '../../formats/nds/index.js';
import { type FntDirectoryRecord, parseFntTables } from '../../formats/nds/raw/fnt.js';
import type { ManifestOperation } from '../manifest.js';
import { appendPayload, artifactOf, opError, type PlanState, range } from './state.js';

type AddFileOperation = Extract<ManifestOperation, { op: 'add-file' }>;

export function planAddFile(state: PlanState, o: AddFileOperation): void {
  const { model, read } = state;
  const a = artifactOf(state, o);
  state.fntDirs ??= parseFntTables(
    read(model.header.fnt.start, model.header.fnt.end - model.header.fnt.start),
  ).directories;
  const fileId = addFntPath(o, model, state.fntDirs, state.fat.length);
  state.fat.push({ start: 0, end: 0 });
  appendPayload(state, o.id, fileId, a.bytes);
  state.planned.push({
    id: o.id,
    op: o.op,
    component: `file ${fileId}`,
    fileId,
    path: o.path,
    output: range(0, 0),
    length: a.bytes.length,
    replaced: null,
    beforeSha256: null,
    afterSha256: a.sha256,
  });
}

/**
 * Adds `path` to the FNT records and returns its new file ID (`nextId`, the first free FAT slot).
 * File IDs of one directory are consecutive, so a new file can join a directory only when that
 * directory's files end at the last ID (or it has none); missing directories are created, each new
 * one starting at the new ID. Anything else would renumber existing files and is refused.
 */
export function addFntPath(
  op: { id: string; path: string },
  model: Pick<NdsRomModel, 'files'>,
  dirs: FntDirectoryRecord[],
  nextId: number,
): number {
  const parts = op.path.split('/');
  const enc = (s: string) => Uint8Array.from([...s].map((ch) => ch.charCodeAt(0)));
  for (const part of parts) {
    if (
      part === '' ||
      part === '.' ||
      part === '..' ||
      part.length > 127 ||
      /[\u0000-\u001f\u007f/\u0080-\uffff]/.test(part)
    ) {
      opError(
        op,
        'invalid-argument',
        `bad path segment ${JSON.stringify(part)} (1..127 printable ASCII characters, no control characters)`,
      );
    }
  }
  if (model.files.some((f) => f.path === op.path))
    opError(op, 'invalid-argument', `a file already exists at ${op.path}`);
  if (dirs.length === 0) opError(op, 'unsupported', 'the ROM has no file name table');
  const name = (e: { name: Uint8Array }) => String.fromCharCode(...e.name);
  let dirIndex = 0;
  for (const part of parts.slice(0, -1)) {
    const dir = dirs[dirIndex]!;
    const existing = dir.entries.find((e) => name(e) === part);
    if (existing && existing.dirId === undefined)
      opError(op, 'invalid-argument', `${part} is a file, not a directory`);
    if (existing) {
      dirIndex = existing.dirId! - 0xf000;
      continue;
    }
    if (dirs.length >= 0x1000) opError(op, 'limit-exceeded', 'the FNT already holds 4096 directories');
    const id = 0xf000 + dirs.length;
    dir.entries.push({ name: enc(part), dirId: id });
    dirs.push({ subOffset: 0, firstFileId: nextId, parentField: 0xf000 + dirIndex, entries: [] });
    dirIndex = id - 0xf000;
  }
  const dir = dirs[dirIndex]!;
  const leaf = parts[parts.length - 1]!;
  if (dir.entries.some((e) => name(e) === leaf))
    opError(op, 'invalid-argument', `${leaf} already exists in its directory`);
  const files = dir.entries.filter((e) => e.dirId === undefined).length;
  if (files === 0) dir.firstFileId = nextId;
  else if (dir.firstFileId + files !== nextId) {
    opError(
      op,
      'unsupported',
      "the directory's files do not end at the last file ID; adding one would renumber existing files",
      {
        directoryFirstFileId: dir.firstFileId,
        files,
        nextId,
      },
    );
  }
  dir.entries.push({ name: enc(leaf) });
  return nextId;
}
