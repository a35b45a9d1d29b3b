// Only protocol messages on stdout, even when something in the process logs through `console` (a
// dependency, an Emscripten module's default print): serve() sends console output to stderr.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { INITIALIZE, INITIALIZED, startRawServer } from '../kit/raw-server.js';

// Preloaded into the server: once the server has answered (so serve() has run), log through console.
const PRELOAD = `
const write = process.stdout.write.bind(process.stdout);
let fired = false;
process.stdout.write = (...args) => {
  const result = write(...args);
  if (!fired) {
    fired = true;
    console.log('NOISE-LOG');
    console.info('NOISE-INFO');
    console.debug('NOISE-DEBUG');
    console.table([{ a: 'NOISE-TABLE' }]);
    console.dir({ noise: 'NOISE-DIR' });
  }
  return result;
};
`;

test('console output inside the server never reaches stdout', async () => {
  const workspace = await makeWorkspace();
  const server = await startRawServer(workspace, { preload: PRELOAD });
  for (const r of [INITIALIZE, INITIALIZED, { jsonrpc: '2.0', id: 2, method: 'tools/list' }]) server.send(r);
  await server.waitFor('"id":2');
  await server.close();
  await rm(workspace, { recursive: true, force: true });
  const stdout = server.stdout();
  assert.doesNotMatch(stdout, /NOISE/, 'console output reached stdout');
  assert.match(server.stderr(), /NOISE-LOG/);
  for (const line of stdout.split('\n').filter(Boolean)) assert.equal(JSON.parse(line).jsonrpc, '2.0');
});
