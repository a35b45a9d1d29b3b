// Paths that change between the containment check and the open: a file swapped for a FIFO (an open
// that would block forever, out of reach of cancellation) or a directory swapped for a symlink that
// leaves the workspace. Opening through the workspace re-checks what was actually opened.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { constants } from 'node:fs';
import { mkdir, mkdtemp, open, realpath, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { sha256File } from '../../src/workspace/hash.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { outcomeCode } from '../kit/errors.js';

let base: string;
let ws: Workspace;

before(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 're-mcp-swap-')));
  await mkdir(join(base, 'ws'));
  await mkdir(join(base, 'outside'));
  await writeFile(join(base, 'outside', 'f.bin'), 'secret outside');
  ws = new Workspace(join(base, 'ws'));
});

after(async () => {
  await rm(base, { recursive: true, force: true });
});

const code = outcomeCode;

test('hashing a path that became a FIFO fails at once instead of blocking', async () => {
  const fifo = join(base, 'ws', 'pipe');
  execFileSync('mkfifo', [fifo]);
  const result = await Promise.race([
    code(sha256File(fifo)),
    new Promise<string>((res) => setTimeout(() => res('hung'), 2_000)),
  ]);
  if (result === 'hung') {
    // Release the blocked open so the test process can exit.
    const writer = await open(fifo, constants.O_RDWR | constants.O_NONBLOCK);
    await writer.close();
  }
  assert.equal(result, 'invalid-argument');
});

test('a file swapped for a symlink leaving the workspace after resolution is not opened', async () => {
  await writeFile(join(base, 'ws', 'g.bin'), 'inside');
  const resolved = await ws.resolveExisting('g.bin', 'file');
  await rm(join(base, 'ws', 'g.bin'));
  await symlink(join(base, 'outside', 'f.bin'), join(base, 'ws', 'g.bin'));
  assert.equal(await code(ws.openResolved(resolved)), 'workspace-escape');
});

test('a directory swapped for a symlink leaving the workspace after resolution is not read through', async () => {
  await mkdir(join(base, 'ws', 'd'));
  await writeFile(join(base, 'ws', 'd', 'f.bin'), 'inside');
  const resolved = await ws.resolveExisting('d/f.bin', 'file');
  await rename(join(base, 'ws', 'd'), join(base, 'ws', 'd-moved'));
  await symlink(join(base, 'outside'), join(base, 'ws', 'd'));
  assert.equal(await code(ws.openResolved(resolved)), 'workspace-escape');
});

test('an unchanged file opens and hashes through its handle', async () => {
  await writeFile(join(base, 'ws', 'ok.bin'), 'abc');
  const { handle, resolved } = await ws.openFile('ok.bin');
  try {
    assert.equal(resolved.relative, 'ok.bin');
    const { sha256, size } = await sha256File(handle);
    assert.equal(size, 3);
    assert.equal(sha256, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  } finally {
    await handle.close();
  }
});

test('a dangling symlink is not-found when its target would be inside, workspace-escape when outside', async () => {
  await symlink(join(base, 'ws', 'not-there.bin'), join(base, 'ws', 'dangling-in'));
  await symlink('missing-relative.bin', join(base, 'ws', 'dangling-rel'));
  await symlink(join(base, 'outside', 'missing.bin'), join(base, 'ws', 'dangling-out'));
  assert.equal(await code(ws.resolveExisting('dangling-in', 'file')), 'not-found');
  assert.equal(await code(ws.resolveExisting('dangling-rel', 'file')), 'not-found');
  assert.equal(await code(ws.resolveExisting('dangling-out', 'file')), 'workspace-escape');
});
