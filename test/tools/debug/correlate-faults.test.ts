// nds_correlate_stop_context's fault paths on the real DeSmuME, with a proxy between the server and
// the stub that tampers with memory reads only: a refused live read leaves the candidates
// not-checked with the reason (the static answer stays), and reads held past the deadline make the
// tool fail with timeout. The tool runs in-process so the session can connect through the proxy.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import type { Server } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../../../src/config/config.js';
import { formatAddress as hex } from '../../../src/core/vocabulary.js';
import { continueUntilStop } from '../../../src/debug/control.js';
import { desmumeBackend } from '../../../src/debug/desmume/backend.js';
import { desmume } from '../../../src/debug/desmume/index.js';
import { debugSessionKey } from '../../../src/debug/service.js';
import { DebugSession } from '../../../src/debug/session.js';
import { invokeTool } from '../../../src/mcp/invoke.js';
import { getRomStore } from '../../../src/roms/rom-store.js';
import { Services } from '../../../src/services.js';
import { ndsCorrelateStopContext } from '../../../src/tools/debug/correlate.js';
import { Workspace } from '../../../src/workspace/workspace.js';
import { DESMUME_CLI, killDesmumeProcesses, writeOverlayTargetRom } from '../../kit/desmume/index.js';
import { proxyTamperingMemoryReads } from '../../kit/desmume/stub-proxies.js';
import { makeWorkspace } from '../../kit/mcp-harness.js';

const root = await makeWorkspace('re-mcp-correlate-faults-');
const rom = writeOverlayTargetRom(join(root, 'ovl.nds'));
const servers: Server[] = [];
const sessions: DebugSession[] = [];
after(async () => {
  for (const s of sessions) await s.stop();
  for (const s of servers) s.close();
  const leftovers = killDesmumeProcesses(root);
  await rm(root, { recursive: true, force: true });
  assert.deepEqual(leftovers, [], 'a DeSmuME process outlived the suite');
});

/** A server whose DeSmuME session talks to its ARM9 stub through the tampering proxy, stopped in main code. */
async function stoppedBehindProxy() {
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  let stubPort = 0;
  const proxy = await proxyTamperingMemoryReads(() => stubPort, servers);
  const session = services.lazy(
    debugSessionKey(desmume),
    () =>
      new DebugSession(desmumeBackend({ launcher: DESMUME_CLI, launcherSha256: null }), {
        connectPort: (_p, owned) => {
          stubPort = owned;
          return proxy.port;
        },
      }),
  );
  sessions.push(session);
  await session.start({
    roms: getRomStore(services),
    rom: 'ovl.nds',
    arm9Port: null,
    arm7Port: null,
    startTimeoutMs: 15_000,
  });
  const cpu = session.cpu('arm9');
  await cpu.addBreakpoint(rom.symbols.copy, 'arm');
  await continueUntilStop(cpu, 10_000, undefined);
  assert.equal(cpu.lastStop?.pc, rom.symbols.copy);
  const call = async (args: Record<string, unknown>) =>
    (await invokeTool(ndsCorrelateStopContext, args, services, {
      signal: new AbortController().signal,
      log: () => {},
    })) as { isError?: boolean; structuredContent: Record<string, any> };
  return { proxy, call };
}

describe('nds_correlate_stop_context faults (real DeSmuME behind a proxy)', () => {
  it('reports a refused live read as not-checked with its reason', async () => {
    const { proxy, call } = await stoppedBehindProxy();
    // A generous bound: the first correlation builds the ROM's map, slow on a loaded machine.
    const good = await call({ timeoutMs: 30_000 });
    assert.equal(good.isError, undefined, JSON.stringify(good.structuredContent));
    assert.equal(good.structuredContent.pc.candidates[0].live.status, 'live-bytes-match');
    proxy.fail();
    const r = await call({ timeoutMs: 30_000 });
    assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent));
    const c = r.structuredContent.pc.candidates[0];
    assert.equal(c.component, 'main');
    assert.equal(c.live.status, 'not-checked');
    assert.equal(c.live.reason, 'live read failed: protocol-error');
    assert.equal(r.structuredContent.pc.liveMatches, 0);
    // The static interpretation does not depend on the live read; the stack read failed too.
    assert.equal(c.instructions[0]?.text, 'subs r2, r2, #4');
    assert.equal(c.functions[0]?.identity.address, hex(rom.symbols.copy));
    assert.equal(r.structuredContent.backtrace.stackReadNote, 'stack read failed: protocol-error');
    assert.equal(r.structuredContent.backtrace.stackWordsRead, 0);
  });

  it('fails with timeout when the live reads outlast timeoutMs', async () => {
    const { proxy, call } = await stoppedBehindProxy();
    proxy.delay(400);
    const r = await call({ timeoutMs: 100 });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.error.code, 'timeout');
    assert.match(r.structuredContent.error.message, /within 100 ms/);
    // Without the live check nothing waits on the stub's memory reads: it finishes.
    const quick = await call({ timeoutMs: 30_000, liveCheck: false, stackWords: 0 });
    assert.equal(quick.isError, undefined);
  });
});
