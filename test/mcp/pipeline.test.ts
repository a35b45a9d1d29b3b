// The shared tool pipeline: argument errors, thrown bugs, schema violations, the output bound,
// progress and cancellation behave the same for every tool.
import assert from 'node:assert/strict';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { z } from 'zod/v4';
import { loadConfig } from '../../src/config/config.js';
import { ReMcpError } from '../../src/core/errors.js';
import { invokeTool } from '../../src/mcp/invoke.js';
import { defineTool } from '../../src/mcp/tool.js';
import { Services } from '../../src/services.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { makeWorkspace, startServer } from '../kit/mcp-harness.js';

async function services(extra: Record<string, string> = {}) {
  const root = await makeWorkspace();
  const config = loadConfig({ RE_MCP_WORKSPACE_ROOT: root, ...extra });
  return new Services(config, new Workspace(root));
}

const echo = defineTool({
  name: 'echo',
  title: 'Echo',
  profiles: ['project'],
  description: { purpose: 'p', useWhen: 'u', behaviour: 'b', limits: 'l', returns: 'r' },
  input: z.object({
    n: z.number().int().min(0).max(10).describe('n'),
    mode: z.enum(['ok', 'throw', 'bug', 'bad-output', 'big']).default('ok'),
  }),
  output: z.object({ n: z.number(), blob: z.string().optional() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args) {
    if (args.mode === 'throw') throw new ReMcpError('not-found', 'nothing there', { n: args.n });
    if (args.mode === 'bug') throw new TypeError('oops');
    if (args.mode === 'bad-output') return { structured: { n: 'x' as unknown as number }, text: 'bad' };
    if (args.mode === 'big') return { structured: { n: args.n, blob: 'y'.repeat(100_000) }, text: 'big' };
    return { structured: { n: args.n * 2 }, text: `doubled ${args.n}` };
  },
});

const run = async (args: unknown, s?: Services) =>
  invokeTool(echo, args, s ?? (await services()), { signal: new AbortController().signal, log: () => {} });

test('success carries structuredContent and a text block with the summary and the data', async () => {
  const r = await run({ n: 3 });
  assert.equal(r.isError, undefined);
  assert.deepEqual(r.structuredContent, { n: 6 });
  assert.deepEqual(r.content, [{ type: 'text', text: 'doubled 3\n\nn: 6' }]);
});

test('bad arguments are invalid-argument with the offending field named', async () => {
  for (const bad of [
    {},
    { n: 1, extra: true },
    { n: 11 },
    { n: 1.5 },
    { n: '1' },
    { n: 1, mode: 'nope' },
    null,
    'str',
  ]) {
    const r = await run(bad);
    assert.equal(r.isError, true);
    const error = (r.structuredContent as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'invalid-argument', JSON.stringify(bad));
  }
  const r = await run({ n: 99 });
  assert.match((r.structuredContent as { error: { message: string } }).error.message, /^n: /);
});

test('typed errors keep their code and details; bugs become internal-error', async () => {
  const typed = await run({ n: 1, mode: 'throw' });
  assert.deepEqual(typed.structuredContent, {
    error: { code: 'not-found', message: 'nothing there', details: { n: 1 } },
  });
  assert.equal(typed.content[0]?.type === 'text' && typed.content[0].text, '[not-found] nothing there');
  const bug = await run({ n: 1, mode: 'bug' });
  assert.equal((bug.structuredContent as { error: { code: string } }).error.code, 'internal-error');
  const bad = await run({ n: 1, mode: 'bad-output' });
  assert.equal((bad.structuredContent as { error: { code: string } }).error.code, 'internal-error');
});

test('a result over RE_MCP_MAX_OUTPUT_BYTES is refused whole, never cut', async () => {
  const s = await services({ RE_MCP_MAX_OUTPUT_BYTES: '65536' });
  const r = await run({ n: 1, mode: 'big' }, s);
  assert.equal(r.isError, true);
  const error = (r.structuredContent as { error: { code: string; details: { resultBytes: number } } }).error;
  assert.equal(error.code, 'output-too-large');
  assert.ok(error.details.resultBytes > 100_000);
  assert.equal((await run({ n: 1 }, s)).isError, undefined);
});

const sized = defineTool({
  name: 'sized',
  title: 'Sized',
  profiles: ['project'],
  description: { purpose: 'p', useWhen: 'u', behaviour: 'b', limits: 'l', returns: 'r' },
  input: z.object({ chars: z.number().int().min(0).max(100_000), unit: z.string().max(4) }),
  output: z.object({ blob: z.string(), rows: z.array(z.object({ k: z.string() })) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args) {
    const blob = args.unit.repeat(args.chars);
    return {
      structured: { blob, rows: [{ k: `a${args.unit}\u0007` }, { k: 'b' }] },
      text: `s\u202e${args.unit}`,
    };
  },
});

test('the bound is counted exactly: an accepted result fits, a refused one is over (multi-byte and escaped text)', async () => {
  const limit = 65536;
  const s = await services({ RE_MCP_MAX_OUTPUT_BYTES: String(limit) });
  for (const unit of ['y', '\u00e9', '\u{1f600}', '"', '\u0001']) {
    let accepted = 0;
    let refused = 0;
    for (let chars = 0; chars < limit + 4000; chars += 1733) {
      const r = await invokeTool(sized, { chars, unit }, s, {
        signal: new AbortController().signal,
        log: () => {},
      });
      const bytes = Buffer.byteLength(JSON.stringify(r), 'utf8');
      if (r.isError) {
        const error = (r.structuredContent as { error: { code: string; details: { resultBytes: number } } })
          .error;
        assert.equal(error.code, 'output-too-large');
        assert.ok(error.details.resultBytes > limit);
        refused++;
      } else {
        assert.ok(bytes <= limit, `${bytes} bytes over ${limit} (${chars} x ${JSON.stringify(unit)})`);
        accepted++;
      }
    }
    assert.ok(accepted > 0 && refused > 0, `both sides of the bound seen for ${JSON.stringify(unit)}`);
  }
});

test('progress is reported over MCP and cancellation stops a long hash', async () => {
  const h = await startServer();
  const big = join(h.workspace, 'big.bin');
  const handle = await open(big, 'w');
  // 1 GiB sparse file: hashing it takes seconds, long enough to see progress and cancel.
  await handle.truncate(1024 * 1024 * 1024);
  await handle.close();
  try {
    const controller = new AbortController();
    const progress: number[] = [];
    const call = h.client.callTool(
      { name: 'verify_file_sha256', arguments: { path: 'big.bin' } },
      {
        signal: controller.signal,
        onprogress: (p: { progress: number }) => {
          progress.push(p.progress);
          if (progress.length === 2) controller.abort();
        },
      },
    );
    await assert.rejects(call);
    assert.ok(progress.length >= 2, 'progress notifications arrived');
    assert.ok(progress[1]! > progress[0]!, 'progress increases');
    // The server is still healthy after the cancellation.
    const caps = await h.ok<{ version: string }>('server_capabilities', {});
    assert.ok(caps.version);
  } finally {
    await rm(big, { force: true });
    await h.close();
  }
});
