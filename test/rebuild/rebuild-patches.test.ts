// Distributable patches through a real MCP client: a v2 build (a NitroFS file replaced by a bigger one,
// a new file, a patched ARM9 word) writes patch.bps and patch.ips beside the ROM; the tests' own
// decoders turn the source into the rebuilt ROM with each; nds_patch_apply does too (the source left
// untouched); a damaged patch, a patch for another ROM and a file that is no patch are refused with
// typed errors; a tampered patch file fails nds_mutation_verify.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import { type Harness, startServer } from '../kit/mcp-harness.js';
import { referenceApplyBps, referenceApplyIps } from '../kit/patch-reference.js';
import { rebuildFixture, sha } from './fixture.js';

let fx: Awaited<ReturnType<typeof rebuildFixture>>;
let h: Harness;
let manifest: string;
let built: {
  rom: string;
  outputSha256: string;
  outputSize: number;
  patches: { bps: string; ips: string | null; ipsRefused: string | null };
};

before(async () => {
  fx = await rebuildFixture();
  const model = parseNdsRom(bufferSource(fx.bytes));
  const target = model.files.find((f) => f.path !== null && f.overlays.length === 0)!;
  const bigger = new Uint8Array(5000).map((_, i) => (i * 13 + 1) & 0xff);
  await fx.put('art/bigger.bin', bigger);
  const added = new TextEncoder().encode('patched in\n');
  await fx.put('art/new.txt', added);
  const arm9 = model.arm9;
  const word = fx.bytes.subarray(arm9.romOffset + 0x40, arm9.romOffset + 0x44);
  manifest = await fx.manifest(
    'm/patches.json',
    [
      {
        op: 'replace-file',
        id: 'grow',
        component: { kind: 'path', path: target.path },
        artifact: 'art/bigger.bin',
        artifactSha256: sha(bigger),
        componentSha256: sha(fx.bytes.subarray(target.start, target.end)),
      },
      {
        op: 'add-file',
        id: 'add',
        path: 'patched/new.txt',
        artifact: 'art/new.txt',
        artifactSha256: sha(added),
      },
      {
        op: 'patch',
        id: 'arm9-word',
        component: { kind: 'arm9' },
        offset: '0x40',
        original: Buffer.from(word).toString('hex'),
        replacement: '1eff2fe1',
      },
    ],
    2,
  );
  h = await startServer({ workspace: fx.root, env: { RE_MCP_PROFILE: 'build' } });
  built = await h.ok('nds_mutation_build', { rom: fx.rel, manifest });
});

after(async () => {
  await h?.close();
});

test('the build writes BPS and IPS patches that the tests own decoders turn into the rebuilt ROM', async () => {
  const out = await readFile(join(fx.root, built.rom));
  assert.equal(sha(out), built.outputSha256);
  const bps = new Uint8Array(await readFile(join(fx.root, built.patches.bps)));
  assert.equal(sha(referenceApplyBps(bps, fx.bytes)), built.outputSha256);
  assert.ok(built.patches.ips, built.patches.ipsRefused ?? '');
  const ips = new Uint8Array(await readFile(join(fx.root, built.patches.ips)));
  assert.equal(sha(referenceApplyIps(ips, fx.bytes)), built.outputSha256);
  // A patch is small next to the ROM: it holds the changes, not the game.
  assert.ok(bps.length < out.length / 4, `${bps.length}-byte BPS for a ${out.length}-byte ROM`);
  const record = JSON.parse(await readFile(join(fx.root, built.rom, '..', 'patches.json'), 'utf8'));
  assert.equal(record.bps.sha256, sha(bps));
  assert.equal(record.bps.target.sha256, built.outputSha256);
  assert.equal(record.bps.source.sha256, sha(fx.bytes));
  assert.equal(record.ips.sha256, sha(ips));
});

test('nds_patch_apply rebuilds the same ROM from each patch and leaves the source as it was', async () => {
  const before = sha(await readFile(join(fx.root, fx.rel)));
  for (const patch of [built.patches.bps, built.patches.ips!]) {
    const r = await h.ok<{ format: string; output: string; outputSha256: string; checked: string }>(
      'nds_patch_apply',
      { rom: fx.rel, patch },
    );
    assert.equal(r.outputSha256, built.outputSha256, patch);
    assert.equal(sha(await readFile(join(fx.root, r.output))), built.outputSha256);
    assert.match(r.output, /^output\/patched\/[0-9a-f]{16}\/[0-9a-f]{16}\.nds$/);
    assert.equal(
      r.checked,
      r.format === 'bps' ? 'source-and-target-crc32' : 'none: IPS patches carry no checksums',
    );
  }
  assert.equal(sha(await readFile(join(fx.root, fx.rel))), before);
});

test('a damaged patch, a patch for another ROM and a file that is no patch are refused', async () => {
  const bps = new Uint8Array(await readFile(join(fx.root, built.patches.bps)));
  // One byte of the changes flipped: the patch's own CRC-32 says it is damaged.
  const damaged = bps.slice();
  damaged[Math.floor(damaged.length / 2)]! ^= 0x10;
  await writeFile(join(fx.root, 'art/damaged.bps'), damaged);
  assert.equal(
    (await h.fail('nds_patch_apply', { rom: fx.rel, patch: 'art/damaged.bps' })).code,
    'verification-failed',
  );
  // Applied to the rebuilt ROM instead of its source: another source.
  await copyFile(join(fx.root, built.rom), join(fx.root, 'roms/rebuilt-copy.nds'));
  assert.equal(
    (await h.fail('nds_patch_apply', { rom: 'roms/rebuilt-copy.nds', patch: built.patches.bps })).code,
    'verification-failed',
  );
  await writeFile(join(fx.root, 'art/not-a-patch.bps'), 'hello, this is text\n');
  assert.equal(
    (await h.fail('nds_patch_apply', { rom: fx.rel, patch: 'art/not-a-patch.bps' })).code,
    'invalid-argument',
  );
  const truncated = new Uint8Array(await readFile(join(fx.root, built.patches.ips!))).subarray(0, 40);
  await writeFile(join(fx.root, 'art/truncated.ips'), truncated);
  assert.equal(
    (await h.fail('nds_patch_apply', { rom: fx.rel, patch: 'art/truncated.ips' })).code,
    'invalid-argument',
  );
  assert.equal(
    (await h.fail('nds_patch_apply', { rom: fx.rel, patch: '../outside.bps' })).code,
    'workspace-escape',
  );
});

test('a tampered patch file fails nds_mutation_verify; put back, the build verifies again', async () => {
  const path = join(fx.root, built.patches.bps);
  const original = await readFile(path);
  const tampered = Buffer.from(original);
  tampered[tampered.length - 1]! ^= 1;
  await writeFile(path, tampered);
  const failed = await h.fail('nds_mutation_verify', { rom: fx.rel, manifest });
  assert.equal(failed.code, 'verification-failed');
  await writeFile(path, original);
  const again = await h.ok<{ outputSha256: string }>('nds_mutation_verify', { rom: fx.rel, manifest });
  assert.equal(again.outputSha256, built.outputSha256);
  assert.equal(createHash('sha256').update(original).digest('hex'), sha(original));
});
