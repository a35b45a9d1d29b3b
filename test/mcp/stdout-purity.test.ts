// Speaks raw JSON-RPC to the server and proves that every byte it writes to stdout is a JSON-RPC
// message, across a session with successes, tool errors, bad arguments and an unknown method.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { INITIALIZE, INITIALIZED, startRawServer } from '../kit/raw-server.js';

test('nothing but JSON-RPC reaches stdout during a full session', async () => {
  const workspace = await makeWorkspace();
  await writeFile(join(workspace, 'a.bin'), Buffer.alloc(1024, 7));
  const server = await startRawServer(workspace);
  const requests = [
    INITIALIZE,
    INITIALIZED,
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'server_capabilities', arguments: {} } },
    {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: 'verify_file_sha256', arguments: { path: 'a.bin' } },
    },
    {
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'verify_file_sha256', arguments: { path: '../x' } },
    },
    {
      jsonrpc: '2.0',
      id: 6,
      method: 'tools/call',
      params: { name: 'verify_file_sha256', arguments: { nope: 1 } },
    },
    {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'run_project_verification', arguments: { check: 'x' } },
    },
    { jsonrpc: '2.0', id: 8, method: 'no/such/method' },
    { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } },
  ];
  for (const r of requests) server.send(r);
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const ids = server
      .stdout()
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        try {
          return JSON.parse(l).id;
        } catch {
          return undefined;
        }
      });
    if ([1, 2, 3, 4, 5, 6, 7, 8, 9].every((id) => ids.includes(id))) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await server.close();
  const lines = server.stdout().split('\n');
  assert.equal(lines.at(-1), '', 'stdout ends with a complete line');
  const messages = lines.slice(0, -1).map((line) => {
    const parsed = JSON.parse(line);
    assert.equal(parsed.jsonrpc, '2.0', `not JSON-RPC: ${line.slice(0, 200)}`);
    return parsed;
  });
  const byId = new Map(messages.filter((m) => m.id !== undefined).map((m) => [m.id, m]));
  assert.equal(byId.size, 9, 'every request was answered');
  assert.equal(byId.get(5).result.isError, true);
  assert.equal(byId.get(5).result._meta['re-mcp/error'].code, 'workspace-escape');
  assert.equal(byId.get(5).result.structuredContent, undefined);
  assert.equal(byId.get(6).result._meta['re-mcp/error'].code, 'invalid-argument');
  assert.ok(byId.get(8).error, 'unknown method is a JSON-RPC error');
  assert.equal(byId.get(9).error.code, -32602, 'an unknown tool is a protocol error');
});
