// SIGKILL of the server (no handler runs) with the real DeSmuME and a verification check running:
// both die with it (parent-death signal), and the emulator's private home is swept by the next
// server's first emulator start.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { desmumeProcesses, killDesmumeProcesses, writeDebugTargetRom } from '../kit/desmume/index.js';
import { makeWorkspace, startServer } from '../kit/mcp-harness.js';
import { killAll, processesWith, uniqueSleep, waitGone } from '../kit/processes.js';
import { INITIALIZE, INITIALIZED, startRawServer } from '../kit/raw-server.js';

let workspace: string;
const marker = uniqueSleep();

before(async () => {
  workspace = await makeWorkspace('re-mcp-sigkill-');
  writeDebugTargetRom(join(workspace, 'debug.nds'));
  await writeFile(
    join(workspace, 're-mcp.config.json'),
    JSON.stringify({
      checks: {
        long: {
          argv: ['sh', '-c', `trap '' TERM; sleep ${marker} & echo started > started; wait`],
          timeoutMs: 3_600_000,
        },
      },
    }),
  );
});

after(async () => {
  killDesmumeProcesses(workspace);
  killAll(processesWith(marker));
  await rm(workspace, { recursive: true, force: true });
});

const homes = (pid: number) => readdirSync(tmpdir()).filter((n) => n.startsWith(`re-mcp-desmume-${pid}-`));

test('SIGKILL of the server leaves no emulator, no check and (after the next start) no private home', async () => {
  const server = await startRawServer(workspace, { env: { HOME: process.env.HOME ?? '/tmp' } });
  server.send(INITIALIZE);
  await server.waitFor('"id":1');
  server.send(INITIALIZED);
  server.send({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { name: 'desmume_start', arguments: { romPath: 'debug.nds' } },
  });
  await server.waitFor('"id":2', 60_000);
  assert.ok(desmumeProcesses(workspace).length >= 1, `not started: ${server.stdout().slice(-400)}`);
  server.send({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'run_project_verification', arguments: { check: 'long' } },
  });
  const deadline = Date.now() + 15_000;
  while (!existsSync(join(workspace, 'started'))) {
    assert.ok(Date.now() < deadline, 'the check did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(processesWith(marker).length >= 1, 'the check runs');
  assert.equal(homes(server.pid).length, 1, 'the emulator has its private home');
  assert.match(readFileSync(join(workspace, 'started'), 'utf8'), /started/);

  process.kill(server.pid, 'SIGKILL');
  const checkLeft = await waitGone(marker, 5_000);
  const emulatorDeadline = Date.now() + 5_000;
  while (desmumeProcesses(workspace).length > 0 && Date.now() < emulatorDeadline)
    await new Promise((r) => setTimeout(r, 50));
  const emulatorLeft = desmumeProcesses(workspace);
  await server.close();
  assert.deepEqual(checkLeft, [], 'the check died with the server');
  assert.deepEqual(emulatorLeft, [], 'DeSmuME died with the server');

  // Nothing could remove the killed server's home; the next server's first start sweeps it.
  const killedPid = server.pid;
  assert.equal(homes(killedPid).length, 1);
  const h = await startServer({ workspace, env: { RE_MCP_PROFILE: 'runtime' } });
  try {
    await h.ok('desmume_start', { romPath: 'debug.nds' });
    assert.deepEqual(homes(killedPid), [], 'swept');
    await h.ok('desmume_stop', {});
  } finally {
    await h.close();
  }
});
