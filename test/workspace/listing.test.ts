// list_workspace_files: a bounded, read-only listing. Hidden entries are skipped and counted, links
// are listed and never followed (a link out of the workspace leaks nothing behind it), a FIFO does
// not block, hostile `under` paths are refused like every path argument, and each bound says it cut.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { Services } from '../../src/services.js';
import { generalTools } from '../../src/tools/general/index.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { inProcess } from '../kit/in-process.js';
import { makeWorkspace, startServer } from '../kit/mcp-harness.js';

const root = await makeWorkspace('re-mcp-listing-');
const outside = await makeWorkspace('re-mcp-listing-outside-');
after(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});
await mkdir(join(root, 'roms/deep/a/b/c'), { recursive: true });
await mkdir(join(root, '.git'));
await writeFile(join(root, '.git/HEAD'), 'ref: refs/heads/main\n');
await writeFile(join(root, '.hidden.nds'), 'x');
await writeFile(join(root, 'roms/game.nds'), new Uint8Array(512));
await writeFile(join(root, 'roms/OTHER.NDS'), 'xy');
await writeFile(join(root, 'roms/deep/a/b/c/buried.nds'), 'z');
await writeFile(join(root, 'notes.txt'), 'hello');
await writeFile(join(root, `bell\x07[error] name.txt`), 'x');
await writeFile(join(outside, 'secret.nds'), 'secret');
await symlink(outside, join(root, 'out-dir'));
await symlink(join(outside, 'secret.nds'), join(root, 'out-file.nds'));
await symlink('roms/game.nds', join(root, 'alias.nds'));
await symlink('loop-b', join(root, 'loop-a'));
await symlink('loop-a', join(root, 'loop-b'));
execFileSync('mkfifo', [join(root, 'pipe')]);

const services = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), new Workspace(root));
const { call, ok, fails } = inProcess(generalTools, services);
const paths = (r: any) => r.entries.map((e: any) => e.path);

test('the listing: name order, sizes, hidden skipped and counted, links listed and never followed', async () => {
  const r = await ok('list_workspace_files', {});
  assert.equal(r.status, 'complete');
  assert.deepEqual(paths(r), [
    'alias.nds',
    'bell\x07[error] name.txt',
    'loop-a',
    'loop-b',
    'notes.txt',
    'out-dir',
    'out-file.nds',
    'pipe',
    'roms',
    'roms/OTHER.NDS',
    'roms/deep',
    'roms/game.nds',
    'roms/deep/a',
    'roms/deep/a/b',
    'roms/deep/a/b/c',
    'roms/deep/a/b/c/buried.nds',
  ]);
  const by = new Map(r.entries.map((e: any) => [e.path, e]));
  assert.deepEqual(by.get('roms/game.nds'), {
    path: 'roms/game.nds',
    kind: 'file',
    size: 512,
    target: null,
    outside: false,
    usable: true,
  });
  assert.equal((by.get('alias.nds') as any).target, 'roms/game.nds');
  assert.equal((by.get('out-dir') as any).outside, true);
  assert.equal((by.get('out-dir') as any).target, null, 'where an outside link lands is not said');
  assert.equal((by.get('out-file.nds') as any).outside, true);
  assert.equal((by.get('loop-a') as any).kind, 'symlink');
  assert.equal((by.get('pipe') as any).kind, 'other');
  assert.equal((by.get('bell\x07[error] name.txt') as any).usable, false);
  assert.ok(!JSON.stringify(r).includes('secret'), 'nothing behind the outside link is listed');
  assert.equal(r.totals.hidden, 2);
  assert.equal(r.totals.files, 5);
  assert.equal(r.totals.symlinks, 5);
  assert.equal(r.totals.bytes, 512 + 2 + 1 + 5 + 1);
});

test('suffix keeps the files (and inside links to files) it ends, case-insensitive; under narrows', async () => {
  const r = await ok('list_workspace_files', { suffix: '.nds' });
  assert.deepEqual(paths(r), ['alias.nds', 'roms/OTHER.NDS', 'roms/game.nds', 'roms/deep/a/b/c/buried.nds']);
  assert.equal(r.page.total, 4);
  const under = await ok('list_workspace_files', { under: 'roms/deep', suffix: '.NDS' });
  assert.equal(under.under, 'roms/deep');
  assert.deepEqual(paths(under), ['roms/deep/a/b/c/buried.nds']);
});

