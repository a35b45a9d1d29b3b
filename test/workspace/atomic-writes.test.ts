// Atomic writes land only below analysis/generated/ and output/, and a directory swapped for a
// symlink between outputDir() (which checked it) and writeAtomic() (which writes into it) does not
// redirect the write outside the workspace.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Workspace } from '../../src/workspace/workspace.js';
import { outcomeCode } from '../kit/errors.js';

let base: string;
let root: string;
let outside: string;
let ws: Workspace;

before(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 're-mcp-write-')));
  root = join(base, 'ws');
  outside = join(base, 'outside');
  await mkdir(root);
  await mkdir(join(outside, 'x'), { recursive: true });
  ws = new Workspace(root);
});

after(async () => {
  await rm(base, { recursive: true, force: true });
});

const code = outcomeCode;

test('writes outside the two output areas are refused', async () => {
  await mkdir(join(root, 'roms'));
  assert.equal(await code(ws.writeAtomic(join(root, 'roms'), 'a.bin', 'x')), 'workspace-escape');
  assert.equal(await code(ws.writeAtomic(root, 'a.bin', 'x')), 'workspace-escape');
  assert.equal(await code(ws.writeAtomic(join(root, 'analysis'), 'a.bin', 'x')), 'workspace-escape');
  assert.deepEqual(await readdir(join(root, 'roms')), []);
});

test('an output directory swapped for a symlink after outputDir() is not written through', async () => {
  const dir = await ws.outputDir('output', ['x']);
  await rename(join(root, 'output'), join(root, 'output-moved'));
  await symlink(outside, join(root, 'output'));
  assert.equal(await code(ws.writeAtomic(dir, 'a.bin', 'payload')), 'workspace-escape');
  assert.deepEqual(await readdir(join(outside, 'x')), [], 'something was left outside the workspace');
});

test('a normal write lands in place, with no temp file left', async () => {
  const dir = await ws.outputDir('analysis/generated', ['y']);
  const path = await ws.writeAtomic(dir, 'b.bin', 'data');
  assert.equal(await readFile(path, 'utf8'), 'data');
  assert.deepEqual(await readdir(dir), ['b.bin']);
});
