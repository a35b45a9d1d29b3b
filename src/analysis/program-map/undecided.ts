// Places of a walk that a probe could not decide: a candidate entry too long to check within the
// probe's bound, recorded per component. The sweep's last pass leaves an unclassified run holding one
// a gap (it may be code) instead of calling its bytes data.
import type { MapComponent } from './components.js';

export class UndecidedPlaces {
  /** Per component index: the addresses of the undecided candidates. */
  private readonly at: Set<number>[] = [];

  /** Records that the candidate at `address` of `comp` could not be checked within the probe's bound. */
  add(comp: MapComponent, address: number): void {
    let set = this.at[comp.index];
    if (!set) {
      set = new Set();
      this.at[comp.index] = set;
    }
    set.add(address);
  }

  /** Whether some undecided candidate of `comp` lies in [start, end). */
  within(comp: MapComponent, start: number, end: number): boolean {
    for (const a of this.at[comp.index] ?? []) if (a >= start && a < end) return true;
    return false;
  }
}
