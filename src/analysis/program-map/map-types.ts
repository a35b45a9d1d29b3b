// The shapes the whole-program map's queries hand out (map.ts re-exports them: its public surface).
import type { ArmMode } from '../../arm/types.js';
import type { MapComponent } from './components.js';
import type { MapFunction } from './function-record.js';
import type { MapRefKind } from './refs.js';
import type { ByteClassName, EntryEvidence, Tier } from './types.js';
import type { MapBlock } from './walker.js';

/** A function entry (or a refused candidate) as the map knows it. */
export interface MapEntryInfo {
  key: string;
  /** The walk could not start there (data or other code): no entry, its evidence kept. */
  refused: boolean;
  tier: Tier;
  evidence: readonly EntryEvidence[];
}

export interface UnresolvedCounts {
  /** Calls whose target lies in no component (code the map cannot see). */
  unmapped: number;
  /** Calls into a range several overlays share. */
  ambiguous: number;
  /** Calls into BSS or an undecodable component. */
  runtimeOnly: number;
  /** Register calls whose target no evidence gives. */
  indirectCalls: number;
  /** Indirect branches the walk could not resolve (not returns, not bounded switches). */
  indirectBranches: number;
}

export interface MapCoverage {
  lowestTier: Tier;
  executableBytes: number;
  /** Bytes classified (code or positively non-code) at an accepted tier. */
  classifiedBytes: number;
  codeBytes: number;
  /** Bytes nothing classified. */
  unclassifiedBytes: number;
  /** Bytes classified only at a tier below the lowest accepted. */
  belowTierBytes: number;
  /** Bytes of components that could not be read (a compressed overlay that does not decode). */
  unavailableBytes: number;
  unresolved: UnresolvedCounts;
  truncated: boolean;
  /**
   * True only when nothing the answer could have missed is left (see notDefinitive otherwise): no byte
   * unclassified or classified only below the tier, none judged non-code by the sweep alone, no
   * component unreadable, no call or branch whose target is unknown or outside the map.
   */
  definitive: boolean;
  notDefinitive: string[];
}

export interface MapXref {
  from: number;
  to: number;
  kind: MapRefKind;
  component: MapComponent;
  mode: ArmMode | 'data';
  tier: Tier;
  conditional: boolean;
  /** literal-value: the literal slot. */
  slot: number | null;
  /** table-entry / data-word: the first word of the table the reference sits in. */
  table: number | null;
  /** table-entry / data-word: the instructions that load the table's address. */
  loadedBy: number[];
}

export interface MapHolder {
  component: MapComponent;
  byteClass: ByteClassName;
  /** The tier that classified the byte; null when unclassified. */
  tier: Tier | null;
  /** Functions whose bodies hold it (code), or whose code loads it (a literal or a jump table). */
  functions: { fn: MapFunction; via: 'body' | 'literal' | 'jump-table'; block: MapBlock | null }[];
}

/**
 * What componentBytes, coverage and gaps answer from: counted once when the map is made, in slices,
 * so a question about a 12 MiB program does not walk its 12 million bytes (and its calls and blocks)
 * on the event loop.
 */
export interface Summary {
  /** Per component: bytes by class and tier rank, at class * 4 + rank (rank 3: no tier). */
  counts: Uint32Array[];
  /**
   * Per component: runs of bytes of one level (the tier rank 0..2, 3 for no tier, 4 for unclassified
   * bytes): a byte is in a gap for a lowest accepted rank below its level. `starts` are offsets.
   */
  runs: { starts: Int32Array; levels: Uint8Array }[];
  /** Per tier rank 0..2: the unresolved calls and indirect branches found at that rank. */
  unresolved: UnresolvedCounts[];
}
