// replace-overlay with a decoded image of another size: the overlay's BSS absorbs the difference so
// its runtime range [ramAddress, ramAddress + ramSize + bssSize) stays where it was; an image past that
// range, of a size that is not a multiple of 4, or one that would leave the static-initializer list
// outside the image is refused.
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { isReMcpError } from '../../src/core/errors.js';
import { blzDecode } from '../../src/formats/blz/index.js';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import { type RebuildFixture, rebuildFixture, sha } from './fixture.js';

async function replaceOverlay(fx: RebuildFixture, id: number, image: Uint8Array, name: string) {
  const model = parseNdsRom(bufferSource(fx.bytes));
  const ov = model.overlays.arm9.find((o) => o.id === id)!;
  await fx.put(`art/${name}.bin`, image);
  return fx.manifest(
    `m/${name}.json`,
    [
      {
        op: 'replace-overlay',
        id: name,
        overlay: { processor: 'arm9', id },
        artifact: `art/${name}.bin`,
        artifactSha256: sha(image),
        componentSha256: sha(fx.bytes.subarray(ov.file.start, ov.file.end)),
      },
    ],
    2,
  );
}

test('a shorter decoded image moves the difference into BSS, plain and compressed', async () => {
  const fx = await rebuildFixture();
  try {
    const model = parseNdsRom(bufferSource(fx.bytes));
    for (const id of [0, 2]) {
      const ov = model.overlays.arm9.find((o) => o.id === id)!;
      const image = new Uint8Array(ov.ramSize - 64).map((_, i) => (i % 16 < 8 ? 0x33 : i & 0xff));
      const m = await replaceOverlay(fx, id, image, `short${id}`);
      const r = await fx.build(m);
      const out = new Uint8Array(await readFile(join(fx.root, r.rom)));
      const rebuilt = parseNdsRom(bufferSource(out)).overlays.arm9.find((o) => o.id === id)!;
      assert.equal(rebuilt.ramAddress, ov.ramAddress);
      assert.equal(rebuilt.ramSize, image.length);
      assert.equal(rebuilt.bssSize, ov.bssSize + 64);
      assert.equal(rebuilt.ramSize + rebuilt.bssSize, ov.ramSize + ov.bssSize, 'runtime range unchanged');
      assert.equal(rebuilt.compressed, ov.compressed);
      const stored = out.subarray(rebuilt.file.start, rebuilt.file.end);
      assert.deepEqual(rebuilt.compressed ? blzDecode(stored) : stored, image);
      const plan = JSON.parse(await readFile(join(fx.root, r.outputDir, 'resolved-plan.json'), 'utf8'));
      assert.deepEqual(
        plan.overlayRecords.map((o: { ramSize: number; bssSize: number }) => [o.ramSize, o.bssSize]),
        [[image.length, ov.bssSize + 64]],
      );
      // The other overlays keep their records.
      for (const o of model.overlays.arm9.filter((x) => x.id !== id)) {
        const g = parseNdsRom(bufferSource(out)).overlays.arm9.find((x) => x.id === o.id)!;
        assert.deepEqual([g.ramSize, g.bssSize, g.fileId], [o.ramSize, o.bssSize, o.fileId]);
      }
      await fx.verify(m);
    }
  } finally {
    await rm(fx.root, { recursive: true, force: true });
  }
});

test('a larger image fits only into the BSS; sizes and the static-initializer list are guarded', async () => {
  const base = await rebuildFixture();
  let fx: RebuildFixture | null = null;
  try {
    // Overlay 0 is given a 0x100-byte BSS and a static-initializer list at +0x200..+0x208.
    const model = parseNdsRom(bufferSource(base.bytes));
    const ov = model.overlays.arm9.find((o) => o.id === 0)!;
    const bytes = base.bytes.slice();
    const view = new DataView(bytes.buffer);
    const entry = model.header.arm9OverlayTable.start + ov.tableIndex * 32;
    view.setUint32(entry + 0x0c, 0x100, true);
    view.setUint32(entry + 0x10, ov.ramAddress + 0x200, true);
    view.setUint32(entry + 0x14, ov.ramAddress + 0x208, true);
    fx = await rebuildFixture(undefined, bytes);
    const crafted = parseNdsRom(bufferSource(bytes)).overlays.arm9.find((o) => o.id === 0)!;
    assert.deepEqual([crafted.bssSize, crafted.staticInit.start], [0x100, ov.ramAddress + 0x200]);

    const bigger = new Uint8Array(ov.ramSize + 0x100).fill(0x5a);
    const r = await fx.build(await replaceOverlay(fx, 0, bigger, 'bigger'));
    const out = new Uint8Array(await readFile(join(fx.root, r.rom)));
    const rebuilt = parseNdsRom(bufferSource(out)).overlays.arm9.find((o) => o.id === 0)!;
    assert.deepEqual([rebuilt.ramSize, rebuilt.bssSize], [ov.ramSize + 0x100, 0]);
    assert.deepEqual(rebuilt.staticInit, crafted.staticInit);

    const refused = async (image: Uint8Array, name: string, pattern: RegExp) => {
      const m = await replaceOverlay(fx!, 0, image, name);
      await assert.rejects(
        fx!.validate(m),
        (e: unknown) =>
          isReMcpError(e) &&
          e.code === 'invalid-argument' &&
          new RegExp(`"${name}"`).test(e.message) &&
          pattern.test(e.message),
        name,
      );
    };
    await refused(new Uint8Array(ov.ramSize + 0x104), 'past-bss', /at most/);
    await refused(new Uint8Array(ov.ramSize - 2), 'unaligned', /multiple of 4/);
    await refused(new Uint8Array(0x204), 'cuts-init', /static-initializer list/);
    // Exactly up to the end of the list is enough.
    await fx.validate(await replaceOverlay(fx, 0, new Uint8Array(0x208), 'keeps-init'));
  } finally {
    await rm(base.root, { recursive: true, force: true });
    if (fx) await rm(fx.root, { recursive: true, force: true });
  }
});
