// Format-1 rebuilds on a kit ROM: guarded same-size edits and exact-size replacement, every guard
// refused with a typed error naming the operation, determinism, reuse, collision, tamper detection
// (>= 1,000 single-byte flips), and the source ROM byte-identical throughout.
import assert from 'node:assert/strict';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { isReMcpError } from '../../src/core/errors.js';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import { rng as makeRng } from '../kit/rng.js';
import { hex, type RebuildFixture, rebuildFixture, sha } from './fixture.js';

let fx: RebuildFixture;
let patchManifest: string;

before(async () => {
  fx = await rebuildFixture();
});
after(async () => {
  await rm(fx.root, { recursive: true, force: true });
});

const expectCode = async (p: Promise<unknown>, code: string, text?: RegExp) => {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(isReMcpError(e), String(e));
    assert.equal(e.code, code, e.message);
    if (text) assert.match(e.message, text);
    return true;
  });
};

test('a guarded ARM9 edit and an exact-size file replacement build, verify and change only their bytes', async () => {
  const arm9 = fx.layout.arm9.rom;
  const file = fx.layout.files.find((f) => f.path === 'data/one.bin')!;
  const original = fx.bytes.subarray(arm9.start + 0x10, arm9.start + 0x14);
  const replacement = Uint8Array.from([0xde, 0xad, 0xbe, 0xef]);
  const newFile = new Uint8Array(file.end - file.start).fill(0x5a);
  await fx.put('art/one.bin', newFile);
  patchManifest = await fx.manifest('m/v1.json', [
    {
      op: 'patch',
      id: 'arm9-word',
      component: { kind: 'arm9' },
      offset: '0x10',
      original: hex(original),
      replacement: hex(replacement),
      runtimeAddress: fx.layout.arm9.ramAddress + 0x10,
    },
    {
      op: 'replace-component',
      id: 'one',
      component: { kind: 'path', path: 'data/one.bin' },
      artifact: 'art/one.bin',
      artifactSha256: sha(newFile),
      componentSha256: sha(fx.bytes.subarray(file.start, file.end)),
    },
  ]);
  const v = await fx.validate(patchManifest);
  assert.equal(v.plan.resolved.operations.length, 2);
  assert.equal(v.plan.resolved.output.size, fx.bytes.length);
  const r = await fx.build(patchManifest);
  assert.equal(r.reused, false);
  assert.equal(r.verification.rebuildSemanticsVerified, true);
  const out = new Uint8Array(await readFile(join(fx.root, r.rom)));
  assert.equal(out.length, fx.bytes.length);
  const expected = fx.bytes.slice();
  expected.set(replacement, arm9.start + 0x10);
  expected.set(newFile, file.start);
  assert.ok(Buffer.from(out).equals(Buffer.from(expected)), 'only the two edits changed');
  assert.equal(
    r.verification.changedPrefixBytes,
    4 + newFile.filter((b, i) => b !== fx.bytes[file.start + i]).length,
  );
  const names = (await readdir(join(fx.root, r.outputDir))).sort();
  assert.deepEqual(names, [
    'changed-components.json',
    'mutation-manifest.json',
    'output.sha256',
    'patch.bps',
    'patch.ips',
    'patches.json',
    'rebuilt.nds',
    'resolved-plan.json',
    'verification.json',
  ]);
  const verification = JSON.parse(await readFile(join(fx.root, r.outputDir, 'verification.json'), 'utf8'));
  assert.equal(verification.rebuildSemanticsVerified, true);
  assert.equal((await readFile(join(fx.root, r.outputDir, 'output.sha256'), 'utf8')).split(' ')[0], sha(out));
  assert.match(r.outputDir, new RegExp(`^output/nds/${fx.sha16}/[0-9a-f]{16}$`));
  parseNdsRom(bufferSource(out));
  const again = await fx.verify(patchManifest);
  assert.equal(again.outputSha256, r.outputSha256);
  // Re-running the identical build reuses it after verifying it.
  const reuse = await fx.build(patchManifest);
  assert.equal(reuse.reused, true);
  assert.equal(reuse.outputSha256, r.outputSha256);
});

