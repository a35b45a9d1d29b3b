// Every tool that takes a path is fed a table of hostile inputs; each must be refused with a typed
// error, and nothing may appear or change outside the workspace. Tools are discovered from tools/list
// (any argument documented as a workspace-relative path), so a new path-taking tool is covered
// automatically — or this test fails until its other required arguments are added below.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Harness, makeWorkspace, startServer } from '../kit/mcp-harness.js';

/** Other required arguments of path-taking tools, so that only the path is hostile. */
const OTHER_ARGS: Record<string, Record<string, unknown>> = {
  verify_file_sha256: {},
  list_workspace_files: {},
  get_project_status: {},
  nds_inspect_rom: {},
  nds_list_files: {},
  nds_list_overlays: {},
  nds_read_bytes: { region: { kind: 'header' } },
  nds_resolve_runtime_address: { processor: 'arm9', address: 0x02000000 },
  nds_resolve_rom_offset: { offset: 0 },
  nds_list_strings: {},
  nds_symbols: { rom: 'roms/game.nds', action: 'import', format: 'plain', file: 'roms/game.nds' },
  nds_search_pattern: { pattern: { kind: 'ascii', text: 'x' }, scope: { kind: 'whole-rom' } },
  nds_extract_component: { component: { kind: 'arm9' } },
  nds_extract_analysis_bundle: {},
  nds_disassemble_range: { processor: 'arm9', address: 0x02000000, mode: 'arm' },
  nds_analyze_control_flow: { processor: 'arm9', address: 0x02000000, mode: 'arm' },
  nds_list_references: { processor: 'arm9', address: 0x02000000, mode: 'arm' },
  nds_program_map: { processor: 'arm9' },
  nds_find_xrefs: { processor: 'arm9', address: 0x02000000 },
  nds_discover_functions: { processor: 'arm9' },
  nds_analyze_function: { processor: 'arm9', address: 0x02000000, mode: 'arm' },
  nds_function_at: { processor: 'arm9', address: 0x02000000 },
  nds_function_graph: { processor: 'arm9', address: 0x02000000 },
  desmume_start: {},
  nds_mutation_validate: { rom: 'roms/game.nds', manifest: 'roms/game.nds' },
  nds_mutation_build: { rom: 'roms/game.nds', manifest: 'roms/game.nds' },
  nds_mutation_verify: { rom: 'roms/game.nds', manifest: 'roms/game.nds' },
  nds_patch_apply: { rom: 'roms/game.nds', patch: 'roms/game.nds' },
  nds_free_space: { processor: 'arm9' },
  nds_assemble: { processor: 'arm9', mode: 'arm', address: 0x02000000, source: 'nop', rom: 'roms/game.nds' },
  nds_mutation_draft: {
    name: 'draft',
    operations: [{ op: 'add-file', path: 'a/b', artifact: 'roms/game.nds' }],
  },
};

let outside: string;
let harness: Harness;
let workspace: string;

async function snapshot(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    const info = await stat(path).catch(() => null);
    out.push(`${path}:${info?.size ?? 'x'}:${info?.mtimeMs ?? 'x'}`);
  }
  return out.sort();
}

before(async () => {
  outside = await realpath(await mkdtemp(join(tmpdir(), 're-mcp-outside-')));
  await writeFile(join(outside, 'secret.nds'), Buffer.alloc(0x4000, 1));
  workspace = await makeWorkspace();
  await mkdir(join(workspace, 'roms'));
  await writeFile(join(workspace, 'roms', 'game.nds'), Buffer.alloc(0x200, 0));
  await symlink(outside, join(workspace, 'out-link'));
  await symlink(join(outside, 'secret.nds'), join(workspace, 'secret-link.nds'));
  await symlink(join(workspace, 'loop-a'), join(workspace, 'loop-b'));
  await symlink(join(workspace, 'loop-b'), join(workspace, 'loop-a'));
  await symlink('/nonexistent/target', join(workspace, 'dangling-out'));
  harness = await startServer({ workspace });
});

after(async () => {
  await harness?.close();
  await rm(workspace, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

function hostileInputs(): Array<[string, string]> {
  return [
    ['parent escape', '../secret.nds'],
    ['deep parent chain', '../../../../../../../../etc/passwd'],
    ['parent after a real dir', 'roms/../../secret.nds'],
    ['inner parent staying inside', 'roms/../roms/game.nds'],
    ['dot segment', './roms/game.nds'],
    ['absolute outside', '/etc/passwd'],
    ['absolute to the outside dir', join(outside, 'secret.nds')],
    ['absolute inside the workspace', join(workspace, 'roms', 'game.nds')],
    ['symlinked directory out', 'out-link/secret.nds'],
    ['symlinked file out', 'secret-link.nds'],
    ['symlink loop', 'loop-a/x.nds'],
    ['dangling link out', 'dangling-out'],
    ['NUL byte', 'roms/game.nds\u0000.txt'],
    ['very long name', `${'a'.repeat(5000)}.nds`],
    ['long segment', `roms/${'b'.repeat(300)}.nds`],
    ['url-encoded dots', '%2e%2e/secret.nds'],
    ['url-encoded slash', '..%2fsecret.nds'],
    ['windows separators', '..\\..\\secret.nds'],
    ['windows drive', 'C:\\Windows\\win.ini'],
    ['drive-relative', 'C:secret.nds'],
    ['home tilde', '~/secret.nds'],
    ['trailing dot', 'roms/game.nds.'],
    ['trailing space', 'roms/game.nds '],
    ['fullwidth dots', '\uff0e\uff0e/secret.nds'],
    ['zero-width joiner', 'roms/ga\u200dme.nds'],
    ['right-to-left override', 'roms/\u202esdn.emag'],
    ['decomposed unicode', 'roms/cafe\u0301.nds'],
    ['double slash', 'roms//game.nds'],
    ['trailing slash', 'roms/'],
    ['newline', 'roms/game\n.nds'],
  ];
}

test('every path-taking tool refuses every hostile path with a typed error', async () => {
  const { tools } = await harness.client.listTools();
  const pathTools: Array<[string, string]> = [];
  for (const tool of tools) {
    const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
    for (const [arg, schema] of Object.entries(properties)) {
      if (/workspace-relative/i.test(schema.description ?? '')) pathTools.push([tool.name, arg]);
    }
  }
  assert.ok(pathTools.length >= 2, `found path-taking tools: ${JSON.stringify(pathTools)}`);
  // Every ROM argument is a path: none may escape the search above by its wording.
  for (const tool of tools)
    if ('rom' in ((tool.inputSchema.properties ?? {}) as object))
      assert.ok(
        pathTools.some(([name, arg]) => name === tool.name && arg === 'rom'),
        `${tool.name}.rom is tested as a path`,
      );
  const before = await snapshot(outside);
  for (const [tool, arg] of pathTools) {
    const others = OTHER_ARGS[tool];
    assert.ok(others, `${tool} takes a path (${arg}): add its other required arguments to OTHER_ARGS`);
    for (const [label, input] of hostileInputs()) {
      const error = await harness.fail(tool, { ...others, [arg]: input });
      assert.ok(
        ['workspace-escape', 'invalid-argument'].includes(error.code),
        `${tool}.${arg} <- ${label}: expected a path refusal, got ${error.code}: ${error.message}`,
      );
    }
  }
  assert.deepEqual(await snapshot(outside), before, 'nothing outside the workspace changed');
  const written = (await readdir(workspace, { recursive: true })).filter(
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
