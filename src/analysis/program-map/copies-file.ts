// The start-up copies of a ROM's processor kept in the workspace beside its maps, so a later process
// answers where copied code runs without running the start-up code again (a few hundred milliseconds
// on a small program): analysis/generated/nds/<sha16>/program-maps/<processor>-copies.json, a line of
// JSON (this engine, ROM and processor, and the detection) and a line with the SHA-256 of the first.
// Read back only when the checksum holds, it names this engine, ROM and processor, and the detection
// has its shape (map-file.ts copiesWellFormed); otherwise it is refused with the reason and the copies
// are found again. Neither a failed read nor a failed write fails the question that asked.
import { createHash } from 'node:crypto';
import { ReMcpError } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import { readWhole } from '../../workspace/read-whole.js';
import { romDirSegments } from '../../workspace/rom-dir.js';
import type { Workspace } from '../../workspace/workspace.js';
import type { CopyDetection } from '../evidence/copied-code.js';
import { copiesWellFormed } from './map-file.js';

const FORMAT = 're-mcp.startup-copies';
const VERSION = 1;
/** The largest file read back (a detection names at most a few thousand copies). */
const COPIES_FILE_MAX_BYTES = 1024 * 1024;
const FOLDER = 'program-maps';

/** What the copies of a file are the copies of. */
export interface CopiesIdentity {
  engine: string;
  sha256: string;
  size: number;
  processor: Processor;
}

/** What happened to a file, for the logs and the tests. */
interface CopiesFileEvents {
  refused?: (path: string, why: string) => void;
  failed?: (path: string, error: unknown) => void;
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** The workspace-relative path of the copies file for `id`. */
export function copiesPath(id: CopiesIdentity): string {
  const [area, sha16] = romDirSegments(id.sha256);
  return `analysis/generated/${area}/${sha16}/${FOLDER}/${id.processor}-copies.json`;
}

/** The file's text for `copies` of `id`. */
export function encodeCopiesFile(id: CopiesIdentity, copies: CopyDetection): string {
  const body = JSON.stringify({ format: FORMAT, version: VERSION, ...id, copies });
  return `${body}\n${sha(body)}\n`;
}

/** The copies in `text` when it is a sound file of `id`, else why not. */
export function decodeCopiesFile(text: string, id: CopiesIdentity): CopyDetection | string {
  const lines = text.split('\n');
  if (lines.length !== 3 || lines[2] !== '') return 'not two lines';
  const [body, sum] = lines as [string, string];
  if (sha(body) !== sum) return 'its checksum does not hold';
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(body) as Record<string, unknown>;
  } catch {
    return 'not JSON';
  }
  if (typeof o !== 'object' || o === null || o.format !== FORMAT || o.version !== VERSION)
    return 'not a copies file of this version';
  if (o.engine !== id.engine) return 'written by another version of the analysis';
  if (o.sha256 !== id.sha256 || o.size !== id.size || o.processor !== id.processor)
    return "another ROM's or processor's";
  const copies = o.copies as CopyDetection;
  return copiesWellFormed(copies) ? copies : 'malformed start-up copies';
}

/** The copies kept for `id`, or null (none, refused, unreadable). Never throws. */
export async function loadCopies(
  workspace: Workspace,
  id: CopiesIdentity,
  events: CopiesFileEvents,
): Promise<CopyDetection | null> {
  const path = copiesPath(id);
  let text: string;
  try {
    const opened = await workspace.openFile(path);
    try {
      const size = (await opened.handle.stat()).size;
      if (size > COPIES_FILE_MAX_BYTES) {
        events.refused?.(path, `${size} bytes, over ${COPIES_FILE_MAX_BYTES}`);
        return null;
      }
      text = (await readWhole(opened.handle, size)).toString('utf8');
    } finally {
      await opened.handle.close();
    }
  } catch (error) {
    if (!(error instanceof ReMcpError && error.code === 'not-found')) events.failed?.(path, error);
    return null;
  }
  const copies = decodeCopiesFile(text, id);
  if (typeof copies === 'string') {
    events.refused?.(path, copies);
    return null;
  }
  return copies;
}

/** Writes `copies` for `id`, atomically. Never throws: a failure is reported. */
export async function saveCopies(
  workspace: Workspace,
  id: CopiesIdentity,
  copies: CopyDetection,
  events: CopiesFileEvents,
): Promise<void> {
  try {
    const [area, sha16] = romDirSegments(id.sha256) as [string, string];
    const romDir = await workspace.outputDir('analysis/generated', [area, sha16]);
    try {
      const dir = await romDir.child(FOLDER);
      try {
        await dir.writeAtomic(`${id.processor}-copies.json`, encodeCopiesFile(id, copies));
      } finally {
        await dir.close();
      }
    } finally {
      await romDir.close();
    }
  } catch (error) {
    events.failed?.(copiesPath(id), error);
  }
}
