// A stray rejected promise somewhere in the process (a background probe, a socket callback) is logged
// to stderr; it does not take the server (and every session on it) down.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeWorkspace, SERVER_ENTRY } from '../kit/mcp-harness.js';

// Preloaded into the server: after its first answer, reject a promise nobody handles.
const PRELOAD = `
const write = process.stdout.write.bind(process.stdout);
let fired = false;
process.stdout.write = (...args) => {
  const result = write(...args);
  if (!fired) {
    fired = true;
    Promise.reject(new Error('STRAY-REJECTION'));
  }
  return result;
};
`;

test('an unhandled rejection is logged and the server keeps serving', async () => {
  const workspace = await makeWorkspace();
  const dir = await mkdtemp(join(tmpdir(), 're-mcp-preload-'));
  const preload = join(dir, 'preload.cjs');
  await writeFile(preload, PRELOAD);
  const child = spawn(process.execPath, ['--require', preload, SERVER_ENTRY, 'serve'], {
    env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: workspace },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let exited: number | null = null;
  child.on('exit', (code) => {
    exited = code ?? -1;
  });
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
  const waitFor = async (text: string) => {
    const deadline = Date.now() + 10_000;
    while (!stdout.includes(text) && exited === null && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
  };
  send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  await waitFor('"id":1');
  await new Promise((r) => setTimeout(r, 200));
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  await waitFor('"id":2');
  const alive = exited === null;
  child.stdin.end();
  if (alive) await new Promise((r) => child.once('exit', r));
  await rm(dir, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
  assert.ok(alive, `the server exited (${exited}): ${stderr.slice(-300)}`);
  assert.match(stdout, /"id":2/);
  assert.match(stderr, /STRAY-REJECTION/);
});