test('determinism: the same manifest in another workspace gives byte-identical output and evidence', async () => {
  const other = await rebuildFixture();
  try {
    const text = await readFile(join(fx.root, patchManifest));
    await other.put(patchManifest, text);
    await other.put('art/one.bin', await readFile(join(fx.root, 'art/one.bin')));
    const a = await fx.verify(patchManifest);
    const b = await other.build(patchManifest);
    assert.equal(a.outputDir, b.outputDir);
    for (const name of await readdir(join(fx.root, a.outputDir))) {
      const x = await readFile(join(fx.root, a.outputDir, name));
      const y = await readFile(join(other.root, b.outputDir, name));
      assert.ok(x.equals(y), `${name} differs`);
    }
  } finally {
    await rm(other.root, { recursive: true, force: true });
  }
});

test('every guard violation is refused with a typed error naming the operation', async () => {
  const arm9 = fx.layout.arm9.rom;
  const word = hex(fx.bytes.subarray(arm9.start + 0x10, arm9.start + 0x14));
  const patch = (extra: Record<string, unknown>) => ({
    op: 'patch',
    id: 'g1',
    component: { kind: 'arm9' },
    offset: 16,
    original: word,
    replacement: '00000000',
    ...extra,
  });
  const cases: Array<[string, unknown[], string, RegExp]> = [
    ['bad original', [patch({ original: 'ffffffff' })], 'invalid-argument', /"g1".*original-byte guard/],
    ['runtime guard', [patch({ runtimeAddress: '0x02000000' })], 'invalid-argument', /"g1".*runtime guard/],
    [
      'component guard',
      [patch({ componentSha256: '0'.repeat(64) })],
      'invalid-argument',
      /"g1".*component guard/,
    ],
    ['length', [patch({ replacement: '00' })], 'invalid-argument', /"g1".*differ in length/],
    ['outside', [patch({ offset: 0x7fffffff })], 'invalid-argument', /"g1".*outside/],
    [
      'missing overlay',
      [patch({ component: { kind: 'overlay', processor: 'arm9', id: 9 } })],
      'not-found',
      /"g1"/,
    ],
    [
      'compressed',
      [
        patch({
          component: { kind: 'overlay', processor: 'arm9', id: 2 },
          offset: 0,
          original: '00',
          replacement: '00',
        }),
      ],
      'unsupported',
      /"g1".*compressed/,
    ],
    [
      'conflict',
      [patch({}), patch({ id: 'g2', offset: 18, original: word.slice(4, 8), replacement: '0000' })],
      'invalid-argument',
      /"g1" and "g2"/,
    ],
    [
      'duplicate id',
      [patch({}), patch({ offset: 32, original: hex(fx.bytes.subarray(arm9.start + 32, arm9.start + 36)) })],
      'invalid-argument',
      /"g1".*twice/,
    ],
  ];
  for (const [label, ops, code, text] of cases) {
    const m = await fx.manifest(`m/bad-${label.replace(/ /g, '-')}.json`, ops);
    await expectCode(fx.validate(m), code, text);
  }
  // Schema: unknown keys, wrong source, v2 operation in a v1 manifest, paths outside the workspace.
  await fx.put(
    'm/extra.json',
    JSON.stringify({
      formatVersion: 1,
      source: { sha256: fx.sha256, size: fx.bytes.length },
      operations: [patch({})],
      extra: 1,
    }),
  );
  await expectCode(fx.validate('m/extra.json'), 'invalid-argument', /schema/);
  await fx.put(
    'm/other-source.json',
    JSON.stringify({
      formatVersion: 1,
      source: { sha256: 'a'.repeat(64), size: fx.bytes.length },
      operations: [patch({})],
    }),
  );
  await expectCode(fx.validate('m/other-source.json'), 'invalid-argument', /another source ROM/);
  const v2op = {
    op: 'add-file',
    id: 'n',
    path: 'x.bin',
    artifact: 'art/one.bin',
    artifactSha256: '0'.repeat(64),
  };
  await expectCode(
    fx.validate(await fx.manifest('m/v2-in-v1.json', [v2op], 1)),
    'invalid-argument',
    /schema/,
  );
  const escapeOp = {
    op: 'replace-component',
    id: 'esc',
    component: { kind: 'arm7' },
    artifact: '../outside.bin',
    artifactSha256: '0'.repeat(64),
    componentSha256: '0'.repeat(64),
  };
  await expectCode(fx.validate(await fx.manifest('m/escapeOp.json', [escapeOp])), 'workspace-escape');
  await expectCode(fx.validate('../manifest.json'), 'workspace-escape');
  // An artifact whose hash is not the manifest's.
  const wrongArt = { ...escapeOp, id: 'wrong', artifact: 'art/one.bin' };
  await expectCode(
    fx.validate(await fx.manifest('m/wrong-art.json', [wrongArt])),
    'invalid-argument',
    /"wrong".*artifact SHA-256/,
  );
});

