// The emulator never outlives its owner: a launcher that is a wrapper script (no exec, as xvfb-run
// style wrappers do), or one that even detaches the emulator with setsid, is stopped as a whole by
// desmume_stop; and SIGHUP / SIGQUIT to the server clean up like SIGTERM. Against the real DeSmuME.
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  DESMUME_CLI,
  desmumeProcesses,
  killDesmumeProcesses,
  writeDebugTargetRom,
} from '../../kit/desmume/index.js';
import { makeWorkspace, startServer } from '../../kit/mcp-harness.js';
import { INITIALIZE, INITIALIZED, startRawServer } from '../../kit/raw-server.js';

let workspace: string;
let launchers: string;

before(async () => {
  workspace = await makeWorkspace('re-mcp-desmume-contain-');
  launchers = await mkdtemp(join(tmpdir(), 're-mcp-launchers-'));
  writeDebugTargetRom(join(workspace, 'debug.nds'));
});
after(async () => {
  killDesmumeProcesses(workspace);
  await rm(workspace, { recursive: true, force: true });
  await rm(launchers, { recursive: true, force: true });
});

async function launcher(name: string, body: string): Promise<string> {
  const path = join(launchers, name);
  await writeFile(path, `#!/bin/sh\n${body}\n`);
  await chmod(path, 0o755);
  return path;
}

async function gone(ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (desmumeProcesses(workspace).length === 0) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return desmumeProcesses(workspace).length === 0;
}

for (const [name, body] of [
  ['desmume-wrapper.sh', `${DESMUME_CLI} "$@"`],
  ['desmume-setsid.sh', `setsid ${DESMUME_CLI} "$@" &\nwait`],
] as const) {
  test(`desmume_stop takes down the whole launcher tree (${name})`, async () => {
    const h = await startServer({
      workspace,
      env: { RE_MCP_PROFILE: 'runtime', RE_MCP_DESMUME_LAUNCHER: await launcher(name, body) },
    });
    try {
      await h.ok('desmume_start', { romPath: 'debug.nds' });
      assert.ok(desmumeProcesses(workspace).length >= 2, 'the wrapper and its emulator run');
      await h.ok('desmume_stop', {});
      assert.ok(await gone(5_000), `left running: ${desmumeProcesses(workspace).join(',')}`);
    } finally {
      await h.close();
      killDesmumeProcesses(workspace);
    }
  });
}

for (const signal of ['SIGHUP', 'SIGQUIT'] as const) {
  test(`${signal} to the server stops its emulator`, async () => {
    const server = await startRawServer(workspace, {
      env: {
        RE_MCP_PROFILE: 'runtime',
        RE_MCP_DESMUME_LAUNCHER: await launcher('plain.sh', `${DESMUME_CLI} "$@"`),
      },
    });
    try {
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
      process.kill(server.pid, signal);
      assert.ok(await gone(8_000), `${signal} left the emulator running`);
    } finally {
      await server.close();
      killDesmumeProcesses(workspace);
    }
  });
}
