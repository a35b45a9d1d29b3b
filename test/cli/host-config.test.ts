// `re-mcp config HOST`: each block names this Node and this entry by absolute path, carries the
// validated workspace and the settings given, and actually starts a working server when a host runs
// exactly what it says.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync, symlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { makeWorkspace, SERVER_ENTRY } from '../kit/mcp-harness.js';

function config(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [SERVER_ENTRY, 'config', ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/tmp', ...env },
    encoding: 'utf8',
    timeout: 30_000,
  });
}

interface Server {
  command: string;
  args: string[];
  env: Record<string, string>;
  type?: string;
}

test('claude-desktop, cursor and vscode get JSON naming this Node, this entry and the workspace', async (t) => {
  const ws = await makeWorkspace();
  t.after(() => rm(ws, { recursive: true, force: true }));
  const link = `${ws}-link`;
  symlinkSync(ws, link);
  t.after(() => rm(link, { force: true }));
  for (const host of ['claude-desktop', 'cursor', 'vscode']) {
    const run = config([host, '--workspace-root', link, '--retroarch-port', '55400']);
    assert.equal(run.status, 0, run.stderr);
    const block = JSON.parse(run.stdout) as {
      mcpServers?: Record<string, Server>;
      servers?: Record<string, Server>;
    };
    const server = (host === 'vscode' ? block.servers : block.mcpServers)?.['re-mcp'];
    assert.ok(server, `${host}: ${run.stdout}`);
    assert.equal(server.command, process.execPath);
    assert.equal(server.args[0], realpathSync(SERVER_ENTRY));
    assert.equal(server.args[1], 'serve');
    // The real path of the workspace (the server resolves it the same way), and the other settings.
    assert.deepEqual(server.env, { RE_MCP_WORKSPACE_ROOT: ws, RETROARCH_PORT: '55400' });
    if (host === 'vscode') assert.equal(server.type, 'stdio');
    assert.match(run.stderr, /mcp\.json|claude_desktop_config\.json/);
  }
});

test('claude-code gets one shell command with the settings and the server command', async (t) => {
  const ws = await makeWorkspace('re-mcp ws with space-');
  t.after(() => rm(ws, { recursive: true, force: true }));
  const run = config(['claude-code'], { RE_MCP_WORKSPACE_ROOT: ws });
  assert.equal(run.status, 0, run.stderr);
  const line = run.stdout.trim();
  assert.equal(line.split('\n').length, 1);
  assert.ok(line.startsWith('claude mcp add --scope user re-mcp --env '), line);
  // The shell splits it back into exactly the words meant, spaces in paths included.
  const printed = spawnSync('/bin/sh', ['-c', `printf '%s\\0' ${line}`], { encoding: 'utf8' }).stdout.split(
    '\0',
  );
  assert.deepEqual(printed.slice(0, -1), [
    'claude',
    'mcp',
    'add',
    '--scope',
    'user',
    're-mcp',
    '--env',
    `RE_MCP_WORKSPACE_ROOT=${ws}`,
    '--',
    process.execPath,
    realpathSync(SERVER_ENTRY),
    'serve',
  ]);
});

test('the block starts a working server when run exactly as written', async (t) => {
  const ws = await makeWorkspace();
  t.after(() => rm(ws, { recursive: true, force: true }));
  const run = config(['vscode', '--workspace-root', ws, '--profile', 'project']);
  const server = (JSON.parse(run.stdout) as { servers: Record<string, Server> }).servers['re-mcp']!;
  assert.ok(existsSync(server.command));
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: server.env,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'host-config-test', version: '1' });
  await client.connect(transport);
  try {
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    assert.deepEqual(names, [
      'get_project_status',
      'list_workspace_files',
      'run_project_verification',
      'server_capabilities',
      'verify_file_sha256',
    ]);
  } finally {
    await client.close();
  }
});

test('refusals: an unknown host, no workspace, the home directory', async () => {
  const unknown = config(['emacs'], { RE_MCP_WORKSPACE_ROOT: '/tmp' });
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /claude-code\|claude-desktop\|cursor\|vscode/);
  assert.equal(unknown.stdout, '');
  const none = config(['cursor']);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /RE_MCP_WORKSPACE_ROOT is not set/);
  const home = config(['cursor', '--workspace-root', '/tmp']);
  assert.equal(home.status, 2);
  assert.match(home.stderr, /home directory/);
  assert.equal(home.stdout, '');
});

test('with DeSmuME installed and no profile given, the hint says how to list its tools', async (t) => {
  assert.ok(existsSync('/usr/games/desmume-cli'), 'DeSmuME is installed on test machines (.ci/run)');
  const ws = await makeWorkspace();
  t.after(() => rm(ws, { recursive: true, force: true }));
  const plain = config(['cursor', '--workspace-root', ws]);
  assert.equal(plain.status, 0, plain.stderr);
  assert.match(
    plain.stderr,
    /DeSmuME is installed here \(\/usr\/games\/desmume-cli\).*--profile static,runtime/,
  );
  const chosen = config(['cursor', '--workspace-root', ws, '--profile', 'static,runtime']);
  assert.equal(chosen.status, 0, chosen.stderr);
  assert.doesNotMatch(chosen.stderr, /DeSmuME is installed here/);
  assert.equal(
    (JSON.parse(chosen.stdout) as { mcpServers: Record<string, Server> }).mcpServers['re-mcp']!.env
      .RE_MCP_PROFILE,
    'static,runtime',
  );
});
