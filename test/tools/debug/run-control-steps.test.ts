// Step over, step out and the mid-Thumb-BL-pair report on the real DeSmuME 0.9.11 over MCP, on the
// probe's Thumb caller (push {lr}; bl debug_thumb_increment; pop {pc}) and its ARM loop.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatAddress as hex } from '../../../src/core/vocabulary.js';
import { desmumeMcpSuite } from '../../kit/desmume/mcp-suite.js';

const suite = desmumeMcpSuite('re-mcp-desmume-step-');
const { started, counter } = suite;

type Step = {
  state: string;
  stop: { pc: string; mode: string; breakpointId: string | null } | null;
  returned: boolean;
  endedBy: string;
  returnAddress: string;
  returnMode: string;
  call: { kind: string; returnAddress: string } | null;
  startedMidThumbBlPair: boolean;
  returnAddressSource?: string;
};

describe('step over / step out (real DeSmuME)', () => {
  it('reports the mid-pair stop, steps over BL pairs and ARM BL, steps out, and ends at other stops and deadlines', async () => {
    const h = await started();
    const s = suite.rom.symbols;
    const prefix = s.thumbCaller + 2;
    const after = s.thumbCaller + 6;
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(prefix),
      mode: 'thumb',
    });
    await h.ok('desmume_continue', { captureContext: false });

    // One step from the BL prefix stops on its suffix, inside the call: said explicitly.
    const one = await h.ok<{
      trace: Array<{ pc: string; midThumbBlPair: boolean }>;
      midThumbBlPair: boolean;
    }>('desmume_step_instruction', {});
    assert.deepEqual(one.trace, [{ pc: hex(prefix + 2), mode: 'thumb', midThumbBlPair: true }]);
    assert.equal(one.midThumbBlPair, true);

    // Step over from the middle of the pair: the call runs to its return.
    const thumbBefore = await counter(h, s.counterThumb);
    const mid = await h.ok<Step>('desmume_step_over', {});
    assert.equal(mid.startedMidThumbBlPair, true);
    assert.deepEqual(mid.call, { kind: 'thumb-bl-suffix', returnAddress: hex(after) });
    assert.equal(mid.returned, true);
    assert.equal(mid.stop!.pc, hex(after));
    assert.equal(mid.stop!.mode, 'thumb');
    assert.equal(await counter(h, s.counterThumb), thumbBefore + 1);

    // Step over from the prefix: the whole pair.
    await h.ok('desmume_continue', { captureContext: false });
    const pair = await h.ok<Step>('desmume_step_over', {});
    assert.deepEqual(pair.call, { kind: 'thumb-bl-pair', returnAddress: hex(after) });
    assert.equal(pair.returned, true);
    assert.equal(pair.stop!.pc, hex(after));
    assert.equal(await counter(h, s.counterThumb), thumbBefore + 2);
    // The temporary breakpoint is gone; only the user's remains.
    const list = await h.ok<{ breakpoints: Array<{ id: string }> }>('desmume_breakpoint_list', {});
    assert.deepEqual(
      list.breakpoints.map((b) => b.id),
      [bp.breakpoint.id],
    );
    // A plain instruction is one step.
    const plain = await h.ok<Step>('desmume_step_over', {});
    assert.equal(plain.call, null);
    // One step, not a return: said so.
    assert.deepEqual([plain.returned, plain.endedBy], [false, 'stepped']);

    // Another breakpoint inside the call ends the step over there, and says so.
    const inner = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(s.thumbIncrement),
      mode: 'thumb',
    });
    await h.ok('desmume_continue', { captureContext: false, expectedBreakpointId: bp.breakpoint.id });
    const interrupted = await h.ok<Step>('desmume_step_over', {});
    assert.equal(interrupted.endedBy, 'other-stop');
    assert.equal(interrupted.returned, false);
    assert.equal(interrupted.stop!.breakpointId, inner.breakpoint.id);

    // Step out of the leaf Thumb function: LR is the return into the caller.
    const out = await h.ok<Step>('desmume_step_out', {});
    assert.equal(out.returnAddressSource, 'lr');
    assert.equal(out.returned, true);
    assert.equal(out.stop!.pc, hex(after));
    assert.equal(out.returnMode, 'thumb');

    // The same breakpoint inside the call with a condition that does not hold: the step over passes
    // it, as desmume_continue would, and reaches the return.
    await h.ok('desmume_breakpoint_condition', {
      id: inner.breakpoint.id,
      condition: { registers: [{ register: 'r0', op: 'eq', value: '0xdeadbeef' }] },
    });
    await h.ok('desmume_continue', { captureContext: false, expectedBreakpointId: bp.breakpoint.id });
    const passed = await h.ok<Step>('desmume_step_over', {});
    assert.deepEqual([passed.returned, passed.endedBy, passed.stop!.pc], [true, 'returned', hex(after)]);
    await h.ok('desmume_breakpoint_remove', { id: inner.breakpoint.id });
    await h.ok('desmume_breakpoint_remove', { id: bp.breakpoint.id });

    // ARM BL in the loop.
    const loop = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(s.debugLoop),
      mode: 'arm',
    });
    await h.ok('desmume_continue', { captureContext: false });
    const armBefore = await counter(h, s.counterArm);
    const arm = await h.ok<Step>('desmume_step_over', {});
    assert.deepEqual(arm.call, { kind: 'arm-bl', returnAddress: hex(s.debugLoop + 4) });
    assert.equal(arm.stop!.pc, hex(s.debugLoop + 4));
    assert.equal(await counter(h, s.counterArm), armBefore + 1);
    await h.ok('desmume_breakpoint_remove', { id: loop.breakpoint.id });

    // A return address never reached: bounded, paused again, reported.
    const never = await h.ok<Step>('desmume_step_out', { returnAddress: hex(s.start), timeoutMs: 300 });
    assert.equal(never.endedBy, 'deadline');
    assert.equal(never.state, 'stopped');
    assert.equal(never.returned, false);
    const after2 = await h.ok<{ breakpoints: unknown[] }>('desmume_breakpoint_list', {});
    assert.equal(after2.breakpoints.length, 0);
    // Outside the executable allowlist: refused.
    assert.equal(
      (await h.fail('desmume_step_out', { returnAddress: '0x02300000' })).code,
      'invalid-argument',
    );
  });
});
