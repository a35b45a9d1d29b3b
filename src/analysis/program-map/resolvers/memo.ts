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

/** Answers per component and placeKey. */
class PlaceMemo<T = boolean> {
  private byComp: (Map<number, T> | undefined)[] = [];
  get(comp: number, key: number): T | undefined {
    return this.byComp[comp]?.get(key);
  }
  set(comp: number, key: number, value: T): void {
    let m = this.byComp[comp];
    if (m === undefined) {
      m = new Map();
      this.byComp[comp] = m;
    }
    m.set(key, value);
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
    const key = placeKey('thumb', address);
    let foreign = this.frames.get(comp.index, key);
    if (foreign === undefined) {
      foreign = restoresForeignFrame(comp, address, this.processor);
      this.frames.set(comp.index, key, foreign);
    }
    return foreign;
  }

  /** Whether the routine at `address` is a switch dispatch helper (for a call returning to `ret`). */
  dispatchHelper(comp: MapComponent, address: number, mode: ArmMode, ret: number, retMode: ArmMode): boolean {
    // A helper computes its return from LR whoever calls it; a function returns to LR: one answer per routine.
    const key = placeKey(mode, address);
    let helper = this.helpers.get(comp.index, key);
    if (helper === undefined) {
      // Only a routine that reads LR as a value before its first branch can compute a return address
      // from it; the run that shows where it goes is for those (readsLrEarly reads up to that branch).
      helper =
        readsLrEarly(decodeAt(comp, address, mode, this.processor, HELPER_PREFIX, true)) &&
        isDispatchHelper(this.set, comp, address, mode, ret, retMode, this.processor);
      this.helpers.set(comp.index, key, helper);
    }
    return helper;
  }

  /** The register a `bx rN` stub at `address` jumps through, or null (stubRegister, once per routine). */
  stubRegister(comp: MapComponent, address: number, mode: ArmMode): string | null {
    const key = placeKey(mode, address);
    let reg = this.stubs.get(comp.index, key);
    if (reg === undefined) {
      reg = stubRegister(comp, address, mode, this.processor);
      this.stubs.set(comp.index, key, reg);
    }
    return reg;
  }

  /** Where a mode-switch veneer at `address` lands, or null (veneerLanding, once per routine). */
  veneerLanding(comp: MapComponent, address: number, mode: ArmMode): Landing {
    const key = placeKey(mode, address);
    let landing = this.landings.get(comp.index, key);
    if (landing === undefined) {
      landing = veneerLanding(this.set, comp, address, mode, this.processor);
      this.landings.set(comp.index, key, landing);
    }
    return landing;
  }

  clear(): void {
    this.helpers.clear();
    this.frames.clear();
    this.stubs.clear();
    this.landings.clear();
  }
}
