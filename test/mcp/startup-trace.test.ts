// The built server's session answers what a tools-only MCP server must (ping, Method not found for
// the rest), and RE_MCP_TRACE_STARTUP=1 shows where a start spends its time: one stderr line per
// phase and for the first messages, in order, while stdout still carries protocol messages only.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { INITIALIZE, INITIALIZED, startRawServer } from '../kit/raw-server.js';

async function session(env: Record<string, string>) {
  const workspace = await makeWorkspace();
  const server = await startRawServer(workspace, { env });
  server.send(INITIALIZE);
  server.send(INITIALIZED);
  server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  server.send({ jsonrpc: '2.0', id: 3, method: 'ping' });
  server.send({ jsonrpc: '2.0', id: 4, method: 'resources/list', params: {} });
  server.send({ jsonrpc: '2.0', id: 5, method: 'logging/setLevel', params: { level: 'info' } });
  await server.waitFor('"id":5');
  await server.close();
  await rm(workspace, { recursive: true, force: true });
  return server;
}

test('ping answers {}; methods a tools-only server does not serve are Method not found', async () => {
  const server = await session({});
  const byId = new Map(server.messages().map((m) => [m.id, m]));
  assert.deepEqual(byId.get(3)?.result, {});
  for (const id of [4, 5]) assert.equal(byId.get(id)?.error?.code, -32601, `request ${id}`);
  assert.ok(((byId.get(2)?.result?.tools ?? []) as unknown[]).length > 0);
  assert.doesNotMatch(server.stderr(), /re-mcp: startup /, 'no trace unless asked');
});

test('RE_MCP_TRACE_STARTUP=1: the phases in order on stderr, protocol only on stdout', async () => {
  const server = await session({ RE_MCP_TRACE_STARTUP: '1' });
  const marks = server
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('re-mcp: startup '))
    .map((line) => /^re-mcp: startup (\d+\.\d) ms (.*)$/.exec(line)!);
  const phases = marks.map((m) => m[2]!);
  const expected = [
    'entry running',
    'bundle compiled (cache used)',
    'main',
    'serve loaded',
    'catalog read',
    'connected',
    'in initialize',
  ];
  assert.deepEqual(
    phases.filter((p) => expected.includes(p)),
    expected,
    phases.join(' | '),
  );
  assert.ok(phases.includes('out #1') && phases.includes('in tools/list'), phases.join(' | '));
  const times = marks.map((m) => Number(m[1]));
  assert.deepEqual(
    times,
    [...times].sort((a, b) => a - b),
    'times never go backwards',
  );
  for (const line of server.stdout().split('\n').slice(0, -1)) assert.equal(JSON.parse(line).jsonrpc, '2.0');
});
