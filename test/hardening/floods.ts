// Flood scenarios against the built server as a process, at any size: the CI slice runs them at the
// sizes of the load test that broke the server (stdio-process.test.ts), the long campaign at ten times
// those (floods.long.ts).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SERVER_ENTRY } from '../kit/mcp-harness.js';
import { INITIALIZE, INITIALIZED } from '../kit/raw-server.js';

export const line = (m: unknown) => `${JSON.stringify(m)}\n`;

export function spawnServer(root: string) {
  return spawn(process.execPath, [SERVER_ENTRY, 'serve'], {
    env: { PATH: process.env.PATH ?? '', RE_MCP_WORKSPACE_ROOT: root, RE_MCP_PROFILE: 'full' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Counts reply lines by id as they stream in, without keeping the text. */
export function replyCounter(stream: NodeJS.ReadableStream) {
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

/** A built server past initialize, with its replies counted as they stream in. */
async function initializedServer(root: string) {
  const child = spawnServer(root);
  const replies = replyCounter(child.stdout);
  child.stdin.write(line(INITIALIZE) + line(INITIALIZED));
  for (let i = 0; i < 10 && !replies.ids.has('1'); i++) await new Promise((r) => setTimeout(r, 200));
  return { child, replies };
}

/** A client that stops reading while it sends `N` tools/list; returns the RSS figures. */
export async function pausedReaderFlood(
  root: string,
  N: number,
  diagnostic: (s: string) => void,
): Promise<void> {
  const { child, replies } = await initializedServer(root);
  await new Promise((r) => setTimeout(r, 300));
  const baseline = rssMiB(child.pid!);
  child.stdout.pause();
  let text = '';
  for (let i = 0; i < N; i++) text += line({ jsonrpc: '2.0', id: `l${i}`, method: 'tools/list' });
  child.stdin.write(text);
  let peak = 0;
  for (let i = 0; i < 20; i++) {
    await new Promise((r) => setTimeout(r, 100));
    peak = Math.max(peak, rssMiB(child.pid!));
  }
  child.stdout.resume();
  const end = Date.now() + 120_000 * Math.max(1, N / 8_000);
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
  diagnostic(`RSS ${baseline.toFixed(0)} MiB at rest, ${peak.toFixed(0)} MiB at peak`);
  assert.ok(peak - baseline < 300, `RSS ${baseline.toFixed(0)} -> peak ${peak.toFixed(0)} MiB`);
}

/** `N` concurrent tool calls; each must be answered or refused busy, memory bounded. */
export async function concurrentCallFlood(
  root: string,
  rom: string,
  N: number,
  diagnostic: (s: string) => void,
): Promise<void> {
  const { child, replies } = await initializedServer(root);
  const baseline = rssMiB(child.pid!);
  let text = '';
  for (let i = 0; i < N; i++) {
    text += line({
      jsonrpc: '2.0',
      id: `d${i}`,
      method: 'tools/call',
      params: { name: 'nds_discover_functions', arguments: { rom, processor: 'arm9' } },
    });
  }
  child.stdin.write(text);
  let peak = 0;
  const end = Date.now() + 240_000 * Math.max(1, N / 4_000);
  while ([...replies.ids.keys()].filter((k) => k.startsWith('d')).length < N && Date.now() < end) {
    peak = Math.max(peak, rssMiB(child.pid!));
    await new Promise((r) => setTimeout(r, 50));
  }
  const exit = new Promise((r) => child.on('exit', r));
  child.stdin.end();
  await exit;
  for (let i = 0; i < N; i++) assert.equal(replies.ids.get(`d${i}`), 1, `d${i} answered once`);
  diagnostic(
    `${replies.busy.size} of ${N} refused busy; RSS ${baseline.toFixed(0)} -> ${peak.toFixed(0)} MiB`,
  );
  assert.ok(replies.busy.size > 0 && replies.busy.size < N, `${replies.busy.size} refused busy`);
  // Before: RSS 4.9 GB and 76 answered.
  assert.ok(peak - baseline < 300, `RSS ${baseline.toFixed(0)} -> peak ${peak.toFixed(0)} MiB`);
}
