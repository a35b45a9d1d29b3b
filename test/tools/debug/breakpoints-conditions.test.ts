// Conditional breakpoints against the real DeSmuME 0.9.11 over MCP: the server passes over the hits
// whose condition does not hold, counts them, and gives up (saying so) at its bounds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatAddress as hex } from '../../../src/core/vocabulary.js';
import { desmumeMcpSuite } from '../../kit/desmume/mcp-suite.js';

const suite = desmumeMcpSuite('re-mcp-desmume-cond-');
const { started, counter } = suite;

type Run = {
  state: string;
  stop: { pc: string; breakpointId: string | null; hitCount: number } | null;
  skippedHits: number;
  conditionMet: boolean | null;
  gaveUp: string | null;
};

describe('conditional breakpoints (real DeSmuME)', () => {
  it('passes over non-matching hits, honours skipHits, gives up at maxSilentResumes', async () => {
    const h = await started();
    const s = suite.rom.symbols;
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(s.armIncrement),
      mode: 'arm',
    });
    const id = bp.breakpoint.id;

    // Memory condition: counter_arm (read at the stop, before the increment) equals 5: the sixth hit.
    const set = await h.ok<{ condition: { text: string; memory: Array<{ address: string }> } }>(
      'desmume_breakpoint_condition',
      { id, condition: { memory: [{ address: hex(s.counterArm), size: 4, op: 'eq', value: 5 }] } },
    );
    assert.equal(set.condition.memory[0]!.address, hex(s.counterArm));
    const r1 = await h.ok<Run>('desmume_continue', { captureContext: false });
    assert.equal(r1.state, 'stopped');
    assert.equal(r1.stop!.breakpointId, id);
    assert.equal(r1.conditionMet, true);
    assert.equal(r1.skippedHits, 5);
    assert.equal(r1.gaveUp, null);
    assert.equal(r1.stop!.hitCount, 6);
    assert.equal(await counter(h, s.counterArm), 5);

    // Register condition plus skipHits: r0 holds counter_thumb's address on every later entry
    // (left by the Thumb increment); skip 3 matching hits, stop on the fourth.
    await h.ok('desmume_breakpoint_condition', {
      id,
      condition: { registers: [{ register: 'r0', op: 'eq', value: hex(s.counterThumb) }], skipHits: 3 },
    });
    const r2 = await h.ok<Run>('desmume_continue', { captureContext: false });
    assert.equal(r2.conditionMet, true);
    assert.equal(r2.skippedHits, 3);
    assert.equal(await counter(h, s.counterArm), 9);

    // A condition that never holds: bounded by maxSilentResumes, returned with conditionMet false.
    await h.ok('desmume_breakpoint_condition', {
      id,
      condition: { registers: [{ register: 'pc', op: 'ne', value: hex(s.armIncrement) }] },
    });
    const r3 = await h.ok<Run>('desmume_continue', { captureContext: false, maxSilentResumes: 3 });
    assert.equal(r3.state, 'stopped');
    assert.equal(r3.conditionMet, false);
    assert.equal(r3.gaveUp, 'silent-resume-limit');
    assert.equal(r3.skippedHits, 3);
    assert.equal(await counter(h, s.counterArm), 13);

    // Cleared: every hit stops again, with no condition reported.
    await h.ok('desmume_breakpoint_condition', { id, condition: null });
    const r4 = await h.ok<Run>('desmume_continue', { captureContext: false });
    assert.deepEqual([r4.conditionMet, r4.skippedHits, r4.gaveUp], [null, 0, null]);
    assert.equal(await counter(h, s.counterArm), 14);

    // Refusals: unknown id, unaligned memory, a value that does not fit, too many comparisons.
    assert.equal(
      (await h.fail('desmume_breakpoint_condition', { id: 'arm9-g1-bp99', condition: { skipHits: 1 } })).code,
      'not-found',
    );
    const bad = async (condition: unknown) =>
      (await h.fail('desmume_breakpoint_condition', { id, condition })).code;
    assert.equal(
      await bad({ memory: [{ address: hex(s.counterArm + 1), size: 4, op: 'eq', value: 0 }] }),
      'invalid-argument',
    );
    assert.equal(
      await bad({ memory: [{ address: hex(s.counterArm), size: 1, op: 'eq', value: 256 }] }),
      'invalid-argument',
    );
    assert.equal(await bad({}), 'invalid-argument');
    const many = Array.from({ length: 9 }, () => ({ register: 'r1', op: 'ge', value: 0 }));
    assert.ok(['invalid-argument', 'limit-exceeded'].includes(await bad({ registers: many })));
  });
});
