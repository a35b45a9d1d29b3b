// Format-2 rebuilds: a NitroFS file replaced by one of another size and new files in new and existing
// directories, on a kit ROM and on every valid shared ROM. The rebuilt ROM reparses with the new
// bytes at the new FAT ranges and every old file where it was; the source prefix changes only in
// the header.
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { isReMcpError } from '../../src/core/errors.js';
import { blzDecode } from '../../src/formats/blz/index.js';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import { referenceApplyBps, referenceApplyIps } from '../kit/patch-reference.js';
import { INVALID_SHARED_ROM, sharedRomNames, sharedRomPath } from '../kit/shared-data.js';
import { rebuildFixture, sha } from './fixture.js';

/** The distributable patches, applied by the tests' own decoders, give the rebuilt ROM exactly. */
async function patchesGiveOutput(
  fx: { root: string; bytes: Uint8Array },
  r: { patches: { bps: string; ips: string | null; ipsRefused: string | null } },
  out: Uint8Array,
) {
  const bps = new Uint8Array(await readFile(join(fx.root, r.patches.bps)));
  assert.equal(sha(referenceApplyBps(bps, fx.bytes, 2 ** 30)), sha(out), 'BPS applied gives the output');
  if (r.patches.ips) {
    const ips = new Uint8Array(await readFile(join(fx.root, r.patches.ips)));
    assert.equal(sha(referenceApplyIps(ips, fx.bytes, 2 ** 30)), sha(out), 'IPS applied gives the output');
  } else assert.match(r.patches.ipsRefused ?? '', /16 MiB/);
  if (out.length <= 0x1000000) assert.ok(r.patches.ips, 'a ROM within 16 MiB gets an IPS patch');
}

async function v2Case(romBytes: Uint8Array | undefined) {
  const fx = await rebuildFixture(undefined, romBytes);
  try {
    const model = parseNdsRom(bufferSource(fx.bytes));
    const named = model.files.filter((f) => f.path !== null && f.overlays.length === 0);
    const ops: unknown[] = [];
    const bigger = new Uint8Array(3000).map((_, i) => (i * 7) & 0xff);
    await fx.put('art/bigger.bin', bigger);
    const target = named[0];
    if (target) {
      ops.push({
        op: 'replace-file',
        id: 'grow',
        component: { kind: 'path', path: target.path },
        artifact: 'art/bigger.bin',
        artifactSha256: sha(bigger),
        componentSha256: sha(fx.bytes.subarray(target.start, target.end)),
      });
    }
    const added = new TextEncoder().encode('a new file\n');
    await fx.put('art/new.txt', added);
    ops.push({
      op: 'add-file',
      id: 'add1',
      path: 'rebuild-new/dir/new.txt',
      artifact: 'art/new.txt',
      artifactSha256: sha(added),
    });
    ops.push({
      op: 'add-file',
      id: 'add2',
      path: 'rebuild-new/dir/second.txt',
      artifact: 'art/new.txt',
      artifactSha256: sha(added),
    });
    const m = await fx.manifest('m/v2.json', ops, 2);
    const r = await fx.build(m);
    const out = new Uint8Array(await readFile(join(fx.root, r.rom)));
    const rebuilt = parseNdsRom(bufferSource(out));
    await patchesGiveOutput(fx, r, out);
    // Prefix: only the header and the relocated file's old (zeroed) bytes differ from the source.
    const old = (await fx.validate(m)).plan.resolved.operations[0]?.oldBytes;
    const zeroed = old?.zeroed ? [Number(old.start), Number(old.end)] : [0, 0];
    for (let i = 0x200; i < fx.bytes.length; i++) {
      const want = i >= zeroed[0]! && i < zeroed[1]! ? 0 : fx.bytes[i];
      assert.equal(out[i], want, `prefix byte ${i}`);
    }
    assert.equal(rebuilt.header.headerCrc.ok, true);
    assert.ok(rebuilt.header.capacityBytes! >= out.length);
    assert.ok(rebuilt.header.capacityBytes! / 2 < out.length || rebuilt.header.deviceCapacity === 0);
    if (target) {
      const f = rebuilt.files[target.fileId]!;
      assert.equal(f.path, target.path);
      assert.deepEqual(out.subarray(f.start, f.end), bigger);
      assert.ok(f.start >= fx.bytes.length, 'relocated after the source');
    }
    const n1 = rebuilt.files.find((f) => f.path === 'rebuild-new/dir/new.txt')!;
    const n2 = rebuilt.files.find((f) => f.path === 'rebuild-new/dir/second.txt')!;
    assert.deepEqual(out.subarray(n1.start, n1.end), added);
    assert.deepEqual(out.subarray(n2.start, n2.end), added);
    assert.equal(n1.fileId, model.files.length);
    for (const f of model.files) {
      if (f.fileId === target?.fileId) continue;
      const g = rebuilt.files[f.fileId]!;
      assert.deepEqual([g.start, g.end, g.path], [f.start, f.end, f.path], `file ${f.fileId} unchanged`);
    }
    assert.deepEqual(rebuilt.overlays, model.overlays);
    await fx.verify(m);
    const again = await fx.build(m);
    assert.equal(again.reused, true);
    assert.equal(sha(await readFile(join(fx.root, fx.rel))), fx.sha256, 'source untouched');
    // A new file into an existing directory whose IDs do not end at the last ID is refused.
    const inner = named.find((f) => f.fileId < model.files.length - 1 && f.path!.includes('/'));
    if (inner) {
      const dir = inner.path!.slice(0, inner.path!.lastIndexOf('/'));
      const bad = await fx.manifest(
        'm/v2-bad.json',
        [
          {
            op: 'add-file',
            id: 'renumber',
            path: `${dir}/zz-new.bin`,
            artifact: 'art/new.txt',
            artifactSha256: sha(added),
          },
        ],
        2,
      );
      await assert.rejects(
        fx.validate(bad),
        (e: unknown) => isReMcpError(e) && e.code === 'unsupported' && /"renumber"/.test(e.message),
      );
    }
  } finally {
    await rm(fx.root, { recursive: true, force: true });
  }
}

