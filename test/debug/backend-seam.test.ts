// The emulator backend seam, proved with a second backend: a DebugSession made with the fake backend
// of ./fake-backend.ts (an in-process GDB stub with quirks unlike DeSmuME's: no-ack mode, 256-byte
// memory reads, the 17-register core layout, no ARM7 stub, no watchpoints) attaches, reads registers
// and memory (split by the fake's chunk size), runs to a breakpoint, continues, pauses, steps and
// shuts down, with its messages naming the fake's own tools. Nothing DeSmuME-specific is reachable
// from the fake backend's imports. ./second-emulator.test.ts adds it to the server as an emulator.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import ts from 'typescript';
import { ReMcpError } from '../../src/core/errors.js';
import { continueUntilStop, pause, stepInstructions } from '../../src/debug/control.js';
import { DebugSession } from '../../src/debug/session.js';
import { addWatchpoint } from '../../src/debug/watchpoints.js';
import { RomStore } from '../../src/roms/rom-store.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { REPO_ROOT } from '../kit/mcp-harness.js';
import {
  FAKE_ENTRY as ENTRY,
  FAKE_CHUNK,
  FAKE_SHA256,
  FAKE_SP,
  fakeBackend,
  fakeByte,
  writeFakeRom,
} from './fake-backend.js';
import { reachedModules } from './reached.js';

let dir: string;
let workspace: Workspace;

async function rejects(promise: Promise<unknown>, code: string): Promise<ReMcpError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ReMcpError, `expected ReMcpError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected a ${code} error`);
}

function start(session: DebugSession, arm7Port: number | null = null) {
  return session.start({
    roms: new RomStore(workspace),
    rom: 'seam.nds',
    arm9Port: null,
    arm7Port,
    startTimeoutMs: 5_000,
  });
}

