// Pipeline edges an attacker (or a sloppy handler) can reach: inherited property names as
// arguments, progress reported after the result, and error results larger than the output bound.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod/v4';
import { loadConfig, OUTPUT_BYTES } from '../../src/config/config.js';
import { ReMcpError } from '../../src/core/errors.js';
import { invokeTool } from '../../src/mcp/invoke.js';
import { defineTool, type ProgressUpdate, type ToolContext } from '../../src/mcp/tool.js';
import { Services } from '../../src/services.js';
import { loadAllTools } from '../../src/tools/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { makeWorkspace } from '../kit/mcp-harness.js';

async function services() {
  const root = await makeWorkspace();
  const config = loadConfig({ RE_MCP_WORKSPACE_ROOT: root, RE_MCP_MAX_OUTPUT_BYTES: '65536' });
  return new Services(config, new Workspace(root));
}

let leaked: ToolContext | null = null;

const tool = defineTool({
  name: 'edge',
  title: 'Edge',
  profiles: ['project'],
  description: { purpose: 'p', useWhen: 'u', behaviour: 'b', limits: 'l', returns: 'r' },
  input: z.object({ mode: z.enum(['ok', 'huge-error']).default('ok').describe('mode') }),
  output: z.object({ ok: z.boolean() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    leaked = ctx;
    if (args.mode === 'huge-error')
      throw new ReMcpError('invalid-rom', 'm'.repeat(100_000), { blob: 'd'.repeat(100_000) });
    return { structured: { ok: true }, text: 'ok' };
  },
});

test('inherited property names are unknown arguments, not silently dropped', async () => {
  const s = await services();
  for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
    const args = JSON.parse(`{"${key}": 1}`);
    const r = await invokeTool(tool, args, s, { signal: new AbortController().signal });
    assert.equal(r.isError, true, key);
    assert.equal((r.structuredContent as any).error.code, 'invalid-argument', key);
  }
});

test('progress reported after the result is dropped', async () => {
  const s = await services();
  const seen: ProgressUpdate[] = [];
  const r = await invokeTool(tool, {}, s, {
    signal: new AbortController().signal,
    onProgress: (u) => seen.push(u),
  });
  assert.equal(r.isError, undefined);
  leaked!.progress({ progress: 1, total: 1 });
  assert.deepEqual(seen, []);
});

test('an error result is bounded by RE_MCP_MAX_OUTPUT_BYTES too', async () => {
  const s = await services();
  const r = await invokeTool(tool, { mode: 'huge-error' }, s, { signal: new AbortController().signal });
  assert.equal(r.isError, true);
  assert.equal((r.structuredContent as any).error.code, 'invalid-rom');
  assert.ok(Buffer.byteLength(JSON.stringify(r)) <= 65_536, `${Buffer.byteLength(JSON.stringify(r))} bytes`);
});

test('at the minimum RE_MCP_MAX_OUTPUT_BYTES, server_capabilities itself still fits', async () => {
  const root = await makeWorkspace();
  const config = loadConfig({
    RE_MCP_WORKSPACE_ROOT: root,
    RE_MCP_MAX_OUTPUT_BYTES: String(OUTPUT_BYTES.min),
  });
  const s = new Services(config, new Workspace(root));
  const all = await loadAllTools();
  s.tools = all;
  const def = all.find((t) => t.name === 'server_capabilities')!;
  const r = await invokeTool(def, {}, s, { signal: new AbortController().signal });
  assert.equal(r.isError, undefined, JSON.stringify(r.structuredContent).slice(0, 300));
});
