// A stray rejected promise somewhere in the process (a background probe, a socket callback) is logged
// to stderr; it does not take the server (and every session on it) down.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { INITIALIZE, INITIALIZED, startRawServer } from '../kit/raw-server.js';

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
  const server = await startRawServer(workspace, { preload: PRELOAD });
  server.send(INITIALIZE);
  await server.waitFor('"id":1', 10_000);
  await new Promise((r) => setTimeout(r, 200));
  server.send(INITIALIZED);
  server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  await server.waitFor('"id":2', 10_000);
  const alive = server.exited() === null;
  await server.close();
  await rm(workspace, { recursive: true, force: true });
  const exited = server.exited();
  const stdout = server.stdout();
  const stderr = server.stderr();
  assert.ok(alive, `the server exited (${exited}): ${stderr.slice(-300)}`);
  assert.match(stdout, /"id":2/);
  assert.match(stderr, /STRAY-REJECTION/);
});
