import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { NAME_ARG_CHARS } from '../../src/core/vocabulary.js';
import { listTools } from '../../src/mcp/published.js';
import { loadAllTools, toolsForProfile } from '../../src/tools/index.js';
import { VERSION } from '../../src/version.js';
import { makeWorkspace, REPO_ROOT, SERVER_ENTRY } from '../kit/mcp-harness.js';
import { INITIALIZE, INITIALIZED, startRawServer } from '../kit/raw-server.js';

const ALL_TOOLS = await loadAllTools();

function cli(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [SERVER_ENTRY, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

test('version is the package version', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  assert.equal(VERSION, pkg.version);
  assert.equal(cli(['--version']).stdout.trim(), pkg.version);
});

test('tools --profile project lists exactly the project tools', () => {
  const run = cli(['tools', '--profile', 'project', '--json']);
  assert.equal(run.status, 0, run.stderr);
  const names = (JSON.parse(run.stdout) as Array<{ name: string }>).map((t) => t.name).sort();
  assert.deepEqual(names, [
    'get_project_status',
    'list_workspace_files',
    'run_project_verification',
    'server_capabilities',
    'verify_file_sha256',
  ]);
  const env = cli(['tools', '--json'], { RE_MCP_PROFILE: 'project' });
  assert.deepEqual((JSON.parse(env.stdout) as Array<{ name: string }>).map((t) => t.name).sort(), names);
});

test('tools --json publishes output schemas as RE_MCP_OUTPUT_SCHEMAS / --output-schemas says', () => {
  const args = ['tools', '--profile', 'project', '--json'];
  const summary = JSON.parse(cli(args).stdout);
  assert.deepEqual(summary, listTools(toolsForProfile(ALL_TOOLS, 'project')));
  const full = listTools(toolsForProfile(ALL_TOOLS, 'project'), { outputSchemas: 'full' });
  assert.deepEqual(JSON.parse(cli([...args, '--output-schemas', 'full']).stdout), full);
  assert.deepEqual(JSON.parse(cli(args, { RE_MCP_OUTPUT_SCHEMAS: 'full' }).stdout), full);
  assert.notDeepEqual(summary, full, 'the project profile has an output schema the summary shortens');
  const bad = cli([...args, '--output-schemas', 'all']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /RE_MCP_OUTPUT_SCHEMAS must be summary or full/);
});

test('every profile is a subset of full, and full lists every tool once', () => {
  const full = (
    JSON.parse(cli(['tools', '--profile', 'full', '--json']).stdout) as Array<{ name: string }>
  ).map((t) => t.name);
  assert.equal(new Set(full).size, full.length);
  // Without a profile: what a default session lists (static).
  const listed = (JSON.parse(cli(['tools', '--json']).stdout) as Array<{ name: string }>).map((t) => t.name);
  const staticNames = (
    JSON.parse(cli(['tools', '--profile', 'static', '--json']).stdout) as Array<{ name: string }>
  ).map((t) => t.name);
  assert.deepEqual(listed, staticNames);
  assert.ok(listed.length < full.length);
  for (const profile of ['static', 'runtime', 'build', 'project', 'retroarch']) {
    const names = (
      JSON.parse(cli(['tools', '--profile', profile, '--json']).stdout) as Array<{ name: string }>
    ).map((t) => t.name);
    assert.ok(names.includes('server_capabilities'), profile);
    for (const n of names) assert.ok(full.includes(n), `${profile}: ${n}`);
  }
});

test('call server_capabilities prints valid JSON with the limits', async () => {
  const ws = await makeWorkspace();
  try {
    // The CLI reaches every tool when RE_MCP_PROFILE is unset; the summary leaves out the tools' limits.
    const summary = JSON.parse(
      cli(['call', 'server_capabilities', '{}'], { RE_MCP_WORKSPACE_ROOT: ws }).stdout,
    );
    assert.deepEqual(summary.limits.tools, {});
    assert.ok(summary.limits.toolsOmitted > 20, JSON.stringify(summary.limits));
    assert.ok(summary.tools.includes('desmume_start') && summary.tools.includes('run_project_verification'));
    const one = JSON.parse(
      cli(['call', 'server_capabilities', '{"tool":"nds_find_xrefs"}'], { RE_MCP_WORKSPACE_ROOT: ws }).stdout,
    );
    assert.deepEqual(Object.keys(one.limits.tools), ['nds_find_xrefs']);
    const run = cli(['call', 'server_capabilities', '{"detail":"full"}'], { RE_MCP_WORKSPACE_ROOT: ws });
    assert.equal(run.status, 0, run.stderr);
    const caps = JSON.parse(run.stdout);
    assert.equal(caps.limits.global.maxOutputBytes.max, 1_048_576);
    assert.ok(caps.limits.tools.run_project_verification.timeoutMs.max > 0);
    assert.equal(caps.limits.toolsOmitted, 0);
    assert.equal(caps.workspaceRoot, ws);
    assert.equal(caps.outputSchemas, 'summary');
    const full = cli(['call', 'server_capabilities', '{}', '--output-schemas', 'full'], {
      RE_MCP_WORKSPACE_ROOT: ws,
    });
    assert.equal(JSON.parse(full.stdout).outputSchemas, 'full', full.stderr);
    assert.ok(caps.policy.shell);
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
});

test('call exits 1 on an error result and prints the typed error', async () => {
  const ws = await makeWorkspace();
  try {
    await writeFile(join(ws, 'f.txt'), 'abc');
    const bad = cli(['call', 'verify_file_sha256', '{"path":"../f.txt"}'], { RE_MCP_WORKSPACE_ROOT: ws });
    assert.equal(bad.status, 1);
    assert.equal(JSON.parse(bad.stdout).error.code, 'workspace-escape');
    const good = cli(['call', 'verify_file_sha256', '{"path":"f.txt"}', '--max-output-bytes', '65536'], {
      RE_MCP_WORKSPACE_ROOT: ws,
    });
    assert.equal(good.status, 0, good.stderr);
    assert.equal(
      JSON.parse(good.stdout).sha256,
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    const notJson = cli(['call', 'verify_file_sha256', '{path'], { RE_MCP_WORKSPACE_ROOT: ws });
    assert.equal(notJson.status, 1);
    assert.equal(JSON.parse(notJson.stdout).error.code, 'invalid-argument');
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
});

test('call runs several tools in order in one server, and stops at the first error', async () => {
  const ws = await makeWorkspace();
  try {
    await writeFile(join(ws, 'f.txt'), 'abc');
    await copyFile(join(REPO_ROOT, 'examples', 'demo-workspace', 'roms', 'demo.nds'), join(ws, 'demo.nds'));
    // What the first call starts is there for the next: a DeSmuME launched by desmume_start, which
    // ends with the command (no emulator is left behind).
    const env = { RE_MCP_WORKSPACE_ROOT: ws };
    const run = cli(
      [
        'call',
        'desmume_start',
        '{"rom":"demo.nds"}',
        'desmume_status',
        'verify_file_sha256',
        '{"path":"f.txt"}',
      ],
      env,
    );
    assert.equal(run.status, 0, run.stderr);
    const [started, status, sha] = JSON.parse(run.stdout) as [
      { generation: number; pid: number },
      { running: boolean; generation: number | null },
      { sha256: string },
    ];
    assert.equal(started.generation, 1);
    assert.deepEqual([status.running, status.generation], [true, 1], run.stdout);
    assert.equal(sha.sha256, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.match(run.stderr, /^# desmume_start$/m);
    assert.ok(!existsSync(`/proc/${started.pid}`), 'the DeSmuME the command started is gone');
    // The first error ends the run: it is the last element, and the exit code is 1.
    const stopped = cli(
      [
        'call',
        'verify_file_sha256',
        '{"path":"f.txt"}',
        'verify_file_sha256',
        '{"path":"../f"}',
        'server_capabilities',
      ],
      env,
    );
    assert.equal(stopped.status, 1);
    const results = JSON.parse(stopped.stdout) as Array<{ error?: { code: string } }>;
    assert.equal(results.length, 2);
    assert.equal(results[1]?.error?.code, 'workspace-escape');
    // Arguments are optional; a word that names no tool is the previous tool's arguments.
    const named = cli(['call', 'verify_file_sha256', 'nope'], env);
    assert.equal(JSON.parse(named.stdout).error.code, 'invalid-argument');
    assert.match(JSON.parse(named.stdout).error.message, /arguments are not JSON/);
    const many = cli(['call', ...Array.from({ length: 33 }, () => 'server_capabilities')], env);
    assert.equal(many.status, 1);
    assert.equal(JSON.parse(many.stdout).error.code, 'limit-exceeded');
  } finally {
    await rm(ws, { recursive: true, force: true });
  }
});

test('every tool description follows the template and every input field is described', async () => {
  // A field is described by its description, or by what its schema publishes when its name says the
  // rest: a choice (enum, boolean), a number with its minimum and maximum, a pattern, or an address.
  const { startServer } = await import('../kit/mcp-harness.js');
  const h = await startServer();
  try {
    const { tools } = await h.client.listTools();
    for (const tool of tools) {
      assert.match(
        tool.description ?? '',
        /\nUse: .+\nBehaviour: .+\nLimits: .+(\nReturns: .+)?$/s,
        tool.name,
      );
      assert.ok(tool.outputSchema, `${tool.name} has an output schema`);
      const a = tool.annotations ?? {};
      // destructiveHint/idempotentHint mean something only beside readOnlyHint false (MCP spec).
      const hints = a.readOnlyHint
        ? ['readOnlyHint', 'openWorldHint']
        : ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
      assert.deepEqual(Object.keys(a).sort(), [...hints].sort(), `${tool.name} annotations`);
      for (const hint of hints) {
        assert.equal(typeof (a as Record<string, unknown>)[hint], 'boolean', `${tool.name}.${hint}`);
      }
      for (const [field, schema] of Object.entries(
        (tool.inputSchema.properties ?? {}) as Record<
          string,
          {
            description?: string;
            type?: unknown;
            enum?: unknown[];
            minimum?: number;
            maximum?: number;
            maxLength?: number;
            pattern?: string;
          }
        >,
      )) {
        const choice =
          Array.isArray(schema.enum) || schema.type === 'boolean' || typeof schema.pattern === 'string';
        const bounded =
          (schema.type === 'integer' || schema.type === 'number') &&
          typeof schema.minimum === 'number' &&
          typeof schema.maximum === 'number';
        const address =
          /address$/i.test(field) &&
          JSON.stringify(schema.type) === '["integer","string"]' &&
          (schema.maxLength === 12 || schema.maxLength === NAME_ARG_CHARS);
        assert.ok(
          choice || bounded || address || (schema.description && schema.description.length > 3),
          `${tool.name}.${field} has a description (or publishes its choices, bounds, pattern or address or name form)`,
        );
      }
    }
  } finally {
    await h.close();
  }
});

test('demo runs end to end', () => {
  const run = spawnSync(process.execPath, [SERVER_ENTRY, 'demo'], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(run.status, 0, run.stdout.slice(-2000) + run.stderr);
  assert.match(run.stdout, /every step behaved as expected/);
});

test('tools --json prints the full definitions exactly as tools/list publishes them', async () => {
  const run = cli(['tools', '--json']);
  assert.equal(run.status, 0, run.stderr);
  const printed = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
  for (const t of printed)
    assert.deepEqual(Object.keys(t).sort(), [
      'annotations',
      'description',
      'inputSchema',
      'name',
      'outputSchema',
      'title',
    ]);
  const ws = await makeWorkspace();
  // Both with RE_MCP_PROFILE unset: the default session's list.
  const server = await startRawServer(ws, { env: { RE_MCP_PROFILE: '' } });
  try {
    server.send(INITIALIZE);
    server.send(INITIALIZED);
    server.send({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} });
    await server.waitFor('"id":2');
    const line = server
      .stdout()
      .split('\n')
      .find((l) => l.includes('"id":2'));
    assert.ok(line, server.stderr());
    assert.deepEqual(printed, JSON.parse(line).result.tools);
  } finally {
    await server.close();
    await rm(ws, { recursive: true, force: true });
  }
});
