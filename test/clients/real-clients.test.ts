// The built server under three MCP clients this project did not write: the TypeScript SDK 1.x
// Client (inside most hosts), the MCP Inspector CLI and the Python SDK client. Every tool answers an
// error that shows our code and message; each family has a success whose text block carries the data.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { open, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadAllTools } from '../../src/tools/index.js';
import { makeWorkspace, REPO_ROOT, SERVER_ENTRY } from '../kit/mcp-harness.js';
import { pythonWithMcp } from '../kit/python-sdk.js';
import { freeUdpPort } from '../kit/retroarch/launch.js';
import { checkWireResult } from '../kit/schema-check.js';
import { CASES, type Case, prepareWorkspace } from './cases.js';

const ALL_TOOLS = await loadAllTools();

const run = promisify(execFile);
let workspace: string;
/**
 * RetroArch settings naming UDP ports chosen free just now, where nothing listens: the RetroArch case
 * expects unreachable, and a user's own RetroArch on the default ports must not answer it.
 */
let silentRetroArch: Record<string, string>;

before(async () => {
  assert.ok(existsSync(SERVER_ENTRY), 'run npm run build first');
  silentRetroArch = {
    RETROARCH_PORT: String(await freeUdpPort()),
    RETROARCH_REMOTE_PAD_PORT: String(await freeUdpPort()),
  };
  workspace = await makeWorkspace();
  await prepareWorkspace(workspace);
  const big = await open(join(workspace, 'big.bin'), 'w');
  await big.truncate(1536 * 1024 * 1024); // sparse: progress and cancellation need a long hash
  await big.close();
});
after(() => rm(workspace, { recursive: true, force: true }));

interface Result {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  _meta?: Record<string, unknown>;
}

function assertCase(c: Case, r: Result, client: string): void {
  const text = r.content[0]?.text ?? '';
  if (c.code) {
    assert.equal(r.isError, true, `${client} ${c.tool}: expected ${c.code}`);
    assert.equal(
      (r._meta?.['re-mcp/error'] as { code?: string } | undefined)?.code,
      c.code,
      `${client} ${c.tool}`,
    );
    assert.ok(text.startsWith(`[${c.code}] `), `${client} ${c.tool}: text ${text}`);
  } else {
    assert.notEqual(r.isError, true, `${client} ${c.tool}: ${text}`);
    assert.match(text, c.textMatches as RegExp, `${client} ${c.tool}: the text block alone lacks the data`);
  }
}

test('TypeScript SDK 1.x Client: every tool errors intact, every family succeeds, SDK-validated', async () => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER_ENTRY, 'serve'],
    env: {
      PATH: process.env.PATH ?? '',
      RE_MCP_WORKSPACE_ROOT: workspace,
      RE_MCP_PROFILE: 'full',
      ...silentRetroArch,
    },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'sdk1-test', version: '0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools(); // also arms the SDK's own outputSchema validation
    assert.equal(tools.length, ALL_TOOLS.length);
    const schemas = new Map(tools.map((t) => [t.name, t.outputSchema as object | undefined]));
    for (const tool of tools) {
      const r = (await client.callTool({ name: tool.name, arguments: { zz_unknown: 1 } })) as Result;
      assertCase({ family: '', tool: tool.name, args: {}, code: 'invalid-argument' }, r, 'sdk1');
      checkWireResult(tool.name, schemas.get(tool.name), r);
    }
    for (const c of CASES) {
      const r = (await client.callTool({ name: c.tool, arguments: c.args })) as Result;
      assertCase(c, r, 'sdk1');
      checkWireResult(c.tool, schemas.get(c.tool), r);
    }
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /-32602|unknown tool/);
  } finally {
    await client.close();
  }
});

function inspectorArgs(args: Record<string, unknown>): string[] {
  return Object.entries(args).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
}

/** Exit status of the Inspector CLI when the tool result has isError (it prints the result first). */
const INSPECTOR_TOOL_ERROR = 5;

async function inspector(method: string[], expectToolError = false): Promise<Record<string, unknown>> {
  const bin = join(REPO_ROOT, 'node_modules', '.bin', 'mcp-inspector');
  const argv = [
    '--cli',
    '-e',
    `RE_MCP_WORKSPACE_ROOT=${workspace}`,
    '-e',
    'RE_MCP_PROFILE=full',
    ...Object.entries(silentRetroArch).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    process.execPath,
    SERVER_ENTRY,
    'serve',
  ];
  try {
    const { stdout } = await run(bin, [...argv, ...method], { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
    assert.ok(!expectToolError, 'the Inspector exited 0 for an error result');
    return JSON.parse(stdout);
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; message: string };
    if (!expectToolError || failed.code !== INSPECTOR_TOOL_ERROR) throw error;
    return JSON.parse(failed.stdout ?? '');
  }
}

test('MCP Inspector CLI: tools/list, a success and an error per family, object and hex arguments', async () => {
  const listed = (await inspector(['--method', 'tools/list', '--strict'])) as {
    tools: Array<{ name: string }>;
  };
  assert.equal(listed.tools.length, ALL_TOOLS.length);
  for (const c of CASES) {
    const r = (await inspector(
      [
        '--method',
        'tools/call',
        '--tool-name',
        c.tool,
        ...(Object.keys(c.args).length > 0 ? ['--tool-arg', ...inspectorArgs(c.args)] : []),
      ],
      c.code !== undefined,
    )) as unknown as Result;
    assertCase(c, r, 'inspector');
  }
});

test('Python SDK client: every tool errors intact, every family succeeds, progress and cancellation', async () => {
  const python = await pythonWithMcp();
  const casesFile = join(workspace, 'cases.json');
  await writeFile(casesFile, JSON.stringify(CASES));
  const { stdout } = await run(
    python,
    [
      join(REPO_ROOT, 'test', 'clients', 'python_client.py'),
      casesFile,
      workspace,
      SERVER_ENTRY,
      JSON.stringify(silentRetroArch),
    ],
    { timeout: 180_000, maxBuffer: 16 * 1024 * 1024 },
  );
  const report = JSON.parse(stdout) as {
    tools: string[];
    cases: Array<{
      tool: string;
      isError: boolean;
      text: string;
      code: string | null;
      expect?: string | null;
    }>;
    progress: number[][];
    progress_result_error: boolean;
    cancelled: boolean;
    after_cancel: boolean;
  };
  assert.equal(report.tools.length, ALL_TOOLS.length);
  for (const [i, r] of report.cases.entries()) {
    const c = i < report.tools.length ? undefined : CASES[i - report.tools.length];
    const expected = c ? c.code : 'invalid-argument';
    const result: Result = {
      isError: r.isError,
      content: [{ type: 'text', text: r.text }],
      ...(r.code ? { _meta: { 're-mcp/error': { code: r.code } } } : {}),
    };
    assertCase(c ?? { family: '', tool: r.tool, args: {}, code: expected }, result, 'python');
  }
  assert.equal(report.progress_result_error, false);
  assert.ok(report.progress.length >= 2, `progress notifications seen: ${report.progress.length}`);
  assert.equal(report.cancelled, true);
  assert.equal(report.after_cancel, true, 'the session serves on after a cancellation');
});