test('kit ROM: variable-size replacement and new files in a new directory', async () => {
  await v2Case(undefined);
});

for (const name of sharedRomNames().filter((n) => n !== INVALID_SHARED_ROM)) {
  test(`${name}: variable-size replacement and new files rebuild and verify`, async () => {
    await v2Case(new Uint8Array(await readFile(sharedRomPath(name))));
  });
}

for (const name of sharedRomNames().filter((n) => n !== INVALID_SHARED_ROM)) {
  test(`${name}: a v1 guarded ARM7 edit and exact-size ARM9 replacement rebuild and verify`, async () => {
    const fx = await rebuildFixture(undefined, new Uint8Array(await readFile(sharedRomPath(name))));
    try {
      const model = parseNdsRom(bufferSource(fx.bytes));
      const a7 = model.arm7;
      const at = a7.rom.start + 8;
      const arm9 = fx.bytes.slice(model.arm9.rom.start, model.arm9.rom.end);
      await fx.put('art/arm9.bin', arm9);
      const m = await fx.manifest('m/v1.json', [
        {
          op: 'patch',
          id: 'arm7',
          component: { kind: 'arm7' },
          offset: 8,
          original: Buffer.from(fx.bytes.subarray(at, at + 4)).toString('hex'),
          replacement: '04030201',
          runtimeAddress: a7.ramAddress + 8,
        },
        {
          op: 'replace-component',
          id: 'arm9-same',
          component: { kind: 'arm9' },
          artifact: 'art/arm9.bin',
          artifactSha256: sha(arm9),
          componentSha256: sha(arm9),
        },
      ]);
      const r = await fx.build(m);
      const out = new Uint8Array(await readFile(join(fx.root, r.rom)));
      const expected = fx.bytes.slice();
      expected.set([4, 3, 2, 1], at);
      assert.ok(Buffer.from(out).equals(Buffer.from(expected)));
      assert.equal(
        r.verification.changedPrefixBytes,
        [4, 3, 2, 1].filter((b, i) => b !== fx.bytes[at + i]).length,
      );
    } finally {
      await rm(fx.root, { recursive: true, force: true });
    }
  });
}

test('decoded compressed-overlay replacement is BLZ-recompressed; the rebuilt overlay decodes to the image', async () => {
  const fx = await rebuildFixture();
  try {
    const model = parseNdsRom(bufferSource(fx.bytes));
    const ov2 = model.overlays.arm9.find((o) => o.id === 2)!;
    const ov0 = model.overlays.arm9.find((o) => o.id === 0)!;
    assert.equal(ov2.compressed, true);
    const image2 = new Uint8Array(ov2.ramSize).map((_, i) => (i % 24 < 12 ? 0x11 : i & 0xff));
    const image0 = new Uint8Array(ov0.ramSize).fill(0x42);
    await fx.put('art/ov2.bin', image2);
    await fx.put('art/ov0.bin', image0);
    const stored = (o: typeof ov2) => sha(fx.bytes.subarray(o.file.start, o.file.end));
    const m = await fx.manifest(
      'm/ov.json',
      [
        {
          op: 'replace-overlay',
          id: 'ov2',
          overlay: { processor: 'arm9', id: 2 },
          artifact: 'art/ov2.bin',
          artifactSha256: sha(image2),
          componentSha256: stored(ov2),
        },
        {
          op: 'replace-overlay',
          id: 'ov0',
          overlay: { processor: 'arm9', id: 0 },
          artifact: 'art/ov0.bin',
          artifactSha256: sha(image0),
          componentSha256: stored(ov0),
        },
      ],
      2,
    );
    const r = await fx.build(m);
    const out = new Uint8Array(await readFile(join(fx.root, r.rom)));
    const rebuilt = parseNdsRom(bufferSource(out));
    await patchesGiveOutput(fx, r, out);
    const n2 = rebuilt.overlays.arm9.find((o) => o.id === 2)!;
    assert.equal(n2.compressed, true);
    assert.ok(n2.file.end - n2.file.start < image2.length, 'stored compressed');
    assert.equal(n2.compressedSize, n2.file.end - n2.file.start);
    assert.deepEqual(blzDecode(out.subarray(n2.file.start, n2.file.end)), image2);
    const n0 = rebuilt.overlays.arm9.find((o) => o.id === 0)!;
    assert.deepEqual(out.subarray(n0.file.start, n0.file.end), image0);
    assert.ok(r.verification.checks.includes('decoded-overlay-identity'));
    await fx.verify(m);
    // The runtime range may not change: a decoded image past RAM size plus BSS is refused.
    const long = new Uint8Array(ov2.ramSize + ov2.bssSize + 4);
    await fx.put('art/long.bin', long);
    const bad = await fx.manifest(
      'm/ov-bad.json',
      [
        {
          op: 'replace-overlay',
          id: 'long',
          overlay: { processor: 'arm9', id: 2 },
          artifact: 'art/long.bin',
          artifactSha256: sha(long),
          componentSha256: stored(ov2),
        },
      ],
      2,
    );
    await assert.rejects(
      fx.validate(bad),
      (e: unknown) => isReMcpError(e) && /"long".*runtime range/.test(e.message),
    );
  } finally {
    await rm(fx.root, { recursive: true, force: true });
  }
});
