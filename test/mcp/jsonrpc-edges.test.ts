// Raw-wire JSON-RPC edges (issue: every client): what the built server answers to malformed input,
// that a cancelled request gets nothing more on the wire, and that output never waits for input.
import assert from 'node:assert/strict';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { INITIALIZE, INITIALIZED, type RawServer, startRawServer } from '../kit/raw-server.js';

let workspace: string;
before(async () => {
  workspace = await makeWorkspace();
  // A sparse 1.5 GiB file: hashing it takes long enough to cancel it midway and to see progress.
  const handle = await open(join(workspace, 'big.bin'), 'w');
  await handle.truncate(1536 * 1024 * 1024);
  await handle.close();
});
after(() => rm(workspace, { recursive: true, force: true }));

async function session(): Promise<RawServer> {
  const server = await startRawServer(workspace);
  server.send(INITIALIZE);
  server.send(INITIALIZED);
  await server.waitFor('"id":1');
  return server;
}

async function until(server: RawServer, what: string, predicate: () => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  assert.ok(predicate(), `timed out waiting for ${what}; stdout: ${server.stdout().slice(-600)}`);
}

const byId = (server: RawServer, id: unknown) => server.messages().filter((m) => m.id === id && !m.method);

test('malformed lines, batches, jsonrpc 1.0 and bad requests get their JSON-RPC errors', async () => {
  const server = await session();
  const cases: Array<{ line: string; id: unknown; code: number }> = [
    { line: '{"jsonrpc":"2.0","id":2,"method":', id: null, code: -32700 },
    { line: 'not json at all', id: null, code: -32700 },
    { line: '[{"jsonrpc":"2.0","id":3,"method":"ping"}]', id: null, code: -32600 },
    { line: '{"jsonrpc":"1.0","id":4,"method":"ping"}', id: 4, code: -32600 },
    { line: '{"id":5,"method":"ping"}', id: 5, code: -32600 },
    { line: '{"jsonrpc":"2.0","id":6}', id: 6, code: -32600 },
    { line: '42', id: null, code: -32600 },
    { line: '{"jsonrpc":"2.0","id":7,"method":"tools/call"}', id: 7, code: -32602 },
    {
      line: '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"x","arguments":[1]}}',
      id: 8,
      code: -32602,
    },
    {
      line: '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}',
      id: 9,
      code: -32602,
    },
  ];
  for (const [i, c] of cases.entries()) {
    server.sendRaw(`${c.line}\n`);
    await until(server, `reply ${i}`, () => server.messages().filter((m) => m.error).length > i);
    const reply = server.messages().filter((m) => m.error)[i] as {
      id: unknown;
      error: { code: number; message: string };
    };
    assert.equal(reply.id, c.id, `id for ${c.line}`);
    assert.equal(reply.error.code, c.code, `code for ${c.line}: ${reply.error.message}`);
    assert.ok(!reply.error.message.includes('\n'), `one-line message: ${reply.error.message}`);
  }
  // Still serving after all of that.
  server.send({ jsonrpc: '2.0', id: 10, method: 'ping' });
  await until(server, 'ping', () => byId(server, 10).length === 1);
  assert.equal(server.exited(), null);
  await server.close();
});

test('a line over 10 MiB is refused with an error and logged; the session goes on', async () => {
  const server = await session();
  const huge = Buffer.alloc(10 * 1024 * 1024 + 100, 0x61);
  server.sendRaw(huge);
  server.sendRaw('\n');
  await until(server, 'refusal', () => server.messages().some((m) => m.error?.code === -32600));
  const refusal = server.messages().find((m) => m.error) as { id: unknown; error: { message: string } };
  assert.equal(refusal.id, null);
  assert.match(refusal.error.message, /over 10485760 bytes/);
  server.send({ jsonrpc: '2.0', id: 11, method: 'ping' });
  await until(server, 'ping after the long line', () => byId(server, 11).length === 1);
  assert.match(server.stderr(), /refused an input line over 10485760 bytes/);
  assert.equal(server.exited(), null, 'still running');
  await server.close();
});

function hashCall(id: number, token: string) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'verify_file_sha256', arguments: { path: 'big.bin' }, _meta: { progressToken: token } },
  };
}

test('progress and the result are written while the client sends nothing', async () => {
  const server = await session();
  server.send(hashCall(20, 'p20'));
  // No further input from here on: everything below must arrive on its own.
  await until(server, 'the result', () => byId(server, 20).length === 1, 120_000);
  const progress = server.messages().filter((m) => m.method === 'notifications/progress');
  assert.ok(progress.length >= 2, `progress notifications: ${progress.length}`);
  assert.ok(progress.every((m) => m.params.progressToken === 'p20'));
  assert.equal(byId(server, 20)[0]?.result?.isError, undefined);
  await server.close();
});

test('after notifications/cancelled nothing more about that request is written', async () => {
  for (const [run, delayMs] of [0, 0, 30, 150, 400].entries()) {
    const server = await session();
    const id = 30 + run;
    const token = `p${id}`;
    server.send(hashCall(id, token));
    if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    server.send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: id, reason: 't' },
    });
    // Processed in order: once the ping is answered, the cancel has been read.
    server.send({ jsonrpc: '2.0', id: 99, method: 'ping' });
    await until(server, 'ping', () => byId(server, 99).length === 1);
    const pingAt = server.messages().findIndex((m) => m.id === 99);
    // Long enough for the whole 1.5 GiB hash to have finished had it not been cancelled.
    await new Promise((r) => setTimeout(r, 3000));
    const all = server.messages();
    assert.deepEqual(byId(server, id), [], `run ${run}: a response was sent for the cancelled id`);
    const late = all.slice(pingAt + 1).filter((m) => m.params?.progressToken === token);
    assert.deepEqual(late, [], `run ${run}: progress for the cancelled request after the cancel was read`);
    await server.close();
  }
});