before(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 're-mcp-backend-seam-')));
  workspace = new Workspace(dir);
  writeFakeRom(join(dir, 'seam.nds'), 'SEAM');
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a second emulator backend through the same session', () => {
  it('attaches, reads, runs, pauses, steps and shuts down with the fake quirks', async () => {
    const backend = fakeBackend();
    const session = new DebugSession(backend);
    try {
      // Messages name the backend's emulator and tools.
      assert.throws(
        () => session.requireGeneration(),
        (e: unknown) =>
          e instanceof ReMcpError &&
          e.code === 'not-running' &&
          e.message === 'no owned FakeEmu is running; call fake_start',
      );
      // An optional feature the backend does not opt into is refused before anything is launched.
      const noArm7 = await rejects(start(session, 0), 'unsupported');
      assert.equal(noArm7.message, 'FakeEmu has no ARM7 GDB stub');
      assert.equal(backend.launched.length, 0);

      const gen = await start(session);
      assert.equal(gen.number, 1);
      assert.equal(gen.launcherSha256, FAKE_SHA256);
      assert.equal(backend.readyChecks, 1);
      const stub = backend.launched[0]!.stub;
      // The backend's own ready wait ran: the stub "loaded" for two register reads first.
      assert.equal(stub.log.loadingReads, 2);
      // No-ack mode was negotiated first; after it the client sent no acknowledgement at all.
      assert.equal(stub.log.packets[0], 'QStartNoAckMode');
      assert.equal(stub.log.noAck, true);
      assert.equal(stub.log.acksBefore, 1);
      const cpu = session.cpu('arm9');
      assert.equal(cpu.lastStop?.reason, 'launch-halt');
      assert.equal(cpu.lastStop?.pc, ENTRY);
      assert.equal(gen.cpus.arm7, undefined);

      // Registers in the 17-register core layout.
      const regs = await cpu.readRegisters();
      assert.equal(regs.raw.length, 17 * 8);
      assert.equal(regs.decoded.r[15], ENTRY);
      assert.equal(regs.decoded.r[13], FAKE_SP);
      assert.equal(regs.decoded.r[1], 0x11);
      assert.equal(regs.decoded.cpsr, 0x1f);
      assert.equal(regs.decoded.thumb, false);

      // Memory, split by the fake's chunk size (DeSmuME's is 0x200; the fake refuses more than 0x100).
      stub.log.memoryReads.length = 0;
      const bytes = await cpu.readMemory(0x0200_0010, 0x250);
      assert.deepEqual(stub.log.memoryReads, [FAKE_CHUNK, FAKE_CHUNK, 0x50]);
      assert.deepEqual(
        [...bytes],
        Array.from({ length: 0x250 }, (_, i) => fakeByte(0x0200_0010 + i)),
      );
      stub.log.memoryReads.length = 0;
      await cpu.readMemory(0x0200_0000, 4_096);
      assert.deepEqual(stub.log.memoryReads, Array(16).fill(FAKE_CHUNK));

      // Run to a breakpoint.
      const { bp } = await cpu.addBreakpoint(ENTRY + 8, 'arm');
      const hit = await continueUntilStop(cpu, 2_000, undefined);
      assert.equal(hit.stop?.reason, 'breakpoint');
      assert.equal(hit.stop?.breakpointId, bp.id);
      assert.equal(hit.stop?.pc, ENTRY + 8);
      assert.equal(bp.hits, 1);
      await cpu.removeBreakpoint(bp.id);

      // Continue with no breakpoint ahead: the target runs; stopped-state commands refuse, naming the fake's tools.
      const running = await continueUntilStop(cpu, 100, undefined);
      assert.equal(running.state, 'running');
      const refused = await rejects(cpu.readRegisters(), 'target-running');
      assert.match(refused.message, /call fake_wait_for_stop or fake_pause first$/);
      const paused = await pause(cpu, 2_000, undefined);
      assert.equal(paused.stop?.reason, 'interrupt');
      assert.equal(stub.log.interrupts, 1);

      // Steps.
      const stepped = await stepInstructions(cpu, 2, 1_000, undefined);
      assert.deepEqual(
        stepped.trace.map((t) => t.pc),
        ['0x0200000c', '0x02000010'],
      );

      // Watchpoints are a feature the fake does not opt into.
      const noWatch = await rejects(addWatchpoint(cpu, 0x0210_0000, 4, 'write'), 'unsupported');
      assert.equal(noWatch.message, 'the FakeEmu GDB stub has no watchpoints');

      assert.equal(stub.log.acksAfterNoAck, 0, 'the client acknowledged a packet in no-ack mode');

      // A second start is refused with the fake's tool names.
      const again = await rejects(start(session), 'already-running');
      assert.match(again.message, /call fake_stop first$/);

      // Shut down: the process is killed after its connections are closed.
      const port = cpu.port;
      const stopped = await session.stop();
      assert.equal(stopped?.generation, 1);
      assert.equal(stopped?.exit.signal, 'SIGKILL');
      assert.equal(session.generation, null);
      assert.equal(backend.launched[0]!.alive, false);
      assert.throws(
        () => session.requireGeneration(),
        (e: unknown) =>
          e instanceof ReMcpError && /\(generation 1 ended: stopped by fake_stop\)$/.test(e.message),
      );
      const refusedConnect = await new Promise<boolean>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port });
        socket.once('connect', () => {
          socket.destroy();
          resolve(false);
        });
        socket.once('error', () => resolve(true));
      });
      assert.ok(refusedConnect, 'the fake stub still listens after the stop');
    } finally {
      await session.dispose();
    }
  });

  it('reaches nothing of DeSmuME from the fake backend', () => {
    const reached = reachedModules(join(import.meta.dirname, 'fake-backend.ts'));
    assert.ok(reached.includes('src/debug/backend.ts') && reached.includes('src/debug/connection.ts'));
    assert.deepEqual(
      reached.filter(
        (f) => f.startsWith('src/debug/desmume/') || /^src\/debug\/(service|registry|emulators)\.ts$/.test(f),
      ),
      [],
    );
    // No debugger module it reaches names DeSmuME in code (comments left out).
    const printer = ts.createPrinter({ removeComments: true });
    const naming = reached.filter((f) => {
      if (!f.startsWith('src/debug/') && !f.startsWith('test/')) return false;
      const text = readFileSync(join(REPO_ROOT, f), 'utf8');
      const code = printer.printFile(ts.createSourceFile(f, text, ts.ScriptTarget.Latest));
      return /desmume/i.test(code);
    });
    assert.deepEqual(naming, []);
  });
});
