// The built server as a process under the load-test patterns: a client that writes its requests and
// closes stdin gets every reply in full; a client that stops reading, and one that sends 4,000 tool
// calls at once, leave the server's memory bounded and every request answered or refused.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Fixture, writeFixture } from '../extract/fixture.js';
import { makeWorkspace, SERVER_ENTRY } from '../kit/mcp-harness.js';
import { INITIALIZE, INITIALIZED } from '../kit/raw-server.js';

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

const line = (m: unknown) => `${JSON.stringify(m)}\n`;

function spawnServer() {
  return spawn(process.execPath, [SERVER_ENTRY, 'serve'], {
    env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: root },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Counts reply lines by id as they stream in, without keeping the text. */
function replyCounter(stream: NodeJS.ReadableStream) {
  const ids = new Map<string, number>();
  const busy = new Set<string>();
  let tail = '';
  stream.on('data', (c: Buffer) => {
    const parts = (tail + c.toString('utf8')).split('\n');
    tail = parts.pop()!;
    for (const l of parts) {
      const m = /"id":("[^"]*"|\d+)/.exec(l);
      if (!m) continue;
      const id = m[1]!.replace(/"/g, '');
      ids.set(id, (ids.get(id) ?? 0) + 1);
      if (l.includes('[busy]')) busy.add(id);
    }
  });
  return { ids, busy };
}

test('requests written before stdin closes are all answered in full, 100 runs out of 100', async () => {
  const run = () =>
    new Promise<{ out: string; code: number | null }>((resolve) => {
      const child = spawnServer();
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
  const child = spawnServer();
  const replies = replyCounter(child.stdout);
  child.stdin.write(line(INITIALIZE) + line(INITIALIZED));
  for (let i = 0; i < 10 && !replies.ids.has('1'); i++) await new Promise((r) => setTimeout(r, 200));
  await new Promise((r) => setTimeout(r, 300));
  const baseline = rssMiB(child.pid!);
  child.stdout.pause();
  const N = 8_000;
  let text = '';
  for (let i = 0; i < N; i++) text += line({ jsonrpc: '2.0', id: `l${i}`, method: 'tools/list' });
  child.stdin.write(text);
  let peak = 0;
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 100));
    peak = Math.max(peak, rssMiB(child.pid!));
  }
  child.stdout.resume();
  const end = Date.now() + 120_000;
  while ([...replies.ids.keys()].filter((k) => k.startsWith('l')).length < N && Date.now() < end) {
    peak = Math.max(peak, rssMiB(child.pid!));
    await new Promise((r) => setTimeout(r, 50));
  }
  const exit = new Promise((r) => child.on('exit', r));
  child.stdin.end();
  await exit;
  for (let i = 0; i < N; i++) assert.equal(replies.ids.get(`l${i}`), 1, `l${i}`);
  // Before: 705 MB of queued output, RSS 2.3 GB. The bound is the output queue (8 MiB) and one turn's
  // answers over it, on top of what the server holds at rest.
  t.diagnostic(`RSS ${baseline.toFixed(0)} MiB at rest, ${peak.toFixed(0)} MiB at peak`);
  assert.ok(peak - baseline < 300, `RSS ${baseline.toFixed(0)} -> peak ${peak.toFixed(0)} MiB`);
});

test('4,000 concurrent tool calls: each answered or refused busy, memory bounded', async (t) => {
  const child = spawnServer();
  const replies = replyCounter(child.stdout);
  child.stdin.write(line(INITIALIZE) + line(INITIALIZED));
  for (let i = 0; i < 10 && !replies.ids.has('1'); i++) await new Promise((r) => setTimeout(r, 200));
  const baseline = rssMiB(child.pid!);
  const N = 4_000;
  let text = '';
  for (let i = 0; i < N; i++) {
    text += line({
      jsonrpc: '2.0',
      id: `d${i}`,
      method: 'tools/call',
      params: { name: 'nds_discover_functions', arguments: { rom: fx.rel, processor: 'arm9' } },
    });
  }
  child.stdin.write(text);
  let peak = 0;
  const end = Date.now() + 240_000;
  while ([...replies.ids.keys()].filter((k) => k.startsWith('d')).length < N && Date.now() < end) {
    peak = Math.max(peak, rssMiB(child.pid!));
    await new Promise((r) => setTimeout(r, 50));
  }
  const exit = new Promise((r) => child.on('exit', r));
  child.stdin.end();
  await exit;
  for (let i = 0; i < N; i++) assert.equal(replies.ids.get(`d${i}`), 1, `d${i} answered once`);
  t.diagnostic(
    `${replies.busy.size} of ${N} refused busy; RSS ${baseline.toFixed(0)} -> ${peak.toFixed(0)} MiB`,
  );
  assert.ok(replies.busy.size > 0 && replies.busy.size < N, `${replies.busy.size} refused busy`);
  // Before: RSS 4.9 GB and 76 answered.
  assert.ok(peak - baseline < 300, `RSS ${baseline.toFixed(0)} -> peak ${peak.toFixed(0)} MiB`);
});