test('a tampered published build fails verification at >= 1,000 sampled single-byte flips', async () => {
  const r = await fx.verify(patchManifest);
  const dir = join(fx.root, r.outputDir);
  const files = (await readdir(dir)).sort();
  const rng = makeRng(0x15);
  const romPath = join(dir, 'rebuilt.nds');
  const rom = await readFile(romPath);
  const model = parseNdsRom(bufferSource(rom));
  // Positions: header, FAT, FNT, every payload, padding between them, and the evidence files.
  const positions: Array<[string, number]> = [];
  const region = (start: number, end: number, n: number) => {
    for (let i = 0; i < n && end > start; i++)
      positions.push(['rebuilt.nds', start + Math.floor(rng() * (end - start))]);
  };
  region(0, 0x200, 200);
  region(model.header.fat.start, model.header.fat.end, 100);
  region(model.header.fnt.start, model.header.fnt.end, 100);
  for (const f of model.files) region(f.start, f.end, 40);
  region(model.arm9.rom.start, model.arm9.rom.end, 100);
  region(model.arm7.rom.start, model.arm7.rom.end, 100);
  region(0, rom.length, 300);
  for (const name of files.filter((n) => n !== 'rebuilt.nds')) {
    const size = (await readFile(join(dir, name))).length;
    for (let i = 0; i < 20; i++) positions.push([name, Math.floor(rng() * size)]);
  }
  assert.ok(positions.length >= 1000, `${positions.length} positions`);
  const cache = new Map<string, Buffer>();
  for (const [name, at] of positions) {
    const path = join(dir, name);
    const bytes = cache.get(name) ?? (await readFile(path));
    cache.set(name, bytes);
    const flipped = Buffer.from(bytes);
    flipped[at] = flipped[at]! ^ (1 + Math.floor(rng() * 255));
    await writeFile(path, flipped);
    try {
      await assert.rejects(
        fx.verify(patchManifest),
        (e: unknown) => isReMcpError(e) && e.code === 'verification-failed',
        `${name}@${at}`,
      );
      // A build of the same manifest refuses to reuse or overwrite the tampered output.
      if (at % 97 === 0)
        await assert.rejects(
          fx.build(patchManifest),
          (e: unknown) => isReMcpError(e) && e.code === 'publish-collision',
        );
    } finally {
      await writeFile(path, bytes);
    }
  }
  await fx.verify(patchManifest);
  // An extra file in the build directory is a divergence too.
  await writeFile(join(dir, 'extra.txt'), 'x');
  await assert.rejects(
    fx.verify(patchManifest),
    (e: unknown) => isReMcpError(e) && e.code === 'verification-failed',
  );
  await rm(join(dir, 'extra.txt'));
});

test('the source ROM is byte-identical after every build', async () => {
  assert.equal(sha(await readFile(join(fx.root, fx.rel))), fx.sha256);
});
