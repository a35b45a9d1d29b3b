// Older protocol versions (raw wire): a client that negotiated 2024-11-05 or 2025-03-26 gets no
// outputSchema, title or structuredContent (they do not exist there), and the text block still
// carries the data. 2025-06-18 gets all of them.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadAllTools } from '../../src/tools/index.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { INITIALIZED, startRawServer } from '../kit/raw-server.js';

const ALL_TOOLS = await loadAllTools();

async function exchange(version: string) {
  const workspace = await makeWorkspace();
  await writeFile(join(workspace, 'a.bin'), Buffer.from('abc'));
  const server = await startRawServer(workspace);
  server.send({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'old', version: '1' } },
  });
  server.send(INITIALIZED);
  server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
  server.send({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { name: 'verify_file_sha256', arguments: { path: 'a.bin' } },
  });
  await server.waitFor('"id":3');
  await server.close();
  await rm(workspace, { recursive: true, force: true });
  const byId = new Map(server.messages().map((m) => [m.id, m]));
  return {
    negotiated: byId.get(1)?.result?.protocolVersion,
    tools: byId.get(2)?.result?.tools as Array<Record<string, unknown>>,
    call: byId.get(3)?.result as Record<string, any>,
  };
}

const SHA_ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';

for (const version of ['2024-11-05', '2025-03-26']) {
  test(`protocol ${version}: no outputSchema, title or structuredContent; the text carries the data`, async () => {
    const r = await exchange(version);
    assert.equal(r.negotiated, version);
    assert.equal(r.tools.length, ALL_TOOLS.length);
    for (const tool of r.tools) {
      assert.equal(tool.outputSchema, undefined, `${tool.name} outputSchema`);
      assert.equal(tool.title, undefined, `${tool.name} title`);
      assert.equal('annotations' in tool, version !== '2024-11-05', `${tool.name} annotations`);
    }
    assert.equal(r.call.structuredContent, undefined);
    assert.match(r.call.content[0].text, new RegExp(`sha256: ${SHA_ABC}`));
  });
}

test('protocol 2025-06-18: outputSchema, title and structuredContent are sent', async () => {
  const r = await exchange('2025-06-18');
  assert.equal(r.negotiated, '2025-06-18');
  assert.ok(r.tools.every((t) => t.outputSchema && t.title));
  assert.equal(r.call.structuredContent.sha256, SHA_ABC);
});
