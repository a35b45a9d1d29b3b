// Hostile manifests and inputs changing under a build: random and mutated manifests are refused with
// typed errors (never a crash or a write); an artifact changed after validation, a build directory
// planted as a symlink, a parent swapped for a link mid-build and a cancelled build leave nothing
// published; the source stays byte-identical.
import assert from 'node:assert/strict';
import { lstat, mkdir, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { isReMcpError } from '../../src/core/errors.js';
import { buildManifest } from '../../src/rebuild/service.js';
import { rng } from '../kit/rng.js';
import { hex, type RebuildFixture, rebuildFixture, sha } from './fixture.js';

let fx: RebuildFixture;
let good: Record<string, unknown>;

before(async () => {
  fx = await rebuildFixture();
  const a = fx.layout.arm9.rom.start + 0x40;
  good = {
    formatVersion: 1,
    source: { sha256: fx.sha256, size: fx.bytes.length },
    operations: [
      {
        op: 'patch',
        id: 'p',
        component: { kind: 'arm9' },
        offset: '0x40',
        original: hex(fx.bytes.subarray(a, a + 4)),
        replacement: '01020304',
      },
    ],
  };
});
after(async () => {
  await rm(fx.root, { recursive: true, force: true });
});

const TYPED = new Set(['invalid-argument', 'not-found', 'unsupported', 'limit-exceeded', 'workspace-escape']);

function mutate(value: unknown, r: () => number, depth = 0): unknown {
  const pick = r();
  if (depth > 3 || pick < 0.15) {
    const choices = [
      null,
      -1,
      0x7fffffff,
      1.5,
      '',
      '0x',
      'zz',
      '../x',
      [],
      {},
      true,
      'a'.repeat(2000),
      2 ** 53,
    ];
    return choices[Math.floor(r() * choices.length)];
  }
  if (Array.isArray(value)) return value.map((v) => mutate(v, r, depth + 1));
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => [k, r() < 0.3 ? mutate(v, r, depth + 1) : v]);
    if (r() < 0.1) entries.push(['unexpected', 1]);
    if (r() < 0.1 && entries.length > 0) entries.splice(Math.floor(r() * entries.length), 1);
    return Object.fromEntries(entries);
  }
  return value;
}

test('500 mutated manifests and raw garbage are refused with typed errors, nothing is written', async () => {
  const r = rng(0x1515);
  for (let i = 0; i < 500; i++) {
    const body =
      i % 25 === 0
        ? Buffer.from(Array.from({ length: 64 }, () => Math.floor(r() * 256)))
        : JSON.stringify(mutate(good, r));
    await writeFile(join(fx.root, 'm.json'), body);
    try {
      await fx.validate('m.json');
    } catch (error) {
      assert.ok(isReMcpError(error) && TYPED.has(error.code), `case ${i}: ${String(error)}`);
    }
  }
  assert.deepEqual(await readdir(join(fx.root, 'output')).catch(() => []), []);
  assert.equal(sha(await readFile(join(fx.root, fx.rel))), fx.sha256);
});

test('an artifact changed after validation fails the build and publishes nothing', async () => {
  const file = fx.layout.files.find((f) => f.path === 'data/one.bin')!;
  const art = new Uint8Array(file.end - file.start).fill(0x33);
  await fx.put('art/x.bin', art);
  const m = await fx.manifest('m/art.json', [
    {
      op: 'replace-component',
      id: 'x',
      component: { kind: 'file', fileId: file.fileId },
      artifact: 'art/x.bin',
      artifactSha256: sha(art),
      componentSha256: sha(fx.bytes.subarray(file.start, file.end)),
    },
  ]);
  const v = await fx.validate(m);
  await assert.rejects(
    fx.build(m, async (step) => {
      if (step === 'verified')
        await writeFile(join(fx.root, 'art/x.bin'), new Uint8Array(art.length).fill(0x44));
    }),
    (e: unknown) => isReMcpError(e) && /"x".*artifact changed/.test(e.message),
  );
  assert.equal(await lstat(join(fx.root, v.outputDir)).catch(() => null), null);
  const leftovers = (await readdir(join(fx.root, 'output', 'nds', fx.sha16))).filter((n) =>
    n.startsWith('.'),
  );
  assert.deepEqual(leftovers, []);
});

test('a symlink planted at the build directory or its parent is never written through', async () => {
  await writeFile(join(fx.root, 'm.json'), JSON.stringify(good));
  const v = await fx.validate('m.json');
  const outside = join(fx.root, '..', `${fx.sha16}-outside`);
  await mkdir(outside, { recursive: true });
  try {
    await mkdir(join(fx.root, 'output', 'nds', fx.sha16), { recursive: true });
    await symlink(outside, join(fx.root, v.outputDir));
    await assert.rejects(
      fx.build('m.json'),
      (e: unknown) => isReMcpError(e) && e.code === 'publish-collision',
    );
    await assert.rejects(
      fx.verify('m.json'),
      (e: unknown) => isReMcpError(e) && e.code === 'workspace-escape',
    );
    await rm(join(fx.root, v.outputDir));
    await rm(join(fx.root, 'output', 'nds', fx.sha16), { recursive: true });
    await symlink(outside, join(fx.root, 'output', 'nds', fx.sha16));
    await assert.rejects(
      fx.build('m.json'),
      (e: unknown) => isReMcpError(e) && e.code === 'workspace-escape',
    );
    assert.deepEqual(await readdir(outside), []);
    await rm(join(fx.root, 'output', 'nds', fx.sha16));
  } finally {
    await rm(outside, { recursive: true, force: true });
  }
});

test('a parent directory swapped for a link during the build redirects nothing and publishes nothing', async () => {
  await writeFile(join(fx.root, 'm.json'), JSON.stringify(good));
  const v = await fx.validate('m.json');
  const parent = join(fx.root, 'output', 'nds', fx.sha16);
  const moved = `${parent}-moved`;
  const outside = join(fx.root, '..', `${fx.sha16}-swap-outside`);
  await mkdir(outside, { recursive: true });
  try {
    for (const step of ['rom-written', 'verified']) {
      await rm(parent, { recursive: true, force: true });
      await rm(moved, { recursive: true, force: true });
      await assert.rejects(
        fx.build('m.json', async (s) => {
          if (s !== step) return;
          await rename(parent, moved);
          await symlink(outside, parent);
        }),
        (e: unknown) => isReMcpError(e) && e.code === 'workspace-escape',
        step,
      );
      assert.deepEqual(await readdir(outside), [], `written outside the workspace at ${step}`);
      // The held directory followed the move; the build's temp directory and lock were removed there.
      assert.deepEqual(await readdir(moved), [], `left in the moved directory at ${step}`);
      await rm(parent);
    }
  } finally {
    await rm(outside, { recursive: true, force: true });
    await rm(moved, { recursive: true, force: true });
  }
  // The real place still builds normally afterwards.
  await fx.build('m.json');
  await fx.verify('m.json');
  await rm(join(fx.root, v.outputDir), { recursive: true });
});

test('a cancelled build publishes nothing', async () => {
  await writeFile(join(fx.root, 'm.json'), JSON.stringify(good));
  const v = await fx.validate('m.json');
  const controller = new AbortController();
  controller.abort();
  await assert.rejects(
    fx.store.withRom(fx.rel, (rom) =>
      buildManifest(fx.workspace, rom, 'm.json', { signal: controller.signal }),
    ),
    (e: unknown) => isReMcpError(e) && e.code === 'cancelled',
  );
  assert.equal(await lstat(join(fx.root, v.outputDir)).catch(() => null), null);
});
