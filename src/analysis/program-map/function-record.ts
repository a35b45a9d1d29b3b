// One function of a whole-program map as its questions answer it: where it is, how it is known (its
// evidence and tier), how many calls name it, and the shape of its body.
import type { ArmMode } from '../../arm/types.js';
import type { MapComponent } from './components.js';
import type { EntryEvidence, Tier } from './types.js';

export interface MapFunction {
  key: string;
  component: MapComponent;
  address: number;
  mode: ArmMode;
  tier: Tier;
  evidence: EntryEvidence[];
  /** Call instructions that name this entry (direct, through a veneer, or by constant register). */
  callers: number;
  /** Blocks of its body and the entries it tail-branches to. */
  blocks: number;
  /** Code bytes of its body (the literal pools and tables its code reads not counted). */
  bytes: number;
  /** Where its code ends: the end of its last block (exclusive). */
  end: number;
  /** The functions its calls name, each counted once. */
  callees: number;
  tailCalls: readonly string[];
  /** Other ways into its body (labels BL also calls). */
  secondaryEntries: readonly number[];
  /** The function whose code runs into this one (it is a second way into that body), or null. */
  partOf: string | null;
  returns: boolean | null;
}
