// The program maps kept in the workspace, so a later process (a CLI call, a restarted server) reads a
// map back instead of walking the program again: analysis/generated/nds/<sha16>/program-maps/
// <processor>-<evidence>.map, one file per ROM, processor and evidence set (map-file.ts lays it out),
// followed by the SHA-256 of everything before it. Only complete maps are written. A file is read
// back only when its checksum holds and it names this engine (src/engine.ts), this ROM, processor and
// evidence set; anything else (a damaged, truncated or stale file, one of other code) is set aside
// with the reason and the map is built again, and the file written anew. Neither a failed read nor a
// failed write ever fails the question that asked for the map. The start-up copies found for a ROM's
// processor are kept beside the maps the same way (copies-file.ts).
import { createHash } from 'node:crypto';
import { driveSteps } from '../../core/cooperative.js';
import { ReMcpError } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import { readWholeHashed } from '../../workspace/read-whole.js';
import { romDirSegments } from '../../workspace/rom-dir.js';
import type { Workspace } from '../../workspace/workspace.js';
import type { CopyDetection } from '../evidence/copied-code.js';
import type { BuiltMap } from './build.js';
import type { ComponentSet } from './components.js';
import { type CopiesIdentity, loadCopies, saveCopies } from './copies-file.js';
import { encodeMapFile, type MapFileContents, type MapFileIdentity, readMapFile } from './map-file.js';

/** The largest map file read back (a 64 MiB program's map is about 400 MiB; its build would be longer). */
const MAP_FILE_MAX_BYTES = 1024 * 1024 * 1024;
const FOLDER = 'program-maps';
const CHECKSUM_BYTES = 32;

/** What the store did, for the logs and the tests: the last refusal of a file, by name. */
interface MapStoreEvents {
  refused?: (path: string, why: string) => void;
  written?: (path: string) => void;
  failed?: (path: string, error: unknown) => void;
}

export class MapStore {
  constructor(
    private readonly workspace: Workspace,
    private readonly events: MapStoreEvents = {},
  ) {}

  /** The map file's name for a processor and evidence set. */
  static fileName(processor: Processor, evidence: readonly string[]): string {
    const ids = createHash('sha256')
      .update([...evidence].sort().join(','))
      .digest('hex')
      .slice(0, 16);
    return `${processor}-${ids}.map`;
  }

  /** The workspace-relative path of the map file for `id`. */
  static path(id: MapFileIdentity): string {
    const [area, sha16] = romDirSegments(id.sha256);
    return `analysis/generated/${area}/${sha16}/${FOLDER}/${MapStore.fileName(id.processor, id.evidence)}`;
  }

  /**
   * The file for `id` read back and checked (container, checksum, identity), or null when there is
   * none or it is refused. `reserve` is asked for the file's size before it is read. Never throws but
   * for cancellation.
   */
  async load(
    id: MapFileIdentity,
    reserve: (bytes: number) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<MapFileContents | null> {
    const path = MapStore.path(id);
    let bytes: Buffer;
    let sum: string;
    try {
      const opened = await this.workspace.openFile(path);
      try {
        const size = (await opened.handle.stat()).size;
        if (size > MAP_FILE_MAX_BYTES) {
          this.events.refused?.(path, `${size} bytes, over ${MAP_FILE_MAX_BYTES}`);
          return null;
        }
        await reserve(size);
        // Hashed as it is read: everything but the checksum at its end.
        ({ bytes, sha256: sum } = await readWholeHashed(
          opened.handle,
          size,
          Math.max(0, size - CHECKSUM_BYTES),
          signal,
        ));
        if (bytes.length !== size) {
          this.events.refused?.(path, 'it changed while it was read');
          return null;
        }
      } finally {
        await opened.handle.close();
      }
    } catch (error) {
      if (error instanceof ReMcpError && error.code === 'cancelled') throw error;
      if (!(error instanceof ReMcpError && error.code === 'not-found')) this.events.failed?.(path, error);
      return null;
    }
    if (bytes.length < CHECKSUM_BYTES) {
      this.events.refused?.(path, 'shorter than its checksum');
      return null;
    }
    const body = bytes.subarray(0, bytes.length - CHECKSUM_BYTES);
    if (sum !== bytes.subarray(body.length).toString('hex')) {
      this.events.refused?.(path, 'its checksum does not hold');
      return null;
    }
    const contents = readMapFile(body, id);
    if (typeof contents === 'string') {
      this.events.refused?.(path, contents);
      return null;
    }
    return contents;
  }

  /** The start-up copies kept for `id` (copies-file.ts), or null. Never throws. */
  loadCopies(id: CopiesIdentity): Promise<CopyDetection | null> {
    return loadCopies(this.workspace, id, this.events);
  }

  /** Keeps the start-up copies found for `id` (copies-file.ts). Never throws. */
  saveCopies(id: CopiesIdentity, copies: CopyDetection): Promise<void> {
    return saveCopies(this.workspace, id, copies, this.events);
  }

  /** Reports the file for `id` refused for a reason found past its container (map-file-walk.ts). */
  refuse(id: MapFileIdentity, why: string): void {
    this.events.refused?.(MapStore.path(id), why);
  }

  /** Writes `built` (a complete map) for `id`, atomically. Never throws: a failure is reported. */
  async save(
    built: BuiltMap,
    set: ComponentSet,
    copies: CopyDetection | null,
    id: MapFileIdentity,
  ): Promise<void> {
    const path = MapStore.path(id);
    try {
      if (built.status !== 'complete') throw new ReMcpError('internal-error', 'only complete maps are kept');
      const chunks = await driveSteps(encodeMapFile(built, set, copies, id));
      const [area, sha16] = romDirSegments(id.sha256) as [string, string];
      const romDir = await this.workspace.outputDir('analysis/generated', [area, sha16]);
      try {
        const dir = await romDir.child(FOLDER);
        try {
          await dir.writeAtomic(MapStore.fileName(id.processor, id.evidence), withDigest(chunks));
        } finally {
          await dir.close();
        }
      } finally {
        await romDir.close();
      }
      this.events.written?.(path);
    } catch (error) {
      this.events.failed?.(path, error);
    }
  }
}

/** Bytes hashed and handed to the file at a time while a map is kept. */
const SAVE_PIECE = 1 << 20;

/**
 * The file's sections in pieces, then the SHA-256 of them all. Hashed as the file is written, piece by
 * piece, between writes: a 12 MiB program's map is some hundred megabytes, whose hashing and copying
 * into one buffer held the server's event loop for 0.4-0.7 s (pings unanswered) when done at once.
 */
async function* withDigest(chunks: readonly Uint8Array[]): AsyncGenerator<Uint8Array> {
  const hash = createHash('sha256');
  for (const c of chunks)
    for (let at = 0; at < c.length; at += SAVE_PIECE) {
      const piece = c.subarray(at, Math.min(c.length, at + SAVE_PIECE));
      hash.update(piece);
      yield piece;
    }
  yield hash.digest();
}
