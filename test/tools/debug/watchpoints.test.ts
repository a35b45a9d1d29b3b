// Data watchpoints against the real DeSmuME 0.9.11 over MCP: the stubs' own Z2/Z3/Z4 halt both CPUs
// at the access (probed here: write, read and access on ARM9; write and access on ARM7).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { armSymbol } from '../../kit/arm/index.js';
import { desmumeMcpSuite } from '../../kit/desmume/mcp-suite.js';

const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;

const suite = desmumeMcpSuite('re-mcp-desmume-watch-');
const started = () => suite.started({ arm7: true });

type Run = {
  state: string;
  stop: {
    reason: string;
    pc: string;
    watch: { watchpointId: string | null; access: string; address: string } | null;
  } | null;
};

describe('watchpoints (real DeSmuME)', () => {
  it('stops on write, read and access on ARM9 and on ARM7 writes; refuses outside data RAM', async () => {
    const h = await started();
    const s = suite.rom.symbols;
    // Write watch on counter_thumb: only the Thumb increment's store writes it.
    const w = await h.ok<{ watchpoint: { id: string; address: string; region: string } }>(
      'desmume_watchpoint_add',
      {
        address: hex(s.counterThumb),
      },
    );
    assert.equal(w.watchpoint.address, hex(s.counterThumb));
    assert.equal(w.watchpoint.region, 'main RAM');
    const stops: Run[] = [];
    for (let i = 0; i < 3; i++) stops.push(await h.ok<Run>('desmume_continue', { captureContext: false }));
    for (const r of stops) {
      assert.equal(r.stop!.reason, 'watchpoint');
      assert.deepEqual(r.stop!.watch, {
        watchpointId: w.watchpoint.id,
        access: 'write',
        address: hex(s.counterThumb),
      });
    }
    // Consecutive write stops see the counter one higher each time (a store really happened).
    const value = async () =>
      Buffer.from(
        (await h.ok<{ hex: string }>('desmume_read_memory', { address: hex(s.counterThumb), length: 4 })).hex,
        'hex',
      ).readUInt32LE(0);
    const v1 = await value();
    await h.ok('desmume_continue', { captureContext: false });
    assert.equal(await value(), v1 + 1);
    const removed = await h.ok<{ removed: { hits: number }; active: unknown[] }>(
      'desmume_watchpoint_remove',
      {
        id: w.watchpoint.id,
      },
    );
    assert.equal(removed.removed.hits, 4);
    assert.deepEqual(removed.active, []);

    // Read and access watches on counter_arm.
    for (const access of ['read', 'access'] as const) {
      const r = await h.ok<{ watchpoint: { id: string } }>('desmume_watchpoint_add', {
        address: hex(s.counterArm),
        access,
      });
      const stop = await h.ok<Run>('desmume_continue', { captureContext: false });
      assert.equal(stop.stop!.reason, 'watchpoint');
      assert.equal(stop.stop!.watch!.watchpointId, r.watchpoint.id);
      assert.equal(stop.stop!.watch!.access, access);
      // The PC is inside debug_arm_increment (the only code touching counter_arm after boot).
      const pc = Number.parseInt(stop.stop!.pc, 16);
      assert.ok(pc >= s.armIncrement && pc <= s.armIncrement + 16, `pc ${stop.stop!.pc}`);
      await h.ok('desmume_watchpoint_remove', { id: r.watchpoint.id });
    }

    // ARM7: a write watch on its counter in ARM7 WRAM.
    const arm7Counter = armSymbol(suite.rom.arm7, 'arm7_counter').address;
    assert.equal(
      (await h.fail('desmume_watchpoint_add', { address: hex(arm7Counter) })).code,
      'invalid-argument',
      'ARM7 WRAM is not watchable through the ARM9',
    );
    const w7 = await h.ok<{ watchpoint: { id: string } }>('desmume_watchpoint_add', {
      processor: 'arm7',
      address: hex(arm7Counter),
    });
    const s7 = await h.ok<Run>('desmume_continue', { processor: 'arm7', captureContext: false });
    assert.equal(s7.stop!.reason, 'watchpoint');
    assert.equal(s7.stop!.watch!.watchpointId, w7.watchpoint.id);
    await h.ok('desmume_watchpoint_remove', { processor: 'arm7', id: w7.watchpoint.id });

    // Refusals: outside data RAM, misaligned, unknown id.
    assert.equal(
      (await h.fail('desmume_watchpoint_add', { address: '0x08000000' })).code,
      'invalid-argument',
    );
    assert.equal(
      (await h.fail('desmume_watchpoint_add', { address: hex(s.counterArm + 2) })).code,
      'invalid-argument',
    );
    assert.equal((await h.fail('desmume_watchpoint_remove', { id: 'arm9-g1-wp999' })).code, 'not-found');
  });
});
