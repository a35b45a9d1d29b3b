// One syntax in and out (src/asm/ual.ts): every instruction of the kit programs (ARM9 and ARM7, ARM
// and Thumb, overlays and ITCM at their run addresses), disassembled by our decoder as
// nds_disassemble_range prints it, assembles back at its address to its own bytes. Then a seeded
// sample of every encoding the decoder accepts (random ARM words, Thumb halfwords, BL pairs, both
// processors): each comes back exact or falls under one of the EXCEPTIONS of round-trip.ts (one text
// for several encodings; Thumb's high-register ADD/MOV of two low registers and MSR without fields,
// read as armips reads them, with a note; PC where it is UNPREDICTABLE, refused), each with its
// reason and what is asserted instead. The long run (ual-roundtrip.long.ts) takes every Thumb halfword.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kitElfPrograms } from '../kit/arm/elf-code.js';
import { armPiece, branchPairs, describe, roundTrip, thumbPiece, unexplained, words } from './round-trip.js';

/**
 * Kit instructions that do not come back as their own bytes, with the reason. None: every
 * instruction of the kit programs assembles back exactly (a change that breaks one fails here).
 */
const KIT_EXCEPTIONS: { program: string; address: number; why: string }[] = [];

test('every instruction of the kit programs assembles back to its own bytes at its address', async () => {
  const seen = { arm9: { arm: 0, thumb: 0 }, arm7: { arm: 0, thumb: 0 } };
  const wrong: string[] = [];
  const programs = kitElfPrograms();
  // One run per processor: its programs' pieces together (each chunk at its own address).
  for (const processor of ['arm9', 'arm7'] as const) {
    const mine = programs.filter((p) => p.processor === processor);
    const outcomes = await roundTrip(
      mine.flatMap((p) => p.pieces.map((x) => ({ ...x, tag: p.name }))),
      processor,
    );
    for (const o of outcomes) {
      seen[processor][o.mode]++;
      const excused = KIT_EXCEPTIONS.some((e) => e.program === o.tag && e.address === o.address);
      if (o.result !== 'exact' && !excused) wrong.push(describe(o));
    }
  }
  assert.deepEqual(wrong.slice(0, 20), [], `${wrong.length} instruction(s) did not come back`);
  // The corpus is what it claims: all four kinds, the realistic programs' tens of thousands.
  assert.ok(seen.arm9.arm > 2400 && seen.arm9.thumb > 30_000, JSON.stringify(seen));
  assert.ok(seen.arm7.arm > 1200 && seen.arm7.thumb > 14_000, JSON.stringify(seen));
});

for (const processor of ['arm9', 'arm7'] as const) {
  test(`${processor}: a sample of every encoding the decoder accepts comes back exact or as a listed exception`, async () => {
    const thumb = Array.from({ length: 0x10000 / 11 }, (_, i) => i * 11);
    const outcomes = [
      ...(await roundTrip([armPiece(words(0x5eed + processor.length, 3000, true), 0x02000000)], processor)),
      ...(await roundTrip([thumbPiece([...thumb, ...branchPairs(77, 300)], 0x02100000)], processor)),
      // The high-register group (ADD, CMP, MOV, BX, BLX) whole: where the exceptions live.
      ...(await roundTrip(
        [
          thumbPiece(
            Array.from({ length: 0x400 }, (_, i) => 0x4400 + i),
            0x02200000,
          ),
        ],
        processor,
      )),
    ];
    const { wrong, used } = unexplained(outcomes);
    assert.deepEqual(wrong.slice(0, 20), [], `${wrong.length} outcome(s) unexplained`);
    assert.ok(outcomes.filter((o) => o.result === 'exact').length > 7000, `${outcomes.length} outcomes`);
    // The exceptions that must show up in such a sample do.
    for (const name of ['one text, several encodings', 'Thumb high-register ADD/MOV of two low registers'])
      assert.ok((used.get(name) ?? 0) > 0, `${name}: ${JSON.stringify([...used])}`);
  });
}
