// Answers about a routine that every call of it asks again (is it a long-branch continuation, a switch
// dispatch helper, a `bx rN` stub, a mode-switch veneer), kept per component and place for one walk;
// the probes ask them too.
import type { ArmMode } from '../../../arm/types.js';
import type { Processor } from '../../../core/vocabulary.js';
import type { ComponentSet, MapComponent } from '../components.js';
import {
  isDispatchHelper,
  readsLrEarly,
  restoresForeignFrame,
  stubRegister,
  veneerLanding,
} from '../idioms.js';
import { decodeAt } from '../instructions.js';
import { placeKey } from '../walk-types.js';

/** Instructions of a callee looked at for a read of LR before the dispatch-helper run. */
const HELPER_PREFIX = 8;

/** Answers per component and placeKey (an answer is never undefined). */
class PlaceMemo<T = boolean> {
  private byComp: (Map<number, T> | undefined)[] = [];
  /** The answer kept for `comp` and `key`, or `make`'s, kept. */
  of(comp: number, key: number, make: () => T): T {
    let m = this.byComp[comp];
    if (m === undefined) {
      m = new Map();
      this.byComp[comp] = m;
    }
    let value = m.get(key);
    if (value === undefined) {
      value = make();
      m.set(key, value);
    }
    return value;
  }
  clear(): void {
    this.byComp = [];
  }
}

/** Where a veneer lands (veneerLanding's answer). */
type Landing = ReturnType<typeof veneerLanding>;

export class IdiomMemo {
  private readonly helpers = new PlaceMemo();
  private readonly frames = new PlaceMemo();
  private readonly stubs = new PlaceMemo<string | null>();
  private readonly landings = new PlaceMemo<Landing>();

  constructor(
    private readonly set: ComponentSet,
    private readonly processor: Processor,
  ) {}

  /** Whether a Thumb BL to `address` is a long branch (its target restores a foreign frame). */
  longBranchTarget(comp: MapComponent, address: number): boolean {
    return this.frames.of(comp.index, placeKey('thumb', address), () =>
      restoresForeignFrame(comp, address, this.processor),
    );
  }

  /** Whether the routine at `address` is a switch dispatch helper (for a call returning to `ret`). */
  dispatchHelper(comp: MapComponent, address: number, mode: ArmMode, ret: number, retMode: ArmMode): boolean {
    // A helper computes its return from LR whoever calls it; a function returns to LR: one answer per routine.
    // Only a routine that reads LR as a value before its first branch can compute a return address
    // from it; the run that shows where it goes is for those (readsLrEarly reads up to that branch).
    return this.helpers.of(
      comp.index,
      placeKey(mode, address),
      () =>
        readsLrEarly(decodeAt(comp, address, mode, this.processor, HELPER_PREFIX, true)) &&
        isDispatchHelper(this.set, comp, address, mode, ret, retMode, this.processor),
    );
  }

  /** The register a `bx rN` stub at `address` jumps through, or null (stubRegister, once per routine). */
  stubRegister(comp: MapComponent, address: number, mode: ArmMode): string | null {
    return this.stubs.of(comp.index, placeKey(mode, address), () =>
      stubRegister(comp, address, mode, this.processor),
    );
  }

  /** Where a mode-switch veneer at `address` lands, or null (veneerLanding, once per routine). */
  veneerLanding(comp: MapComponent, address: number, mode: ArmMode): Landing {
    return this.landings.of(comp.index, placeKey(mode, address), () =>
      veneerLanding(this.set, comp, address, mode, this.processor),
    );
  }

  clear(): void {
    this.helpers.clear();
    this.frames.clear();
    this.stubs.clear();
    this.landings.clear();
  }
}