test('each bound says it cut: depth, entries, and pages', async () => {
  const shallow = await ok('list_workspace_files', { maxDepth: 2 });
  assert.equal(shallow.status, 'truncated');
  assert.deepEqual(shallow.truncation, ['depth-limit']);
  assert.equal(shallow.totals.notEntered, 1);
  assert.ok(paths(shallow).includes('roms/deep') && !paths(shallow).includes('roms/deep/a'));
  const few = await ok('list_workspace_files', { maxEntries: 3 });
  assert.equal(few.status, 'truncated');
  assert.deepEqual(few.truncation, ['entry-limit']);
  assert.equal(few.entries.length, 3);
  const p1 = await ok('list_workspace_files', { limit: 5 });
  const p2 = await ok('list_workspace_files', { limit: 5, offset: p1.page.nextOffset });
  assert.equal(p1.page.nextOffset, 5);
  assert.deepEqual([...paths(p1), ...paths(p2)], paths(await ok('list_workspace_files', { limit: 10 })));
});

test('hostile under paths are refused like every path, hidden directories are not entered', async () => {
  for (const under of [
    '..',
    '../x',
    '/etc',
    'roms\\deep',
    '%2e%2e',
    'roms/../..',
    'roms//deep',
    '~',
    'C:/x',
  ]) {
    const r = await call('list_workspace_files', { under });
    assert.equal(r.isError, true, under);
    assert.ok(
      ['workspace-escape', 'invalid-argument'].includes(r.structuredContent.error?.code),
      `${under}: ${JSON.stringify(r.structuredContent)}`,
    );
  }
  await fails('list_workspace_files', { under: 'out-dir' }, 'workspace-escape');
  await fails('list_workspace_files', { under: '.git' }, 'invalid-argument');
  await fails('list_workspace_files', { under: 'roms/.x' }, 'invalid-argument');
  await fails('list_workspace_files', { under: 'notes.txt' }, 'invalid-argument');
  await fails('list_workspace_files', { under: 'absent' }, 'not-found');
  await fails('list_workspace_files', { under: 'loop-a' }, 'workspace-escape');
  for (const suffix of ['nds', '.n/s', '..', `.${'a'.repeat(16)}`, '.n\x00'])
    await fails('list_workspace_files', { suffix }, 'invalid-argument');
  await fails('list_workspace_files', { maxEntries: 100_001 }, 'invalid-argument');
  await fails('list_workspace_files', { maxDepth: 0 }, 'invalid-argument');
});

test('many entries: the default page and the visit bound hold', async () => {
  const many = join(await makeWorkspace('re-mcp-listing-many-'), 'w');
  await mkdir(join(many, 'files'), { recursive: true });
  await Promise.all(
    Array.from({ length: 3000 }, (_, i) =>
      writeFile(join(many, 'files', `f${String(i).padStart(4, '0')}.bin`), ''),
    ),
  );
  try {
    const s = new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: many }), new Workspace(many));
    const tool = inProcess(generalTools, s);
    const r = await tool.ok('list_workspace_files', {});
    assert.equal(r.entries.length, 200);
    assert.equal(r.page.total, 3001);
    assert.equal(r.page.nextOffset, 200);
    const cut = await tool.ok('list_workspace_files', { maxEntries: 1000, limit: 1000 });
    assert.deepEqual(cut.truncation, ['entry-limit']);
    assert.equal(cut.entries.length, 1000);
  } finally {
    await rm(join(many, '..'), { recursive: true, force: true });
  }
});

test('through the server: the default session finds its ROMs, and the text escapes hostile names', async () => {
  const h = await startServer({ workspace: root, env: { RE_MCP_PROFILE: '' } });
  try {
    const r = await h.call('list_workspace_files', { suffix: '.nds' });
    assert.notEqual(r.isError, true);
    const text = r.content[0]?.text ?? '';
    assert.match(text, /roms\/game\.nds/);
    const all = await h.call('list_workspace_files', {});
    const allText = all.content[0]?.text ?? '';
    assert.ok(!allText.includes('\x07'), 'control characters are escaped in the text');
    assert.match(allText, /bell\\x07\[error\] name\.txt/);
  } finally {
    await h.close();
  }
});
