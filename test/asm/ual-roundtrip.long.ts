// The long run of ual-roundtrip.test.ts (npm run test:fuzz-long): every Thumb halfword and 2,000 BL
// pairs, and 40,000 random ARM words, on both processors, disassembled by our decoder and assembled
// back; each comes back exact or as one of the listed EXCEPTIONS (round-trip.ts). Prints the figures.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { armPiece, branchPairs, roundTrip, thumbPiece, unexplained, words } from './round-trip.js';

for (const processor of ['arm9', 'arm7'] as const) {
  test(`${processor}: every Thumb halfword and 40,000 ARM words come back exact or as a listed exception`, async () => {
    const outcomes = [
      ...(await roundTrip(
        [thumbPiece([...Array.from({ length: 0x10000 }, (_, i) => i), ...branchPairs(91, 2000)], 0x02000000)],
        processor,
      )),
      ...(await roundTrip([armPiece(words(0xa11 + processor.length, 40_000, true), 0x02100000)], processor)),
    ];
    const { wrong, used } = unexplained(outcomes);
    const exact = outcomes.filter((o) => o.result === 'exact').length;
    console.log(`${processor}: ${outcomes.length} instructions, ${exact} exact`, Object.fromEntries(used));
    assert.deepEqual(wrong.slice(0, 20), [], `${wrong.length} outcome(s) unexplained`);
  });
}
