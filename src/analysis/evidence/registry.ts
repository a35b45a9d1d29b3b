// What an evidence class is: an id, the tier it proves at, one line of description, and its detector.
// A detector either sees every block the whole-program walk decodes (onBlock: the call the block ends
// with, its instructions) or runs when the walk of its tier has run dry (onIdle: the map so far),
// naming function entries through emit. A class that establishes components instead (copied-code)
// has neither; the map builder asks it before the walk. The list of classes is in index.ts.
import type { ArmMode } from '../../arm/types.js';
import type { MapComponent } from '../program-map/components.js';
import type { Tier } from '../program-map/types.js';
import type { BlockView, Walker } from '../program-map/walker.js';

export interface IdleCandidate {
  component: MapComponent;
  address: number;
  mode: ArmMode;
  /** The tier of what holds the evidence (the code that loads a literal, a table's own tier). */
  sourceTier: Tier;
  /** Where the evidence sits (the instruction, table word, vector slot). */
  from?: number;
  fromComponent?: number;
  /** Code to walk that is no function (see MapEntry.orphan). */
  orphan?: boolean;
  /**
   * The detector has just probed this candidate as the offer would (no orphan: the same options) and
   * found well-formed code, with nothing walked since: the offer does not probe it again.
   */
  probed?: boolean;
}

export interface IdleContext {
  readonly walker: Walker;
  /** Offers a candidate entry: it becomes one when it is already known or well-formed code starts there. */
  offer(candidate: IdleCandidate): Promise<boolean>;
  /** Classes enabled in this map (a detector may depend on another's facts). */
  readonly enabled: ReadonlySet<string>;
  /** Walks what the offers so far made entries (a sweep sees the gap that is left afterwards). */
  settle(): Promise<void>;
}

export interface EvidenceClass {
  readonly id: string;
  readonly tier: Tier;
  readonly description: string;
  /** The specification's bounded searches support it (the original three classes). */
  readonly bounded: boolean;
  onBlock?(view: BlockView): void;
  /** Returns how many candidates became (or strengthened) entries. */
  onIdle?(ctx: IdleContext): Promise<number>;
  /** Runs once when every tier's walk is done (the sweep labels what is left). */
  onFinish?(ctx: IdleContext): Promise<void>;
}
