// What an open, identified ROM offers its users (RomStore.openRom / withRom hand these out). Kept apart
// from the store so the decoded-image cache and the debugger can name it without importing the store.
import type { NdsRomModel } from '../formats/nds/index.js';

export interface RomIdentity {
  sha256: string;
  size: number;
}

export interface RomHandle {
  /** Workspace-relative path as resolved on disk. */
  path: string;
  absolute: string;
  identity: RomIdentity;
  model: NdsRomModel;
  /** Re-stats the file (cheap); rehashes only when the stat changed; throws 'rom-changed' if the bytes did. */
  verifyUnchanged(signal?: AbortSignal): Promise<void>;
  /**
   * Strict: whether the open file still has the size, times and identity it had when it was identified
   * (any write since changes its modification and change times), whatever its bytes are now. For work
   * that used the bytes read meanwhile without hashing them again.
   */
  unmodifiedSinceIdentified(): Promise<boolean>;
  /** Reads physical ROM bytes (bounds-checked). Callers verify identity afterwards (withRom does). */
  readBytes(offset: number, length: number): Uint8Array;
  /**
   * Streams a large read into `into` from `position` through the same checked handle (async, so it runs
   * in the thread pool while the caller works on the previous chunk); returns the bytes read (0 at EOF).
   */
  readChunk(into: Uint8Array, position: number): Promise<number>;
  /** Closes the file handle (withRom does); reads after it are refused. */
  close(): Promise<void>;
}
