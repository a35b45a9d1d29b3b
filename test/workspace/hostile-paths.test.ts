// Every argument a tool resolves in the workspace is fed a table of hostile inputs; each must be
// refused with a typed error, and nothing may appear or change outside the workspace. The arguments
// come from the tools' definitions (their workspacePath marks, src/tools/shared/paths.ts) and the
// other arguments of each call from its input schema (hostile-path-cases.ts), so a new path-taking
// tool is covered without a list.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { after, before, test } from 'node:test';
import type { ToolDefinition } from '../../src/mcp/tool.js';
import { loadAllTools } from '../../src/tools/index.js';
import type { CallResult } from '../kit/mcp-harness.js';
import { type Harness, startServer } from '../kit/mcp-harness.js';
import {
  type Caller,
  type HostileWorkspace,
  hostilePathProblems,
  hostileWorkspace,
  pathTargets,
  tree,
  unmarkedPaths,
} from './hostile-path-cases.js';

let w: HostileWorkspace;
let harness: Harness;
let tools: ToolDefinition[];

before(async () => {
  w = await hostileWorkspace();
  harness = await startServer({ workspace: w.workspace });
  // The definitions of the tools this server lists (every tool: the harness's profile is full).
  const listed = new Set((await harness.client.listTools()).tools.map((t) => t.name));
  tools = (await loadAllTools()).filter((t) => listed.has(t.name));
});

after(async () => {
  await harness?.close();
  await w?.close();
});

const overMcp: Caller = async (tool, args) => {
  const r: CallResult = await harness.call(tool, args);
  if (!r.isError) return null;
  const error = r._meta?.['re-mcp/error'] as { code: string; message: string } | undefined;
  return error ?? { code: 'untyped', message: JSON.stringify(r.content) };
};

test('every workspace path argument is declared as one (workspacePath)', () => {
  assert.deepEqual(unmarkedPaths(tools), []);
  const targets = pathTargets(tools);
  // The ROM arguments, the file hash, the listing root, manifests and patches at least.
  for (const known of ['nds_inspect_rom.rom', 'verify_file_sha256.path', 'list_workspace_files.under'])
    assert.ok(targets.includes(known), `${known} among ${targets.join(', ')}`);
});

test('every path-taking tool refuses every hostile path with a typed error', async () => {
  const before = await tree(w.outside);
  assert.deepEqual(await hostilePathProblems(tools, overMcp, w), []);
  assert.deepEqual(await tree(w.outside), before, 'nothing outside the workspace changed');
  const written = (await readdir(w.workspace, { recursive: true })).filter(
    (p) => !/^(roms|out-link|secret-link|loop|dangling)/.test(p),
  );
  assert.ok(
    written.every((p) => p.startsWith('analysis') || p.startsWith('output')),
    `unexpected files: ${written}`,
  );
});

test('the same paths spelled canonically are accepted', async () => {
  const ok = await harness.ok<{ size: number }>('verify_file_sha256', { path: 'roms/game.nds' });
  assert.equal(ok.size, 0x200);
});
