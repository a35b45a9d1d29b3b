import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { buildAnalysisBundle } from '../../src/extract/bundle.js';
import { extractComponent } from '../../src/extract/component.js';
import { type DirOps, realOps, recoverLeftovers } from '../../src/extract/promote.js';
import { RomStore } from '../../src/roms/rom-store.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { checkCompleteBundle } from './bundle-check.js';
import { type Fixture, fileSha, sha256, writeFixture } from './fixture.js';

let fx: Fixture;
let workspace: Workspace;
let store: RomStore;
let parent: string;
let final: string;

before(async () => {
  const root = await makeWorkspace('re-mcp-bundle-');
  fx = await writeFixture(root);
  workspace = new Workspace(root);
  store = new RomStore(workspace);
  parent = join(root, 'analysis', 'generated', 'nds');
  final = join(parent, fx.sha16);
});
after(async () => {
  await rm(fx.root, { recursive: true, force: true });
});

const bundle = (ops?: DirOps) =>
  store.withRom(fx.rel, (rom) => buildAnalysisBundle(workspace, rom, ops ? { ops } : {}));
const hidden = async () => (await readdir(parent)).filter((n) => n.startsWith('.'));

test('the bundle holds the executables, every overlay as stored and the maps; no NitroFS assets', async () => {
  const r = await bundle();
  assert.equal(r.directory, `analysis/generated/nds/${fx.sha16}`);
  assert.equal(r.sourceSha256, fx.sha256);
  assert.deepEqual(r.overlays, { arm9: 2, arm7: 1 });
  await checkCompleteBundle(final, fx.sha256);
  const { layout, bytes } = fx;
  const slice = (x: { start: number; end: number }) => sha256(bytes.slice(x.start, x.end));
  assert.equal(await fileSha(join(final, 'arm9.bin')), slice(layout.arm9.rom));
  assert.equal(await fileSha(join(final, 'arm7.bin')), slice(layout.arm7.rom));
  for (const o of layout.overlays) {
    const name = `overlays/${o.processor}/overlay_${String(o.id).padStart(4, '0')}.bin`;
    assert.equal(await fileSha(join(final, name)), slice(o.file), `${name} is the stored bytes`);
  }
  const overlays = JSON.parse(await readFile(join(final, 'overlays.json'), 'utf8'));
  assert.equal(overlays.arm9.find((o: { id: number }) => o.id === 2).compressed, true);
  assert.equal(overlays.arm9.find((o: { id: number }) => o.id === 2).fileBacked, null);
  const fsJson = JSON.parse(await readFile(join(final, 'filesystem.json'), 'utf8'));
  assert.deepEqual(
    fsJson.files
      .map((f: { path: string | null }) => f.path)
      .filter(Boolean)
      .sort(),
    ['data/one.bin', 'data/sub/two.txt', 'empty.bin'],
  );
  const entries = await readdir(final);
  assert.ok(!entries.includes('files') && !entries.includes('data'), 'NitroFS assets are not dumped');
  assert.deepEqual(await hidden(), [], 'no temporary directory is left');
  assert.equal(await fileSha(join(fx.root, fx.rel)), fx.sha256, 'the ROM is untouched');
});

test('replacing a bundle keeps single-component extractions and leaves nothing behind', async () => {
  const first = await bundle();
  const comp = await store.withRom(fx.rel, (rom) =>
    extractComponent(workspace, rom, { kind: 'path', path: 'data/one.bin' }),
  );
  const second = await bundle();
  assert.equal(second.replacedPrevious, true);
  assert.notEqual(second.bundleId, first.bundleId);
  assert.equal((await checkCompleteBundle(final, fx.sha256)).bundleId, second.bundleId);
  assert.equal(await fileSha(join(fx.root, comp.artifact)), comp.sha256, 'components/ was carried over');
  assert.deepEqual(await hidden(), []);
});

test('when promoting the new bundle fails, the previous complete bundle is restored', async () => {
  const previous = await bundle();
  let failed = false;
  const ops: DirOps = {
    remove: realOps.remove,
    async rename(dir, from, to) {
      if (to === fx.sha16 && from.endsWith('.tmp')) {
        failed = true;
        throw Object.assign(new Error('injected EIO'), { code: 'EIO' });
      }
      await realOps.rename(dir, from, to);
    },
  };
  await assert.rejects(bundle(ops), /injected EIO/);
  assert.ok(failed, 'the failure was injected at the promotion');
  assert.equal((await checkCompleteBundle(final, fx.sha256)).bundleId, previous.bundleId);
  assert.deepEqual(await hidden(), [], 'the failed attempt was cleaned up');
});

test('recovery restores a moved-aside bundle and removes stale temp dirs (dead owners only)', async () => {
  const previous = await bundle();
  // What a crash between the two renames leaves: the old bundle aside, the new one complete in tmp.
  const deadPid = 2 ** 22 + 12345; // above the default pid_max: never a live process
  const old = join(parent, `.${fx.sha16}.bundle-${deadPid}-aaaaaa.old`);
  const tmp = join(parent, `.${fx.sha16}.bundle-${deadPid}-bbbbbb.tmp`);
  const live = join(parent, `.${fx.sha16}.bundle-1-cccccc.tmp`); // pid 1 is alive
  await rename(final, old);
  await mkdir(tmp);
  await writeFile(join(tmp, 'arm9.bin'), 'partial');
  await mkdir(live);
  const area = await workspace.outputDir('analysis/generated', ['nds']);
  const actions = await recoverLeftovers(area, fx.sha16).finally(() => area.close());
  assert.equal(actions.length, 2, actions.join('; '));
  assert.equal((await checkCompleteBundle(final, fx.sha256)).bundleId, previous.bundleId);
  assert.deepEqual(await hidden(), [`.${fx.sha16}.bundle-1-cccccc.tmp`], 'a live owner keeps its temp dir');
  await rm(live, { recursive: true });
});

test('a symlink planted at the bundle path is refused and its target is left alone', async () => {
  await rm(final, { recursive: true, force: true });
  const outside = await mkdtemp(join(tmpdir(), 're-mcp-outside-'));
  try {
    await writeFile(join(outside, 'keep.txt'), 'outside');
    await symlink(outside, final);
    await assert.rejects(bundle(), { code: 'workspace-escape' });
    assert.deepEqual(await readdir(outside), ['keep.txt']);
    assert.deepEqual(await hidden(), [], 'the attempt left nothing behind');
  } finally {
    await rm(final, { force: true });
    await rm(outside, { recursive: true, force: true });
  }
});
