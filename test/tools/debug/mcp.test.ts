// The acceptance scenario over MCP stdio against the real DeSmuME 0.9.11, on an NDS ROM built
// from the real compiled ARM code: every step goes through the built server and the shared pipeline.
// Also the refusals the issue lists, and that closing the server takes its emulator down.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { armBytesAt } from '../../kit/arm/index.js';
import {
  type DebugTargetRom,
  desmumeProcesses,
  killDesmumeProcesses,
  writeDebugTargetRom,
} from '../../kit/desmume/index.js';
import { type Harness, makeWorkspace, startServer } from '../../kit/mcp-harness.js';

const hex = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
const u32 = (hexText: string, at = 0) => Buffer.from(hexText, 'hex').readUInt32LE(at);

let workspace: string;
let rom: DebugTargetRom;
const harnesses: Harness[] = [];

async function server(env: Record<string, string> = {}): Promise<Harness> {
  const h = await startServer({ workspace, env: { RE_MCP_PROFILE: 'runtime', ...env } });
  harnesses.push(h);
  return h;
}

/** Polls desmume_status (which takes no lock) until the ARM9 reports `state`, within a bounded deadline. */
async function waitForRunState(h: Harness, state: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const s = await h.ok<{ cpus: Array<{ state: string }> }>('desmume_status', { logBytes: 0 });
    if (s.cpus[0]?.state === state) return;
    assert.ok(Date.now() < deadline, `the ARM9 never reported ${state}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

before(async () => {
  workspace = await makeWorkspace('re-mcp-desmume-mcp-');
  rom = writeDebugTargetRom(join(workspace, 'debug.nds'));
});

// Each test's servers close after it, pass or fail: closing stdin makes the server kill its emulator.
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
  await waitUntil(() => desmumeProcesses(workspace).length === 0, 5_000);
});

after(async () => {
  // Anything still alive outlived its test's server: a failure (cleaned up here all the same).
  const leftovers = killDesmumeProcesses(workspace);
  await rm(workspace, { recursive: true, force: true });
  assert.deepEqual(leftovers, [], 'a DeSmuME process outlived the suite');
});

describe('DeSmuME over MCP (real emulator)', () => {
  it('lists the runtime tools', async () => {
    const h = await server();
    const names = (await h.client.listTools()).tools.map((t) => t.name);
    for (const name of [
      'desmume_start',
      'desmume_status',
      'desmume_stop',
      'desmume_probe_gdb',
      'desmume_wait_for_gdb',
      'desmume_read_register_packet',
      'desmume_read_memory',
      'desmume_breakpoint_add',
      'desmume_breakpoint_remove',
      'desmume_breakpoint_list',
      'desmume_continue',
      'desmume_step_instruction',
      'desmume_pause',
      'desmume_wait_for_stop',
      'desmume_capture_stop_context',
      'desmume_executable_ranges_replace',
    ]) {
      assert.ok(names.includes(name), `${name} missing from tools/list`);
    }
  });

  it('runs the acceptance scenario: ARM and Thumb breakpoints, steps, pause, generations', async () => {
    const h = await server();
    const s = rom.symbols;
    const started = await h.ok<{
      generation: number;
      executableRanges: Array<{ start: string; end: string }>;
    }>('desmume_start', { romPath: 'debug.nds' });
    assert.deepEqual(
      started.executableRanges.map((r) => [r.start, r.end]),
      [[hex(rom.arm9.loadAddress), hex(rom.arm9.loadAddress + rom.arm9.size)]],
    );
    const gdb = await h.ok<{ reachable: boolean; stopReply: string }>('desmume_wait_for_gdb', {});
    assert.equal(gdb.reachable, true);
    assert.equal(gdb.stopReply, 'S02');

    const armBp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      address: hex(s.armIncrement),
      mode: 'arm',
    });
    type Run = {
      state: string;
      stop: { pc: string; mode: string; cpsr: string; breakpointId: string | null; hitCount: number } | null;
      expectedMatched: boolean | null;
      context: { pcWindow: { address: string; hex: string }; registers: { pc: string } } | null;
    };
    const first = await h.ok<Run>('desmume_continue', { expectedBreakpointId: armBp.breakpoint.id });
    assert.equal(first.state, 'stopped');
    assert.equal(first.stop?.pc, hex(s.armIncrement));
    assert.equal(first.stop?.breakpointId, armBp.breakpoint.id);
    assert.equal(first.stop?.hitCount, 1);
    assert.equal(first.expectedMatched, true);
    // The context's PC window holds the real compiled instructions at the breakpoint.
    const window = first.context!.pcWindow;
    const offset = s.armIncrement - Number.parseInt(window.address, 16);
    assert.equal(
      window.hex.slice(offset * 2, offset * 2 + 16),
      Buffer.from(armBytesAt(rom.arm9, s.armIncrement, 8)).toString('hex'),
    );

    const counter = await h.ok<{ hex: string }>('desmume_read_memory', {
      address: hex(s.counterArm),
      length: 8,
    });
    const armBefore = u32(counter.hex, 0);
    const thumbBefore = u32(counter.hex, 4);

    // debug_arm_increment is four straight-line ARM instructions: three steps advance 4 bytes each.
    const stepped = await h.ok<{ completed: number; trace: Array<{ pc: string; mode: string }> }>(
      'desmume_step_instruction',
      { count: 3 },
    );
    assert.equal(stepped.completed, 3);
    assert.deepEqual(
      stepped.trace.map((t) => t.pc),
      [4, 8, 12].map((d) => hex(s.armIncrement + d)),
    );

    const thumbBp = await h.ok<{ breakpoint: { id: string; mode: string } }>('desmume_breakpoint_add', {
      address: hex(s.thumbIncrement),
      mode: 'thumb',
    });
    const second = await h.ok<Run>('desmume_continue', { expectedBreakpointId: thumbBp.breakpoint.id });
    assert.equal(second.stop?.pc, hex(s.thumbIncrement));
    assert.equal(second.stop?.mode, 'thumb');
    assert.equal(Number.parseInt(second.stop!.cpsr, 16) & 0x20, 0x20, 'CPSR T bit set');
    const regs = await h.ok<{ raw: string; registers: { pc: string; mode: string } }>(
      'desmume_read_register_packet',
      {},
    );
    assert.equal(regs.raw.length, 336);
    assert.equal(regs.registers.mode, 'thumb');
    // Text blocks alone carry the data (hosts that show the model only content[]).
    const regsText = (await h.call('desmume_read_register_packet', {})).content[0]?.text ?? '';
    assert.match(regsText, new RegExp(`\\bpc[:=] ?${regs.registers.pc}\\b`));
    const mem = await h.call('desmume_read_memory', { address: hex(s.counterArm), length: 8 });
    const memHex = (mem.structuredContent as { hex: string }).hex;
    assert.match(
      mem.content[0]?.text ?? '',
      new RegExp(`${hex(s.counterArm)}: ${memHex.match(/../g)!.join(' ')}`),
    );

    await h.ok('desmume_breakpoint_remove', { id: thumbBp.breakpoint.id });
    await h.ok('desmume_breakpoint_remove', { id: armBp.breakpoint.id });
    const running = await h.ok<Run>('desmume_continue', { timeoutMs: 300 });
    assert.equal(running.state, 'running');
    assert.equal(running.stop, null);
    const refused = await h.fail('desmume_read_memory', { address: hex(s.counterArm), length: 8 });
    assert.equal(refused.code, 'target-running');
    const paused = await h.ok<{ state: string; stop: { reason: string } }>('desmume_pause', {});
    assert.equal(paused.state, 'stopped');
    assert.equal(paused.stop.reason, 'interrupt');
    const after = await h.ok<{ hex: string }>('desmume_read_memory', {
      address: hex(s.counterArm),
      length: 8,
    });
    assert.ok(u32(after.hex, 0) > armBefore, 'ARM counter advanced');
    assert.ok(u32(after.hex, 4) > thumbBefore, 'Thumb counter advanced');

    // Session-scoped state that must not survive the generation.
    await h.ok('desmume_executable_ranges_replace', {
      ranges: [{ start: '0x02200000', end: '0x02200100', label: 'scratch', mode: 'arm' }],
    });
    await h.ok('desmume_breakpoint_add', { address: '0x02200000' });
    const stopped = await h.ok<{ stopped: boolean; generation: number }>('desmume_stop', {});
    assert.equal(stopped.stopped, true);
    assert.equal((await h.fail('desmume_breakpoint_list', {})).code, 'not-running');
    const ended = await h.ok<{ running: boolean; previous: { generation: number; reason: string } }>(
      'desmume_status',
      {},
    );
    assert.equal(ended.running, false);
    assert.deepEqual(
      [ended.previous.generation, ended.previous.reason],
      [started.generation, 'stopped by desmume_stop'],
    );
    // logBytes bounds the previous generation's log tail too (0 means none).
    for (const logBytes of [0, 16]) {
      const bounded = await h.ok<{ previous: { log: string } }>('desmume_status', { logBytes });
      assert.ok(
        Buffer.byteLength(bounded.previous.log) <= logBytes,
        `logBytes ${logBytes}: ${Buffer.byteLength(bounded.previous.log)} bytes`,
      );
    }

    const again = await h.ok<{ generation: number }>('desmume_start', { romPath: 'debug.nds' });
    assert.equal(again.generation, started.generation + 1);
    const list = await h.ok<{ generation: number; breakpoints: unknown[]; executableRanges: unknown[] }>(
      'desmume_breakpoint_list',
      {},
    );
    assert.equal(list.generation, again.generation);
    assert.deepEqual(list.breakpoints, []);
    assert.equal(list.executableRanges.length, 1);
    const status = await h.ok<{ cpus: Array<{ state: string; lastStop: { reason: string } }> }>(
      'desmume_status',
      {},
    );
    assert.equal(status.cpus[0]?.lastStop.reason, 'launch-halt');
    await h.ok('desmume_stop', {});
  });

  it('refuses what the policy forbids', async () => {
    const h = await server();
    const s = rom.symbols;
    assert.equal((await h.fail('desmume_start', { romPath: '../outside.nds' })).code, 'workspace-escape');
    await h.ok('desmume_start', { romPath: 'debug.nds' });
    assert.equal((await h.fail('desmume_start', { romPath: 'debug.nds' })).code, 'already-running');

    const outside = await h.fail('desmume_breakpoint_add', {
      address: hex(rom.arm9.loadAddress + 0x1000),
      mode: 'arm',
    });
    assert.equal(outside.code, 'invalid-argument');
    assert.match(outside.message, /outside the arm9 executable allowlist/);
    const misaligned = await h.fail('desmume_breakpoint_add', {
      address: hex(s.armIncrement + 2),
      mode: 'arm',
    });
    assert.match(misaligned.message, /4-byte aligned/);
    const oddThumb = await h.fail('desmume_breakpoint_add', {
      address: hex(s.thumbIncrement + 1),
      mode: 'thumb',
    });
    assert.match(oddThumb.message, /2-byte aligned/);
    // debug_thumb_increment is 4-aligned and nothing says Thumb there: auto must refuse.
    const ambiguous = await h.fail('desmume_breakpoint_add', {
      address: hex(s.thumbIncrement),
      mode: 'auto',
    });
    assert.equal(ambiguous.code, 'invalid-argument');
    assert.match(ambiguous.message, /ambiguous/);

    await h.ok('desmume_executable_ranges_replace', {
      ranges: [{ start: '0x02200000', end: '0x02200100', label: 'scratch', mode: 'arm' }],
    });
    for (let i = 0; i < 32; i++) await h.ok('desmume_breakpoint_add', { address: hex(0x02200000 + i * 4) });
    const full = await h.fail('desmume_breakpoint_add', { address: hex(0x02200080) });
    assert.equal(full.code, 'limit-exceeded');
    const orphaning = await h.fail('desmume_executable_ranges_replace', { ranges: [] });
    assert.match(orphaning.message, /outside the allowlist/);
    const tooMany = await h.fail('desmume_executable_ranges_replace', {
      ranges: Array.from({ length: 65 }, (_, i) => ({
        start: hex(0x02300000 + i * 16),
        end: hex(0x02300010 + i * 16),
        label: `r${i}`,
      })),
    });
    assert.equal(tooMany.code, 'invalid-argument');

    assert.equal(
      (await h.fail('desmume_read_memory', { address: hex(s.counterArm), length: 4097 })).code,
      'limit-exceeded',
    );
    assert.equal((await h.fail('desmume_step_instruction', { count: 0 })).code, 'limit-exceeded');
    assert.equal((await h.fail('desmume_step_instruction', { count: 101 })).code, 'limit-exceeded');
    assert.equal((await h.fail('desmume_continue', { timeoutMs: 30_001 })).code, 'invalid-argument');
    assert.equal((await h.fail('desmume_continue', { expectedBreakpointId: 'nope' })).code, 'not-found');
    const regions = Array.from({ length: 9 }, (_, i) => ({
      label: `r${i}`,
      address: hex(s.counterArm),
      length: 4,
    }));
    assert.equal((await h.fail('desmume_capture_stop_context', { regions })).code, 'invalid-argument');
    assert.equal(
      (await h.fail('desmume_read_memory', { processor: 'arm7', address: '0x03800000', length: 4 })).code,
      'not-configured',
    );

    const clamped = await h.ok<{ context: { regions: Array<{ length: number; clamped: boolean }> } }>(
      'desmume_capture_stop_context',
      { regions: [{ label: 'edge', address: '0xfffffff0', length: 64 }] },
    );
    assert.deepEqual(clamped.context.regions[0], {
      ...clamped.context.regions[0],
      length: 16,
      clamped: true,
    });

    // The same context saved as evidence: a file under analysis/generated with the launch's identity.
    const saved = await h.ok<{ path: string; sha256: string; generation: number; pc: string }>(
      'desmume_capture_runtime_evidence',
      { regions: [{ label: 'counter', address: hex(s.counterArm), length: 4 }], label: 'at-stop' },
    );
    assert.match(
      saved.path,
      /^analysis\/generated\/desmume\/[0-9a-f]{16}\/evidence\/g\d+-.*-arm9-at-stop\.json$/,
    );
    const fileText = await readFile(join(h.workspace, saved.path), 'utf8');
    assert.equal(createHash('sha256').update(fileText).digest('hex'), saved.sha256);
    const doc = JSON.parse(fileText);
    const status = await h.ok<{ rom: { sha256: string } | null }>('desmume_status', {});
    assert.equal(doc.generation, saved.generation);
    assert.equal(doc.rom.sha256, status.rom?.sha256);
    assert.match(doc.launcherSha256, /^[0-9a-f]{64}$/);
    assert.equal(doc.context.registers.pc, saved.pc);
    const live = await h.ok<{ hex: string }>('desmume_read_memory', {
      address: hex(s.counterArm),
      length: 4,
    });
    assert.equal(doc.context.regions[0].label, 'counter');
    assert.equal(doc.context.regions[0].hex.replace(/\s/g, ''), live.hex.replace(/\s/g, ''));
    assert.equal(
      (await h.fail('desmume_capture_runtime_evidence', { regions: [], label: '../x' })).code,
      'invalid-argument',
    );
    await h.ok('desmume_stop', {});
  });

  it('refuses a concurrent command while a continue waits, and an oversize context before resuming', async () => {
    // At the minimum bound, eight full regions (64 KiB of hex) cannot fit.
    const h = await server({ RE_MCP_MAX_OUTPUT_BYTES: '65536' });
    await h.ok('desmume_start', { romPath: 'debug.nds' });
    const big = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({
      label: `r${i}`,
      address: hex(rom.symbols.counterArm),
      length: 4096,
    }));
    const tooBig = await h.fail('desmume_continue', { regions: big });
    assert.equal(tooBig.code, 'output-too-large');
    // Refused before resuming: the target is still halted at the entry.
    const status = await h.ok<{ cpus: Array<{ state: string; lastStop: { pc: string } }> }>(
      'desmume_status',
      {},
    );
    assert.deepEqual(
      [status.cpus[0]?.state, status.cpus[0]?.lastStop.pc],
      ['stopped', hex(rom.symbols.start)],
    );
    assert.equal((await h.fail('desmume_capture_stop_context', { regions: big })).code, 'output-too-large');
    const waiting = h.call('desmume_continue', { timeoutMs: 3_000 });
    await waitForRunState(h, 'running'); // the continue holds the session now
    const busy = await h.fail('desmume_read_memory', { address: hex(rom.symbols.counterArm), length: 4 });
    assert.equal(busy.code, 'busy');
    const result = await waiting;
    assert.equal((result.structuredContent as { state: string }).state, 'running');
    assert.equal((await h.fail('desmume_step_instruction', { count: 1 })).code, 'target-running');
    const waited = await h.ok<{ state: string }>('desmume_wait_for_stop', { timeoutMs: 100 });
    assert.equal(waited.state, 'running');
    await h.ok('desmume_pause', {});
    // A client-side cancellation ends a long continue early; the target is then reported running.
    const cancelledAt = Date.now();
    await assert.rejects(h.call('desmume_continue', { timeoutMs: 20_000 }, { timeoutMs: 400 }));
    const afterCancel = await h.ok<{ cpus: Array<{ state: string }> }>('desmume_status', {});
    assert.equal(afterCancel.cpus[0]?.state, 'running');
    const pausedAgain = await h.ok<{ state: string }>('desmume_pause', {});
    assert.equal(pausedAgain.state, 'stopped');
    assert.ok(Date.now() - cancelledAt < 5_000, 'the cancelled continue released the session');
    await h.ok('desmume_stop', {});
  });

  it('debugs the ARM7 through the processor argument; auto resolves only from facts', async () => {
    const h = await server();
    const started = await h.ok<{ ports: { arm9: number; arm7: number | null } }>('desmume_start', {
      romPath: 'debug.nds',
      arm7: true,
    });
    assert.ok(started.ports.arm7 !== null && started.ports.arm7 !== started.ports.arm9);
    const gdb = await h.ok<{ stopReply: string; port: number }>('desmume_wait_for_gdb', {
      processor: 'arm7',
    });
    assert.deepEqual([gdb.stopReply, gdb.port], ['S02', started.ports.arm7]);
    // 2-but-not-4 aligned can only be Thumb; the entry point is ARM.
    const thumb = await h.ok<{ breakpoint: { mode: string } }>('desmume_breakpoint_add', {
      address: hex(rom.symbols.thumbIncrement + 2),
    });
    assert.equal(thumb.breakpoint.mode, 'thumb');
    const entry = await h.ok<{ breakpoint: { mode: string } }>('desmume_breakpoint_add', {
      processor: 'arm7',
      address: hex(rom.arm7.entry),
    });
    assert.equal(entry.breakpoint.mode, 'arm');
    const bp = await h.ok<{ breakpoint: { id: string } }>('desmume_breakpoint_add', {
      processor: 'arm7',
      address: hex(rom.symbols.arm7Loop),
      mode: 'arm',
    });
    const hit = await h.ok<{ stop: { pc: string; breakpointId: string }; processor: string }>(
      'desmume_continue',
      {
        processor: 'arm7',
        expectedBreakpointId: bp.breakpoint.id,
      },
    );
    assert.deepEqual(
      [hit.processor, hit.stop.pc, hit.stop.breakpointId],
      ['arm7', hex(rom.symbols.arm7Loop), bp.breakpoint.id],
    );
    const regs = await h.ok<{ registers: { pc: string } }>('desmume_read_register_packet', {
      processor: 'arm7',
    });
    assert.equal(regs.registers.pc, hex(rom.symbols.arm7Loop));
    const status = await h.ok<{ cpus: Array<{ processor: string; history: Array<{ pc: string }> }> }>(
      'desmume_status',
      {},
    );
    assert.deepEqual(
      status.cpus.map((c) => c.processor),
      ['arm9', 'arm7'],
    );
    assert.equal(status.cpus[1]?.history.at(-1)?.pc, hex(rom.symbols.arm7Loop));
    await h.ok('desmume_stop', {});
  });

  it('answers a continue with emulator-exited promptly when DeSmuME is killed, and resets', async () => {
    const h = await server();
    const started = await h.ok<{ pid: number; generation: number }>('desmume_start', {
      romPath: 'debug.nds',
    });
    const pending = h.call('desmume_continue', { timeoutMs: 30_000 });
    await waitForRunState(h, 'running'); // the continue is waiting for a stop
    const killedAt = Date.now();
    process.kill(started.pid, 'SIGKILL');
    const result = await pending;
    assert.ok(Date.now() - killedAt < 3_000, `took ${Date.now() - killedAt} ms`);
    assert.equal(result.isError, true);
    assert.equal((result._meta as Record<string, { code: string }>)['re-mcp/error']?.code, 'emulator-exited');
    const status = await h.ok<{ running: boolean; previous: { generation: number; reason: string } }>(
      'desmume_status',
      {},
    );
    assert.equal(status.running, false);
    assert.equal(status.previous.generation, started.generation);
    assert.match(status.previous.reason, /SIGKILL/);
    assert.equal(
      (await h.fail('desmume_read_memory', { address: '0x02000000', length: 4 })).code,
      'not-running',
    );
    const next = await h.ok<{ generation: number }>('desmume_start', { romPath: 'debug.nds' });
    assert.equal(next.generation, started.generation + 1);
    await h.ok('desmume_stop', {});
  });

  it('refuses a missing launcher and a launcher that fails its pinned SHA-256', async () => {
    const missing = await server({ RE_MCP_DESMUME_LAUNCHER: join(workspace, 'no-such-desmume') });
    assert.equal((await missing.fail('desmume_start', { romPath: 'debug.nds' })).code, 'not-configured');
    const pinned = await server({ RE_MCP_DESMUME_LAUNCHER_SHA256: '0'.repeat(64) });
    const wrong = await pinned.fail('desmume_start', { romPath: 'debug.nds' });
    assert.equal(wrong.code, 'launch-failed');
    assert.match(wrong.message, /SHA256/);
    assert.deepEqual(desmumeProcesses(workspace), []);
  });

  it('kills its emulator when the client closes stdin', async () => {
    const h = await server();
    const started = await h.ok<{ pid: number }>('desmume_start', { romPath: 'debug.nds' });
    assert.deepEqual(desmumeProcesses(workspace), [started.pid]);
    await h.close();
    harnesses.splice(harnesses.indexOf(h), 1);
    assert.ok(
      await waitUntil(() => desmumeProcesses(workspace).length === 0, 5_000),
      'emulator survived shutdown',
    );
  });
});
