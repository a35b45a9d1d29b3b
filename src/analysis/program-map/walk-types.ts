// The words the walk and its resolvers share: a function entry, a request to name one, the pending
// items of a function's walk, why a walk stopped, and the keys places are known by. Pure data.
import type { ArmMode } from '../../arm/types.js';
import type { EdgeKind } from './blocks.js';
import type { MapComponent } from './components.js';
import type { EntryEvidence, Tier } from './types.js';

export interface MapEntry {
  key: string;
  /** Its place in the order entries were named (0, 1, ...). */
  index: number;
  comp: number;
  mode: ArmMode;
  address: number;
  evidence: EntryEvidence[];
  tier: number;
  state: 'new' | 'active' | 'done' | 'refused';
  /** Null until walked. */
  returns: boolean | null;
  block: number;
  /** Why the walk could not start here (the bytes are data or other code). */
  refused: string | null;
  /** Code walked as a root that is no function: code after a call that never returns (a landing pad). */
  orphan: boolean;
}

export interface EmitRequest {
  component: MapComponent;
  address: number;
  mode: ArmMode;
  class: string;
  /** The class's own tier; the entry's tier is the worse of it and the observing code's. */
  classTier: Tier;
  from?: number;
  fromComponent?: number;
  /** Walk the code as a root without naming a function (see MapEntry.orphan). */
  orphan?: boolean;
}

/** One place the walk of a function still has to visit, and how it got there. */
export interface WalkItem {
  comp: number;
  mode: ArmMode;
  address: number;
  /** The block the edge leaves (-1: none). */
  from: number;
  /** Null for the entry itself. */
  kind: EdgeKind | null;
}

/** The walk of one function: its entry, the tier of its code, what it still has to visit. */
export interface FunctionWalk {
  entry: MapEntry;
  tier: number;
  work: WalkItem[];
  /** Literal words this function's code has loaded so far (candidates for a spilled table address). */
  literals: number[];
}

/** Counters of what the walk met but could not follow. */
export interface WalkGaps {
  indirectBranches: number;
  indirectCalls: number;
  conflicts: number;
  decodeStops: number;
  unresolvedSwitches: number;
}

/** The walk stopped at its budget: the map is partial and says so. */
export class WalkStopped extends Error {
  constructor(readonly reason: 'code-byte-limit' | 'time-limit') {
    super(reason);
  }
}

export const unitOf = (mode: ArmMode): 2 | 4 => (mode === 'arm' ? 4 : 2);

export const entryKey = (comp: number, mode: ArmMode, address: number) => `${comp}|${mode}|${address}`;
/** A place of code inside one component as a small integer (below 2^30 for DS addresses): address and mode. */
export const placeKey = (mode: ArmMode, address: number): number => address * 2 + (mode === 'thumb' ? 1 : 0);
