// A memory budget whose peak reservation is recorded, for tests that check what concurrent calls held.
import { MemoryBudget } from '../../src/core/memory-budget.js';

export function peakTrackedBudget(totalBytes: number): { memory: MemoryBudget; peak: () => number } {
  const memory = new MemoryBudget(totalBytes);
  let peak = 0;
  const reserve = memory.reserve.bind(memory);
  memory.reserve = async (...args) => {
    const r = await reserve(...args);
    peak = Math.max(peak, memory.reserved);
    return r;
  };
  return { memory, peak: () => peak };
}
