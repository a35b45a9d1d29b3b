// nds_mutation_draft through a real MCP client: short operations become a complete manifest whose
// guards the server read itself (the replaced bytes, every SHA-256); it is written under
// analysis/generated/manifests/, validates, builds unchanged with nds_mutation_build, and lands where
// the same manifest written by hand lands (the same build ID). Bad names, offsets, hex and paths are
// refused with typed errors and write nothing.
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import { type Harness, startServer } from '../kit/mcp-harness.js';
import { rebuildFixture, sha } from './fixture.js';

let fx: Awaited<ReturnType<typeof rebuildFixture>>;
let h: Harness;
let target: { path: string; start: number; end: number };
const bigger = new Uint8Array(4000).map((_, i) => (i * 5 + 3) & 0xff);
const added = new TextEncoder().encode('drafted\n');

before(async () => {
  fx = await rebuildFixture();
  const model = parseNdsRom(bufferSource(fx.bytes));
  const f = model.files.find((x) => x.path !== null && x.overlays.length === 0)!;
  target = { path: f.path!, start: f.start, end: f.end };
  await fx.put('art/bigger.bin', bigger);
  await fx.put('art/new.txt', added);
  h = await startServer({ workspace: fx.root, env: { RE_MCP_PROFILE: 'build' } });
});

after(async () => {
  await h?.close();
});

const ops = () => [
  { op: 'patch', id: 'ret', component: { kind: 'arm9' }, offset: '0x40', replacement: '1EFF2FE1' },
  {
    op: 'replace-file',
    id: 'grow',
    component: { kind: 'path', path: target.path },
    artifact: 'art/bigger.bin',
  },
  { op: 'add-file', id: 'add', path: 'drafted/new.txt', artifact: 'art/new.txt' },
];

test('a draft reads its own guards, validates, and builds unchanged', async () => {
  const d = await h.ok<{ manifest: string; buildId: string; outputDir: string; formatVersion: number }>(
    'nds_mutation_draft',
    { rom: fx.rel, name: 'ret-and-files', operations: ops() },
  );
  assert.match(d.manifest, new RegExp(`^analysis/generated/manifests/${fx.sha16}/ret-and-files\\.json$`));
  assert.equal(d.formatVersion, 2);
  const m = JSON.parse(await readFile(join(fx.root, d.manifest), 'utf8'));
  assert.deepEqual(m.source, { sha256: sha(fx.bytes), size: fx.bytes.length });
  const model = parseNdsRom(bufferSource(fx.bytes));
  const arm9 = fx.bytes.subarray(model.arm9.romOffset, model.arm9.romOffset + model.arm9.size);
  const [patch, grow, add] = m.operations;
  assert.equal(patch.original, Buffer.from(arm9.subarray(0x40, 0x44)).toString('hex'));
  assert.equal(patch.replacement, '1eff2fe1');
  assert.equal(patch.componentSha256, sha(arm9));
  assert.equal(grow.artifactSha256, sha(bigger));
  assert.equal(grow.componentSha256, sha(fx.bytes.subarray(target.start, target.end)));
  assert.equal(add.artifactSha256, sha(added));
  // The build takes the drafted path as it is.
  const b = await h.ok<{ buildId: string; rom: string }>('nds_mutation_build', {
    rom: fx.rel,
    manifest: d.manifest,
  });
  assert.equal(b.buildId, d.buildId);
  const out = await readFile(join(fx.root, b.rom));
  const rebuilt = parseNdsRom(bufferSource(out));
  assert.equal(
    Buffer.from(out.subarray(rebuilt.arm9.romOffset + 0x40, rebuilt.arm9.romOffset + 0x44)).toString('hex'),
    '1eff2fe1',
  );
  // The same operations written by hand (every guard typed in) land in the same place.
  const byHand = await fx.manifest('m/by-hand.json', m.operations, 2);
  const v = await h.ok<{ buildId: string }>('nds_mutation_validate', { rom: fx.rel, manifest: byHand });
  assert.equal(v.buildId, d.buildId);
});

test('bad names, offsets, hex and paths are refused and write nothing', async () => {
  const dir = join(fx.root, 'analysis/generated/manifests', fx.sha16);
  const before = (await readdir(dir).catch(() => [])).sort();
  const refuse = async (args: Record<string, unknown>, code: string) => {
    const f = await h.fail('nds_mutation_draft', { rom: fx.rel, name: 'bad', operations: ops(), ...args });
    assert.equal(f.code, code, JSON.stringify(args));
  };
  await refuse({ name: '../escape' }, 'invalid-argument');
  await refuse({ name: 'a/b' }, 'invalid-argument');
  await refuse(
    { operations: [{ op: 'patch', component: { kind: 'arm9' }, offset: '0x7fffffff', replacement: '00' }] },
    'invalid-argument',
  );
  await refuse(
    { operations: [{ op: 'patch', component: { kind: 'arm9' }, offset: 0, replacement: 'zz' }] },
    'invalid-argument',
  );
  await refuse(
    { operations: [{ op: 'add-file', path: 'x/y', artifact: '../outside.bin' }] },
    'workspace-escape',
  );
  await refuse({ operations: [{ op: 'add-file', path: 'x/y', artifact: 'art/missing.bin' }] }, 'not-found');
  await refuse(
    {
      operations: [
        { op: 'replace-file', component: { kind: 'path', path: 'no/such/file' }, artifact: 'art/new.txt' },
      ],
    },
    'not-found',
  );
  await refuse({ operations: [{ ...ops()[0], id: 'spaces are not ids' }] }, 'invalid-argument');
  assert.deepEqual((await readdir(dir).catch(() => [])).sort(), before);
});
