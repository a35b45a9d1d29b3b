// ROM files kept open between operations (src/roms/kept-rom-files.ts): a warm operation reuses the
// handle only while the caller's path names that same unchanged file; every change of the path or the
// file takes the full resolve-and-check path again, and the kept handles are bounded.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, readdir, readlink, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { ReMcpError } from '../../src/core/errors.js';
import { KeptRomFiles, MAX_KEPT_FILES } from '../../src/roms/kept-rom-files.js';
import { RomStore } from '../../src/roms/rom-store.js';
import { Services } from '../../src/services.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { fullSpec } from '../formats/nds/specs.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { buildRom } from '../kit/rom-builder.js';

const root = await makeWorkspace('re-mcp-kept-');
const outside = await makeWorkspace('re-mcp-kept-outside-');
after(async () => {
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});
const workspace = new Workspace(root);
void new Services(loadConfig({ RE_MCP_WORKSPACE_ROOT: root }), workspace);
await mkdir(join(root, 'roms'));

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'accepted';
  } catch (error) {
    return error instanceof ReMcpError ? error.code : String(error);
  }
};
const romA = buildRom(fullSpec).bytes;
const romB = buildRom({ ...fullSpec, title: 'OTHER' }).bytes;

/** This process's descriptors open on `path` (its real path). */
async function descriptorsOn(path: string): Promise<number> {
  let n = 0;
  for (const fd of await readdir('/proc/self/fd'))
    if ((await readlink(`/proc/self/fd/${fd}`).catch(() => '')) === path) n++;
  return n;
}

const shaVia = (store: RomStore, rel: string) => store.withRom(rel, (rom) => rom.identity.sha256);

test('a warm operation reuses the handle: one descriptor stays open, however many operations', async () => {
  const store = new RomStore(workspace);
  await writeFile(join(root, 'roms/a.nds'), romA);
  for (let i = 0; i < 5; i++) assert.equal(await shaVia(store, 'roms/a.nds'), sha256(romA));
  assert.equal(await descriptorsOn(join(root, 'roms/a.nds')), 1);
});

test('the file rewritten in place or replaced: the next operation sees the new bytes', async () => {
  const store = new RomStore(workspace);
  await writeFile(join(root, 'roms/b.nds'), romA);
  assert.equal(await shaVia(store, 'roms/b.nds'), sha256(romA));
  await writeFile(join(root, 'roms/b.nds'), romB); // same inode, other bytes
  assert.equal(await shaVia(store, 'roms/b.nds'), sha256(romB));
  await writeFile(join(root, 'roms/b2.nds'), romA);
  await rename(join(root, 'roms/b2.nds'), join(root, 'roms/b.nds')); // another inode
  assert.equal(await shaVia(store, 'roms/b.nds'), sha256(romA));
  // The dropped handles were closed once their operation ended.
  assert.equal(await descriptorsOn(join(root, 'roms/b.nds')), 1);
});

test('the path swapped for a link outside or removed: refused as a cold open would be', async () => {
  const store = new RomStore(workspace);
  await writeFile(join(root, 'roms/c.nds'), romA);
  await writeFile(join(outside, 'c.nds'), romB);
  assert.equal(await shaVia(store, 'roms/c.nds'), sha256(romA));
  await unlink(join(root, 'roms/c.nds'));
  assert.equal(await codeOf(shaVia(store, 'roms/c.nds')), 'not-found');
  await symlink(join(outside, 'c.nds'), join(root, 'roms/c.nds'));
  assert.equal(await codeOf(shaVia(store, 'roms/c.nds')), 'workspace-escape');
});

test('at most MAX_KEPT_FILES handles stay open across many ROM paths', async () => {
  const store = new RomStore(workspace);
  const paths = Array.from({ length: MAX_KEPT_FILES + 4 }, (_, i) => `roms/many-${i}.nds`);
  for (const p of paths) await writeFile(join(root, p), romA);
  for (const p of paths) assert.equal(await shaVia(store, p), sha256(romA));
  let open = 0;
  for (const p of paths) open += await descriptorsOn(join(root, p));
  assert.equal(open, MAX_KEPT_FILES);
});

/** A handle that counts its closes (the pool's own bookkeeping, without a file). */
function fakeFile() {
  const state = { closes: 0 };
  const file = {
    close: async () => {
      state.closes++;
    },
  } as unknown as FileHandle;
  const key = { dev: 1n, ino: 1n, size: 1n, mtimeNs: 1n, ctimeNs: 1n };
  return { state, kept: { resolved: { absolute: '/x', relative: 'x' }, file, key } };
}

test('a handle dropped while in use is closed only when its last user releases it', async () => {
  const pool = new KeptRomFiles();
  const { state, kept: opened } = fakeFile();
  const kept = pool.keep('/x', opened);
  assert.ok(kept);
  assert.equal(pool.keep('/x', fakeFile().kept), null, 'one handle per path');
  const again = await pool.take('/x', async () => true);
  assert.equal(again, kept);
  pool.forget('/x');
  assert.equal(pool.size, 0);
  await pool.release(kept);
  assert.equal(state.closes, 0, 'still in use by the second user');
  await pool.release(kept);
  assert.equal(state.closes, 1);
  assert.equal(await pool.take('/x', async () => true), null, 'forgotten');
});

test('a failed or throwing check drops the handle and closes it when unused', async () => {
  const pool = new KeptRomFiles();
  for (const check of [async () => false, async () => Promise.reject(new Error('stat failed'))]) {
    const { state, kept: opened } = fakeFile();
    const kept = pool.keep('/y', opened);
    assert.ok(kept);
    await pool.release(kept);
    assert.equal(await pool.take('/y', check), null);
    assert.equal(state.closes, 1);
    assert.equal(pool.size, 0);
  }
});
