// The stdio session under pressure, in process (the real transport, session and tool catalog, over
// streams the test controls): a client that stops reading, a flood of concurrent tool calls, and a
// flood of cancels. Output stays bounded, every request is answered or refused, nothing about a
// finished request is kept, and a reused id is answered.
import assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { test } from 'node:test';
import { z } from 'zod/v4';
import { profileTools } from '../../src/cli/catalog.js';
import { loadConfig } from '../../src/config/config.js';
import { CALL_ADMISSION, McpSession } from '../../src/mcp/session.js';
import { LINES_PER_TURN, LineStdioTransport, OUTPUT_HIGH_BYTES } from '../../src/mcp/stdio-transport.js';
import { defineTool } from '../../src/mcp/tool.js';
import { Services } from '../../src/services.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { makeWorkspace } from '../kit/mcp-harness.js';

/** A tool that waits until it is cancelled or `ms` have passed. */
const waitTool = defineTool({
  name: 'test_wait',
  title: 'Wait',
  profiles: ['project'],
  description: { purpose: 'p', useWhen: 'u', behaviour: 'b', limits: 'l', returns: 'r' },
  input: z.object({ ms: z.number().int().min(0).max(60_000).describe('ms') }),
  output: z.object({ waited: z.number() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, args.ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(t);
        resolve();
      });
    });
    return { structured: { waited: args.ms }, text: `waited ${args.ms} ms` };
  },
});

/** An output whose reader can be paused: written bytes wait until resume(). */
class Reader extends Writable {
  private paused = false;
  private held: Array<() => void> = [];
  lines = 0;
  private tail = '';
  readonly ids = new Map<string, number>();
  readonly busyIds = new Set<string>();
  constructor() {
    super({ highWaterMark: 16 * 1024 });
  }
  override _write(chunk: Buffer, _enc: string, done: () => void): void {
    const text = this.tail + chunk.toString('utf8');
    const parts = text.split('\n');
    this.tail = parts.pop()!;
    for (const line of parts) {
      if (line === '') continue;
      this.lines++;
      // Only the envelope is needed: the id, and whether a tool result says busy.
      const m = /^\{"jsonrpc":"2.0","id":("[^"]*"|\d+)/.exec(line) ?? /"id":("[^"]*"|\d+)/.exec(line);
      if (m) {
        const id = m[1]!.replace(/"/g, '');
        this.ids.set(id, (this.ids.get(id) ?? 0) + 1);
        if (line.includes('[busy]')) this.busyIds.add(id);
      }
    }
    if (this.paused) this.held.push(done);
    else done();
  }
  pause(): void {
    this.paused = true;
  }
  resume(): void {
    this.paused = false;
    const h = this.held;
    this.held = [];
    for (const d of h) d();
  }
}

async function session(output: Writable) {
  const root = await makeWorkspace('re-mcp-pressure-');
  const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
  const real = (await profileTools('full')).source;
  const source = {
    listed: () => real.listed(),
    listedJson: () => real.listedJson(),
    load: async (name: string) => (name === waitTool.name ? waitTool : real.load(name)),
  };
  const input = new PassThrough();
  const transport = new LineStdioTransport(input, output, () => {});
  const s = new McpSession(source as never, services, transport, () => {});
  await s.connect();
  const send = (m: unknown) => input.write(`${JSON.stringify(m)}\n`);
  send({
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { input, transport, session: s, send, services };
}

const until = async (cond: () => boolean, ms = 30_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 5));
  }
};
/**
 * Waits until `count()` reaches `target`, failing only when it stops growing for `stallMs`: a loaded
 * machine answers more slowly, a stuck session not at all.
 */
const untilCount = async (count: () => number, target: number, stallMs = 30_000) => {
  let last = count();
  let since = Date.now();
  while (count() < target) {
    const now = count();
    if (now !== last) [last, since] = [now, Date.now()];
    else if (Date.now() - since > stallMs) throw new Error(`stuck at ${now} of ${target} for ${stallMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

test('a client that stops reading: the output queue stays bounded, input waits, and every request is answered after', async () => {
  const out = new Reader();
  const { input, send, transport } = await session(out);
  await until(() => out.ids.has('init'));
  out.pause();
  const N = 8_000;
  for (let i = 0; i < N; i++) send({ jsonrpc: '2.0', id: i, method: 'tools/list' });
  // Let the session run as far as it will.
  await new Promise((r) => setTimeout(r, 500));
  const queued = out.writableLength;
  const oneList = Buffer.byteLength(
    `{"jsonrpc":"2.0","id":0,"result":{"tools":${((await profileTools('full')).source).listedJson()}}}\n`,
  );
  assert.ok(queued <= OUTPUT_HIGH_BYTES + LINES_PER_TURN * oneList, `${queued} bytes queued`);
  assert.ok(out.lines < N, 'the session stopped answering while nobody read');
  assert.ok(input.isPaused(), 'input is paused under back-pressure');
  out.resume();
  await untilCount(() => out.lines, N + 1);
  for (let i = 0; i < N; i++) assert.equal(out.ids.get(String(i)), 1, `request ${i}`);
  assert.equal(transport.openRequests, 0);
});

test('a flood of concurrent tool calls: the admission bound runs, queues or refuses each, and answers all', async () => {
  const out = new Reader();
  const { send, transport } = await session(out);
  const N = 4_000;
  for (let i = 0; i < N; i++)
    send({
      jsonrpc: '2.0',
      id: `c${i}`,
      method: 'tools/call',
      params: { name: 'test_wait', arguments: { ms: 300 } },
    });
  await untilCount(() => [...out.ids.keys()].filter((k) => k.startsWith('c')).length, N);
  for (let i = 0; i < N; i++) assert.equal(out.ids.get(`c${i}`), 1, `c${i} answered once`);
  const busy = out.busyIds.size;
  const admitted = N - busy;
  // The first running + waiting are admitted at once; later ones as earlier ones finish.
  assert.ok(admitted >= CALL_ADMISSION.running + CALL_ADMISSION.waiting, `${admitted} admitted`);
  assert.ok(busy > 0, 'some calls were refused busy');
  assert.equal(transport.openRequests, 0);
});

test('cancelled requests are forgotten, and a cancelled id reused is answered', async () => {
  const out = new Reader();
  const { send, transport } = await session(out);
  await until(() => out.ids.has('init'));
  const token = 't'.repeat(4096);
  const N = 20_000;
  for (let i = 0; i < N; i++) {
    send({
      jsonrpc: '2.0',
      id: `x${i}`,
      method: 'tools/call',
      params: { name: 'test_wait', arguments: { ms: 60_000 }, _meta: { progressToken: `${token}${i}` } },
    });
    send({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: `x${i}`, reason: 'test' },
    });
  }
  await until(() => transport.openRequests === 0);
  // Nothing was written about the cancelled calls that were admitted (refusals of full queues aside).
  const answered = [...out.ids.keys()].filter((k) => k.startsWith('x'));
  for (const id of answered) assert.ok(out.busyIds.has(id), `${id} was answered after its cancel`);
  // The same id again: a new request, answered.
  send({ jsonrpc: '2.0', id: 'x7', method: 'ping' });
  await until(() => out.ids.get('x7') === (out.busyIds.has('x7') ? 2 : 1));
  assert.equal(transport.openRequests, 0);
});
