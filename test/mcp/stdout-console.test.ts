// Only protocol messages on stdout, even when something in the process logs through `console` (a
// dependency, an Emscripten module's default print): serve() sends console output to stderr.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeWorkspace, SERVER_ENTRY } from '../kit/mcp-harness.js';

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
  const dir = await mkdtemp(join(tmpdir(), 're-mcp-preload-'));
  const preload = join(dir, 'preload.cjs');
  await writeFile(preload, PRELOAD);
  const child = spawn(process.execPath, ['--require', preload, SERVER_ENTRY, 'serve'], {
    env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: workspace },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const requests = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
  ];
  for (const r of requests) child.stdin.write(`${JSON.stringify(r)}\n`);
  const deadline = Date.now() + 20_000;
  while (!stdout.includes('"id":2') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  child.stdin.end();
  await new Promise((r) => child.once('exit', r));
  await rm(dir, { recursive: true, force: true });
  await rm(workspace, { recursive: true, force: true });
  assert.doesNotMatch(stdout, /NOISE/, 'console output reached stdout');
  assert.match(stderr, /NOISE-LOG/);
  for (const line of stdout.split('\n').filter(Boolean)) assert.equal(JSON.parse(line).jsonrpc, '2.0');
});
