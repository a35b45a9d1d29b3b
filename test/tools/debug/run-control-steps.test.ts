// Step over, step out and the mid-Thumb-BL-pair report on the real DeSmuME 0.9.11 over MCP, on the
// probe's Thumb caller (push {lr}; bl debug_thumb_increment; pop {pc}) and its ARM loop; and the
// addresses of desmume_continue's regions and desmume_step_out's returnAddress given by stored names
// (`name`, `name+offset`, a Thumb name's bit 0 from its stored mode), said in the answer, an unknown
// one refused with candidates before anything runs.
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
  it('takes stored names for the regions of continue and the return address of step out', async () => {
    // Full profile: nds_symbols names the probe's code and counters in the running ROM's store.
    const h = await started({}, 'full');
    const s = suite.rom.symbols;
    for (const [address, name, mode] of [
      [s.thumbCaller, 'thumb_caller', 'thumb'],
      [s.thumbIncrement, 'thumb_increment', 'thumb'],
      [s.counterArm, 'counter_arm', 'data'],
    ] as const)
      await h.ok('nds_symbols', { rom: 'debug.nds', action: 'set', address: hex(address), name, mode });
    const after = s.thumbCaller + 6;
    const inner = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: 'thumb_increment',
      mode: 'thumb',
    });

    // continue's regions by name and name+offset: read where the names say, and said so.
    const r = await h.call('desmume_continue', {
      expectedBreakpointId: inner.breakpoint.id,
      regions: [
        { label: 'arm', address: 'counter_arm', length: 4 },
        { label: 'thumb', address: `counter_arm+${s.counterThumb - s.counterArm}`, length: 4 },
      ],
    });
    assert.notEqual(r.isError, true, JSON.stringify(r.content));
    const run = r.structuredContent as {
      stop: { pc: string; breakpointId: string | null };
      context: { regions: Array<{ label: string; address: string; hex: string }> };
    };
    assert.equal(run.stop.pc, hex(s.thumbIncrement));
    assert.deepEqual(
      run.context.regions.map((x) => [x.label, x.address]),
      [
        ['arm', hex(s.counterArm)],
        ['thumb', hex(s.counterThumb)],
      ],
    );
    // The windows hold the counters' live values.
    assert.equal(
      Buffer.from(run.context.regions[1]!.hex.replace(/\s/g, ''), 'hex').readUInt32LE(0),
      await counter(h, s.counterThumb),
    );
    assert.match(
      r.content[0]!.text!,
      new RegExp(
        `^names: regions\\.0\\.address counter_arm = arm9 ${hex(s.counterArm)}; regions\\.1\\.address counter_arm\\+${s.counterThumb - s.counterArm} = arm9 ${hex(s.counterThumb)}`,
      ),
    );
    assert.deepEqual(r._meta?.['re-mcp/names'], [
      {
        argument: 'regions.0.address',
        name: 'counter_arm',
        processor: 'arm9',
        address: hex(s.counterArm),
        overlayId: null,
      },
      {
        argument: 'regions.1.address',
        name: `counter_arm+${s.counterThumb - s.counterArm}`,
        processor: 'arm9',
        address: hex(s.counterThumb),
        overlayId: null,
      },
    ]);
    // capture_stop_context shares the regions: a name there too.
    const ctx = await h.ok<{ context: { regions: Array<{ address: string }> } }>(
      'desmume_capture_stop_context',
      {
        regions: [{ label: 'c', address: 'counter_arm', length: 4 }],
      },
    );
    assert.equal(ctx.context.regions[0]!.address, hex(s.counterArm));

    // Unknown names: typed refusals with candidates, before the target is resumed or run to a return.
    const badRegion = await h.fail('desmume_continue', {
      regions: [{ label: 'x', address: 'counter_armm', length: 4 }],
    });
    assert.equal(badRegion.code, 'not-found');
    assert.match(badRegion.message, /no name "counter_armm" on arm9; similar: counter_arm/);
    const badReturn = await h.call('desmume_step_out', { returnAddress: 'thumb_caler+6' });
    assert.equal(badReturn.isError, true);
    const details = badReturn._meta?.['re-mcp/error'] as {
      code: string;
      details?: { candidates?: string[] };
    };
    assert.equal(details.code, 'not-found');
    assert.ok(details.details?.candidates?.includes('thumb_caller'), JSON.stringify(details));
    const still = await h.ok<{ state: string; stop: { pc: string } | null }>('desmume_wait_for_stop', {
      timeoutMs: 100,
    });
    assert.deepEqual([still.state, still.stop?.pc], ['stopped', hex(s.thumbIncrement)]);

    // step_out to a return address by name+offset: thumb_caller is stored as Thumb, so bit 0 is set
    // (a Thumb return) and the run ends after the BL pair, where LR would have taken it.
    const out = await h.call('desmume_step_out', { returnAddress: 'thumb_caller+6' });
    assert.notEqual(out.isError, true, JSON.stringify(out.content));
    const o = out.structuredContent as unknown as Step;
    assert.equal(o.returnAddressSource, 'caller');
    assert.deepEqual(
      [o.returned, o.endedBy, o.stop!.pc, o.returnMode],
      [true, 'returned', hex(after), 'thumb'],
    );
    assert.equal(o.returnAddress, hex(after));
    assert.match(
      out.content[0]!.text!,
      new RegExp(`^names: returnAddress thumb_caller\\+6 = arm9 ${hex(after + 1)}`),
    );

    // By a bare name: a Thumb return at thumb_increment's first instruction (its breakpoint removed
    // first, so that only the temporary one can stop there).
    await h.ok('desmume_breakpoint_remove', { id: inner.breakpoint.id });
    const bare = await h.call('desmume_step_out', { returnAddress: 'thumb_increment', timeoutMs: 2000 });
    assert.notEqual(bare.isError, true, JSON.stringify(bare.content));
    const b = bare.structuredContent as unknown as Step;
    assert.deepEqual([b.returnAddress, b.returnMode, b.state], [hex(s.thumbIncrement), 'thumb', 'stopped']);
    assert.match(
      bare.content[0]!.text!,
      new RegExp(`^names: returnAddress thumb_increment = arm9 ${hex(s.thumbIncrement + 1)}`),
    );
  });
});
