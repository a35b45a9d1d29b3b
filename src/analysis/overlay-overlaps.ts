// Which overlays of one processor can occupy the same RAM: two records overlap when their runtime
// footprints (initialized + BSS, half-open) intersect. Correlation and function discovery need this
// to know when a runtime address cannot be pinned to one overlay.
import type { Overlay } from '../formats/nds/index.js';

interface OverlayOverlaps {
  /** Exact number of other records overlapping this one. */
  count: number;
  /** Their IDs in ascending start order, at most `maxListed`. */
  ids: number[];
}

/** For each record of `overlays` (one processor's table), the records whose footprint overlaps it. */
export function overlayOverlaps(
  overlays: readonly Overlay[],
  maxListed: number,
): Map<Overlay, OverlayOverlaps> {
  const sorted = [...overlays].sort((a, b) => a.initialized.start - b.initialized.start);
  const result = new Map(overlays.map((o) => [o, { count: 0, ids: [] as number[] }]));
  // Sweep over sorted starts: the inner loop stops at the first overlay starting past the end.
  for (let i = 0; i < sorted.length; i++) {
    const a = sorted[i]!;
    for (let j = i + 1; j < sorted.length && sorted[j]!.initialized.start < a.bss.end; j++) {
      const b = sorted[j]!;
      if (b.bss.end <= b.initialized.start || a.bss.end <= a.initialized.start) continue;
      for (const [x, y] of [
        [a, b],
        [b, a],
      ] as const) {
        const entry = result.get(x)!;
        entry.count++;
        if (entry.ids.length < maxListed) entry.ids.push(y.id);
      }
    }
  }
  return result;
}
