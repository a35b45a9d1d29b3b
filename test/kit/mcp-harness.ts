// End-to-end harness: spawns the BUILT server (dist/index.js serve) over stdio and talks to it with
// the real MCP client. Run `npm run build` first (npm test does).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { checkWireResult } from './schema-check.js';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const SERVER_ENTRY = join(REPO_ROOT, 'dist', 'index.js');

export interface CallResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
}

export interface Harness {
  client: Client;
  workspace: string;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  call(
    name: string,
    args?: Record<string, unknown>,
    options?: { timeoutMs?: number; onprogress?: (p: unknown) => void },
  ): Promise<CallResult>;
  /** Calls and asserts success; returns structuredContent. */
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** Calls and asserts an error result; returns its {code, message, details}. */
  fail(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<{ code: string; message: string; details?: Record<string, unknown> }>;
  close(): Promise<void>;
}

export async function makeWorkspace(prefix = 're-mcp-ws-'): Promise<string> {
  return realpath(await mkdtemp(join(tmpdir(), prefix)));
}

export async function startServer(
  options: { workspace?: string; env?: Record<string, string>; args?: string[] } = {},
): Promise<Harness> {
  assert.ok(existsSync(SERVER_ENTRY), `${SERVER_ENTRY} is missing: run npm run build first`);
  const ownWorkspace = options.workspace === undefined;
  const workspace = options.workspace ?? (await makeWorkspace());
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER_ENTRY, 'serve', ...(options.args ?? [])],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? '/tmp',
      RE_MCP_WORKSPACE_ROOT: workspace,
      // Tests reach every tool; the default selection is tested on its own (context-budgets.test.ts),
      // by passing RE_MCP_PROFILE: ''.
      RE_MCP_PROFILE: 'full',
      ...options.env,
    },
    stderr: 'pipe',
  });
  let stderrText = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderrText += chunk.toString('utf8');
  });
  const client = new Client({ name: 're-mcp-tests', version: '0.0.0' });
  await client.connect(transport);
  // Every result is checked by ajv against the outputSchema this server published (schema-check.ts).
  let schemas: Promise<Map<string, object | undefined>> | null = null;
  const call: Harness['call'] = async (name, args = {}, callOptions = {}) => {
    schemas ??= client
      .listTools()
      .then((r) => new Map(r.tools.map((t) => [t.name, t.outputSchema as object | undefined])));
    const result = (await client.callTool(
      { name, arguments: args },
      {
        timeout: callOptions.timeoutMs ?? 60_000,
        ...(callOptions.onprogress
          ? { onprogress: callOptions.onprogress, resetTimeoutOnProgress: true }
          : {}),
      },
    )) as CallResult;
    checkWireResult(name, (await schemas).get(name), result);
    return result;
  };
  return {
    client,
    workspace,
    stderr: () => stderrText,
    call,
    async ok(name, args = {}) {
      const result = await call(name, args);
      assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result.content)}`);
      assert.ok(result.structuredContent, `${name} returned no structuredContent`);
      return result.structuredContent as never;
    },
    async fail(name, args = {}) {
      const result = await call(name, args);
      assert.equal(
        result.isError,
        true,
        `${name} unexpectedly succeeded: ${JSON.stringify(result.structuredContent)}`,
      );
      const error = result._meta?.['re-mcp/error'] as { code: string; message: string } | undefined;
      assert.ok(error?.code, `${name} error result carries no code: ${JSON.stringify(result)}`);
      return error;
    },
    async close() {
      await client.close().catch(() => {});
      if (ownWorkspace) await rm(workspace, { recursive: true, force: true });
    },
  };
}
