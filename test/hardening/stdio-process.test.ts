// The built server as a process under the load-test patterns: a client that writes its requests and
// closes stdin gets every reply in full; a client that stops reading, and one that sends 4,000 tool
// calls at once, leave the server's memory bounded and every request answered or refused.
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Fixture, writeFixture } from '../extract/fixture.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { INITIALIZE, INITIALIZED } from '../kit/raw-server.js';
import { concurrentCallFlood, line, pausedReaderFlood, spawnServer } from './floods.js';

let root: string;
let fx: Fixture;

before(async () => {
  root = await makeWorkspace('re-mcp-stdio-process-');
  fx = await writeFixture(root);
  await writeFile(join(root, 'plain.bin'), 'abc');
});

after(async () => {
  await rm(root, { recursive: true, force: true });
});

test('requests written before stdin closes are all answered in full, 100 runs out of 100', async () => {
  const run = () =>
    new Promise<{ out: string; code: number | null }>((resolve) => {
      const child = spawnServer(root);
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString('utf8');
      });
      child.on('exit', (code) => resolve({ out, code }));
      child.stdin.end(
        line(INITIALIZE) +
          line(INITIALIZED) +
          line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) +
          line({
            jsonrpc: '2.0',
            id: 3,
            method: 'tools/call',
            params: { name: 'verify_file_sha256', arguments: { path: 'plain.bin' } },
          }) +
          line({
            jsonrpc: '2.0',
            id: 4,
            method: 'tools/call',
            params: { name: 'nds_inspect_rom', arguments: { rom: fx.rel } },
          }),
      );
    });
  let full = 0;
  for (let batch = 0; batch < 20; batch++) {
    const results = await Promise.all(Array.from({ length: 5 }, run));
    for (const { out, code } of results) {
      assert.equal(code, 0);
      const replies = out
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { id: number; result?: { tools?: unknown[]; isError?: boolean } });
      const byId = new Map(replies.map((r) => [r.id, r]));
      assert.ok((byId.get(2)?.result?.tools?.length ?? 0) > 50, 'tools/list arrived whole');
      assert.equal(byId.get(3)?.result?.isError, undefined);
      assert.equal(byId.get(4)?.result?.isError, undefined);
      full++;
    }
  }
  assert.equal(full, 100);
});

test('a client that stops reading while sending 8,000 tools/list: bounded memory, then every reply', async (t) => {
  await pausedReaderFlood(root, 8_000, (s) => t.diagnostic(s));
});

test('4,000 concurrent tool calls: each answered or refused busy, memory bounded', async (t) => {
  await concurrentCallFlood(root, fx.rel, 4_000, (s) => t.diagnostic(s));
});
