import assert from 'node:assert/strict';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ReMcpError } from '../../src/core/errors.js';
import { fileArtifactName } from '../../src/extract/artifacts.js';
import { extractComponent } from '../../src/extract/component.js';
import { RomStore } from '../../src/roms/rom-store.js';
import type { ComponentSelector } from '../../src/search/search-scope.js';
import { Workspace } from '../../src/workspace/workspace.js';
import { makeWorkspace } from '../kit/mcp-harness.js';
import { type Fixture, fileSha, sha256, writeFixture } from './fixture.js';

let fx: Fixture;
let workspace: Workspace;
let store: RomStore;

before(async () => {
  const root = await makeWorkspace('re-mcp-extract-');
  fx = await writeFixture(root);
  workspace = new Workspace(root);
  store = new RomStore(workspace);
});
after(async () => {
  await rm(fx.root, { recursive: true, force: true });
});

const extract = (selector: ComponentSelector) =>
  store.withRom(fx.rel, (rom) => extractComponent(workspace, rom, selector));

test('each canonical selector writes exactly the stored bytes under the ROM directory', async () => {
  const { layout, bytes } = fx;
  const ov2 = layout.overlays.find((o) => o.processor === 'arm9' && o.id === 2)!;
  const cases: Array<[ComponentSelector, { start: number; end: number }, string, boolean]> = [
    [{ kind: 'arm9' }, layout.arm9.rom, 'components/arm9.bin', false],
    [{ kind: 'arm7' }, layout.arm7.rom, 'components/arm7.bin', false],
    [
      { kind: 'overlay', processor: 'arm9', id: 0 },
      layout.overlays[0]!.file,
      'components/overlays/arm9/overlay_0000.bin',
      false,
    ],
    [
      { kind: 'overlay', processor: 'arm9', id: 2 },
      ov2.file,
      'components/overlays/arm9/overlay_0002.bin',
      true,
    ],
    [
      { kind: 'overlay', processor: 'arm7', id: 1 },
      layout.overlays.find((o) => o.processor === 'arm7')!.file,
      'components/overlays/arm7/overlay_0001.bin',
      false,
    ],
  ];
  for (const f of layout.files.filter((x) => x.path !== null)) {
    const name = `components/files/${fileArtifactName(f.fileId, f.path)}`;
    assert.ok(name.endsWith(f.path!.split('/').pop()!), `${name} keeps the name of ${f.path}`);
    cases.push([{ kind: 'path', path: f.path! }, f, name, false]);
    cases.push([{ kind: 'file', fileId: f.fileId }, f, name, false]);
  }
  for (const [selector, range, name, compressed] of cases) {
    const r = await extract(selector);
    const expected = bytes.slice(range.start, range.end);
    assert.equal(r.artifact, `analysis/generated/nds/${fx.sha16}/${name}`, JSON.stringify(selector));
    const written = new Uint8Array(await readFile(join(fx.root, r.artifact)));
    assert.deepEqual(written, expected, `bytes of ${JSON.stringify(selector)}`);
    assert.equal(r.sha256, sha256(expected));
    assert.equal(r.sourceSha256, fx.sha256);
    assert.equal(r.size, range.end - range.start);
    assert.equal(r.compressed, compressed);
    assert.deepEqual(r.romRange, { start: range.start, end: range.end });
    const sidecar = JSON.parse(await readFile(join(fx.root, r.sidecar), 'utf8'));
    assert.equal(sidecar.sourceSha256, fx.sha256);
    assert.equal(sidecar.sha256, r.sha256);
    // Ranges in the one address form, as results give them.
    const h = (n: number) => `0x${n.toString(16).padStart(8, '0')}`;
    assert.deepEqual(sidecar.romRange, { start: h(range.start), end: h(range.end) });
  }
  // The compressed overlay is stored compressed: not the runtime image.
  const stored = await readFile(
    join(fx.root, `analysis/generated/nds/${fx.sha16}/components/overlays/arm9/overlay_0002.bin`),
  );
  assert.notEqual(stored.length, ov2.runtime.length);
  assert.equal(
    await fileSha(join(fx.root, fx.rel)),
    fx.sha256,
    'the source ROM is byte-identical afterwards',
  );
});

