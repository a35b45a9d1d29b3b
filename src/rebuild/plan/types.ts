// The shapes of a plan: what the planner hands the build, the verification, the evidence and the
// patches (the plan itself), and what it is given (the source reader, the loaded artifacts).
import type { ManifestOperation } from '../manifest.js';

export interface LoadedArtifact {
  path: string;
  sha256: string;
  bytes: Uint8Array;
}

/** A byte range of the output the build writes, and who owns it. */
export interface Piece {
  offset: number;
  bytes: Uint8Array;
  owner: string;
}

export interface PlannedOperation {
  id: string;
  op: ManifestOperation['op'];
  component: string | null;
  fileId: number | null;
  path: string | null;
  /** Where the operation's bytes land in the output. */
  output: { start: string; end: string };
  length: number;
  /** For fixed edits: the source range it replaces. */
  replaced: { start: string; end: string } | null;
  beforeSha256: string | null;
  afterSha256: string;
  /** replace-overlay: SHA-256 of the decoded (runtime) image the stored bytes must decode to. */
  decodedSha256?: string;
  /**
   * Relocating operations (v2 replace-file, replace-overlay): the payload's old source range, and
   * whether it was zeroed (owned by the operation) or kept because something else refers to it.
   */
  oldBytes?: { start: string; end: string; zeroed: boolean; keptBecause?: string };
}

export interface ResolvedPlan {
  engine: string;
  formatVersion: 1 | 2;
  buildId: string;
  source: { sha256: string; size: number };
  output: { size: number; romName: string };
  operations: PlannedOperation[];
  headerRewrite: Array<{ field: string; before: string; after: string }>;
  /** Rebuilt tables appended to the output. */
  tables: Array<{
    table: 'fat' | 'fnt' | 'arm9-overlay-table' | 'arm7-overlay-table';
    start: string;
    end: string;
    sha256: string;
  }>;
  /** Overlay records the plan rewrites (in rebuilt, appended overlay tables). */
  overlayRecords: Array<{
    processor: 'arm9' | 'arm7';
    id: number;
    tableIndex: number;
    compressedSize: number;
    flags: number;
    /** The decoded image's size, and the BSS that keeps the runtime range where it was. */
    ramSize: number;
    bssSize: number;
  }>;
  /** Final FAT (every file ID's output range). */
  fat: Array<{ start: string; end: string }>;
  deviceCapacity: number;
}

export interface Plan {
  resolved: ResolvedPlan;
  /** Non-overlapping, sorted by offset. */
  pieces: Piece[];
  /** Output ranges inside the source prefix the plan may change (attribution). */
  ownedPrefix: Array<{ start: number; end: number; owner: string }>;
}

export type SourceRead = (offset: number, length: number) => Uint8Array;
