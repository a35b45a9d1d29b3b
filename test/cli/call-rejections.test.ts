// `re-mcp call` of a multi-chunk RetroArch read with nothing listening: every chunk fails, and none
// may surface as an unhandled rejection (it used to crash the CLI with a stack trace). The result is a
// typed error and exit code 1.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { makeWorkspace, SERVER_ENTRY } from '../kit/mcp-harness.js';

async function freeUdpPort(): Promise<number> {
  const socket = createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}

test('a chunked RetroArch read with nothing listening is a typed error, never a crash', async () => {
  const ws = await makeWorkspace('re-mcp-call-rej-');
  try {
    for (let i = 0; i < 4; i++) {
      const run = spawnSync(
        process.execPath,
        [SERVER_ENTRY, 'call', 'retroarch_read_memory', '{"address":0,"length":16385}'],
        {
          env: {
            PATH: process.env.PATH ?? '/usr/bin:/bin',
            RE_MCP_WORKSPACE_ROOT: ws,
            RETROARCH_PORT: String(await freeUdpPort()),
            RETROARCH_TIMEOUT_MS: '300',
          },
          encoding: 'utf8',
          timeout: 30_000,
        },
      );
      assert.equal(run.status, 1, `exit ${run.status}; stderr: ${run.stderr}`);
      const out = JSON.parse(run.stdout) as { error?: { code: string } };
      assert.ok(out.error?.code, run.stdout);
      assert.doesNotMatch(run.stderr, /unhandled|\n\s+at /i, run.stderr);
    }
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
});