test('re-extraction is idempotent; a tampered artifact is restored', async () => {
  const first = await extract({ kind: 'arm9' });
  const path = join(fx.root, first.artifact);
  const before = await stat(path);
  const again = await extract({ kind: 'arm9' });
  assert.equal(again.written, false);
  assert.equal((await stat(path)).mtimeMs, before.mtimeMs, 'identical content is not rewritten');
  await writeFile(path, 'tampered');
  const fixed = await extract({ kind: 'arm9' });
  assert.equal(fixed.written, true);
  assert.equal(await fileSha(path), first.sha256);
});

test('unknown or ambiguous selectors are typed refusals and write nothing', async () => {
  const cases: Array<[ComponentSelector, string]> = [
    [{ kind: 'overlay', processor: 'arm9', id: 9 }, 'not-found'],
    [{ kind: 'overlay', processor: 'arm7', id: 0 }, 'not-found'],
    [{ kind: 'file', fileId: 4000 }, 'not-found'],
    [{ kind: 'path', path: '/data/one.bin' }, 'not-found'],
    [{ kind: 'path', path: 'data' }, 'not-found'],
    [{ kind: 'offset', start: 0, length: 16 } as unknown as ComponentSelector, 'invalid-argument'],
  ];
  for (const [selector, code] of cases) {
    await assert.rejects(extract(selector), (e: unknown) => e instanceof ReMcpError && e.code === code);
  }
});

test('a ROM that changes before the write fails with rom-changed and leaves no artifact', async () => {
  const root = await makeWorkspace('re-mcp-extract-changed-');
  try {
    const f = await writeFixture(root);
    const ws = new Workspace(root);
    const s = new RomStore(ws);
    await assert.rejects(
      s.withRom(f.rel, async (rom) => {
        // Rewrite the ROM between identification and extraction (same size, different bytes).
        const changed = new Uint8Array(f.bytes);
        changed[f.layout.arm9.rom.start] ^= 0xff;
        await writeFile(join(root, f.rel), changed);
        return extractComponent(ws, rom, { kind: 'arm9' });
      }),
      { code: 'rom-changed' },
    );
    await assert.rejects(stat(join(root, `analysis/generated/nds/${f.sha16}/components/arm9.bin`)), {
      code: 'ENOENT',
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('a zero-length FAT entry past the physical end (short dumps) extracts as an empty artifact', async () => {
  const root = await makeWorkspace('re-mcp-extract-empty-');
  try {
    const f = await writeFixture(root);
    const empty = f.layout.files.find((x) => x.path === 'empty.bin')!;
    const bytes = new Uint8Array(f.bytes);
    const view = new DataView(bytes.buffer);
    const fatAt = view.getUint32(0x48, true) + empty.fileId * 8;
    const past = bytes.length + 0x200;
    view.setUint32(fatAt, past, true);
    view.setUint32(fatAt + 4, past, true);
    await writeFile(join(root, f.rel), bytes);
    const ws = new Workspace(root);
    const s = new RomStore(ws);
    const r = await s.withRom(f.rel, (rom) => extractComponent(ws, rom, { kind: 'path', path: 'empty.bin' }));
    assert.deepEqual(
      [r.size, r.romRange, r.sha256],
      [0, { start: past, end: past }, sha256(new Uint8Array(0))],
    );
    assert.equal((await stat(join(root, r.artifact))).size, 0);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test('a NitroFS name in an artifact name: safe characters only, never hidden, never a path', () => {
  const cases: Array<[string | null, string]> = [
    ['data/sub/two.txt', 'file_00007_two.txt'],
    ['a/b/../../etc/passwd', 'file_00007_passwd'],
    ['dir/..', 'file_00007.bin'],
    ['dir/.hidden', 'file_00007_hidden'],
    ['x/\u0000\u001b[31mred\n.txt', 'file_00007_31mred_.txt'],
    ['x/ポケモン.sdat', 'file_00007_sdat'],
    ['x/____', 'file_00007.bin'],
    ['x/a b\\c:d*e?.bin', 'file_00007_a_b_c_d_e_.bin'],
    [null, 'file_00007.bin'],
    [`x/${'n'.repeat(300)}.bin`, `file_00007_${'n'.repeat(64)}`],
  ];
  for (const [path, want] of cases) {
    const name = fileArtifactName(7, path);
    assert.equal(name, want, JSON.stringify(path));
    assert.match(name, /^file_\d{5}[A-Za-z0-9._-]*$/);
  }
});
