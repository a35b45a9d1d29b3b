// Atomic writes land only below analysis/generated/ and output/, through a directory held open by
// descriptor: a directory swapped for a symlink after outputDir() opened it does not redirect the
// write outside the workspace, on the /proc path and on the identity-checking fallback alike.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ReMcpError } from '../../src/core/errors.js';
import { fdPaths } from '../../src/workspace/output-dir.js';
import { type OutputArea, Workspace } from '../../src/workspace/workspace.js';
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

test('output directories exist only below the two output areas', async () => {
  await mkdir(join(root, 'roms'));
  assert.equal(await code(ws.outputDir('roms' as OutputArea, [])), 'workspace-escape');
  assert.equal(await code(ws.outputDir('output', ['..'])), 'workspace-escape');
  assert.equal(await code(ws.outputDir('output', ['a/b'])), 'invalid-argument');
  assert.deepEqual(await readdir(join(root, 'roms')), []);
});

test('a symlink on the way to an output directory is refused', async () => {
  await mkdir(join(root, 'output'), { recursive: true });
  await symlink(outside, join(root, 'output', 'linked'));
  assert.equal(await code(ws.outputDir('output', ['linked', 'x'])), 'workspace-escape');
  assert.deepEqual(await readdir(join(outside, 'x')), []);
});

for (const mode of ['/proc/self/fd', 'identity fallback'] as const) {
  test(`${mode}: an output directory swapped for a symlink after outputDir() is not written through`, async () => {
    const saved = fdPaths.enabled;
    fdPaths.enabled = mode === '/proc/self/fd';
    await rm(join(root, 'output'), { recursive: true, force: true });
    await rm(join(root, 'output-moved'), { recursive: true, force: true });
    try {
      const dir = await ws.outputDir('output', ['x']);
      await rename(join(root, 'output'), join(root, 'output-moved'));
      await symlink(outside, join(root, 'output'));
      const outcome = await code(dir.writeAtomic('a.bin', 'payload'));
      await dir.close();
      assert.deepEqual(await readdir(join(outside, 'x')), [], 'something was left outside the workspace');
      if (mode === '/proc/self/fd') {
        // The write followed the opened directory to where it was moved, inside the workspace.
        assert.equal(outcome, 'accepted');
        assert.equal(await readFile(join(root, 'output-moved', 'x', 'a.bin'), 'utf8'), 'payload');
      } else {
        assert.equal(outcome, 'workspace-escape');
        assert.deepEqual(await readdir(join(root, 'output-moved', 'x')), [], 'no temp file left');
      }
    } finally {
      fdPaths.enabled = saved;
      await rm(join(root, 'output'), { force: true });
    }
  });
}

test('removing a tree never follows a subdirectory swapped for a link', async () => {
  await mkdir(join(outside, 'keep'), { recursive: true });
  const dir = await ws.outputDir('analysis/generated', ['t']);
  const sub = await dir.child('sub');
  await sub.writeAtomic('f.bin', 'x');
  await sub.close();
  await symlink(join(outside, 'keep'), join(root, 'analysis', 'generated', 't', 'sub', 'link'));
  await (await import('node:fs/promises')).writeFile(join(outside, 'keep', 'k.txt'), 'keep');
  await dir.remove('sub');
  assert.deepEqual(await readdir(join(root, 'analysis', 'generated', 't')), []);
  assert.deepEqual(await readdir(join(outside, 'keep')), ['k.txt']);
  await dir.close();
});

test('a normal write lands in place, with no temp file left; errors never name the absolute root', async () => {
  const dir = await ws.outputDir('analysis/generated', ['y']);
  const path = await dir.writeAtomic('b.bin', 'data');
  assert.equal(path, 'analysis/generated/y/b.bin');
  assert.equal(await readFile(join(root, path), 'utf8'), 'data');
  assert.deepEqual(await readdir(join(root, 'analysis', 'generated', 'y')), ['b.bin']);
  await rm(join(root, 'analysis', 'generated', 'y'), { recursive: true });
  const error = await dir.writeAtomic('c.bin', 'data').catch((e: Error) => e);
  assert.ok(error instanceof Error && 'code' in error, String(error));
  assert.ok(!error.message.includes(base), error.message);
  await dir.close();
});

test('a streamed write lands chunk by chunk; a stream failing midway leaves the old file and no temp', async () => {
  const dir = await ws.outputDir('output', ['stream']);
  const chunks = [new Uint8Array(3).fill(1), new Uint8Array(0), new Uint8Array(70_000).fill(2)];
  async function* good() {
    for (const c of chunks) yield c;
  }
  await dir.writeAtomic('s.bin', good());
  const stored = await readFile(join(root, 'output', 'stream', 's.bin'));
  assert.equal(stored.length, 70_003);
  assert.deepEqual([stored[0], stored[2], stored[3], stored[70_002]], [1, 1, 2, 2]);
  async function* failing() {
    yield new Uint8Array(10).fill(9);
    throw new Error('source gone');
  }
  assert.equal(await code(dir.writeAtomic('s.bin', failing())), 'busy');
  assert.deepEqual(await readdir(join(root, 'output', 'stream')), ['s.bin'], 'no temp file left');
  assert.equal((await readFile(join(root, 'output', 'stream', 's.bin'))).length, 70_003);
  await dir.close();
});

test('work run while a streamed file is synced: its failure fails the write and leaves no file', async () => {
  const dir = await ws.outputDir('output', ['syncing']);
  try {
    async function* chunks() {
      yield new Uint8Array(5000).fill(1);
      yield new Uint8Array(3).fill(2);
    }
    let ran = 0;
    await dir.writeAtomic('ok.bin', chunks(), {
      whileSyncing: async () => {
        ran++;
      },
    });
    assert.equal(ran, 1);
    assert.equal((await readFile(join(root, 'output', 'syncing', 'ok.bin'))).length, 5003);
    const refused = await code(
      dir.writeAtomic('no.bin', chunks(), {
        whileSyncing: async () => {
          throw new ReMcpError('verification-failed', 'the work beside the sync failed');
        },
      }),
    );
    assert.equal(refused, 'verification-failed');
    assert.deepEqual(await readdir(join(root, 'output', 'syncing')), ['ok.bin']);
  } finally {
    await dir.close();
  }
});
