// Real boot of resized overlays. The kit's overlay loader (test/kit/arm/src/arm9-overlay-loader.s)
// loads every ARM9 overlay the way a game's overlay manager does: it reads the overlay table and the
// FAT over the cartridge bus, copies the overlay's file to its RAM address, BLZ-decodes it in place
// when the table flags it compressed, zero-fills the BSS the table declares (over stale 0xEE bytes),
// and calls it; the overlay writes its value word, its last word and the word right past its image
// into main RAM. Overlay 0 is stored plain, overlay 1 BLZ-compressed; both start as a 0x200-byte image
// with 0x600 bytes of BSS. v2 manifests replace them with images of other sizes (0x600 and 0x80
// bytes); the builds are started in the real DeSmuME through the server's own debugger tools, run to
// loader_done, and what the overlays and the loader left in RAM is read back.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { blzDecode } from '../../src/formats/blz/index.js';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import {
  expectedLoaderResult,
  imageMarks as marks,
  overlayLoaderSuite,
  sha256Hex as sha,
} from '../kit/desmume/overlay-loader-boot.js';

const { frame, sourceBytes, bootAndRead, replaceManifest, buildThroughTools } =
  overlayLoaderSuite('re-mcp-overlay-boot-');

/** A v2 manifest replacing overlay 0 with `plain` and overlay 1 with `packed`. */
const resizeManifest = (name: string, plain: Uint8Array, packed: Uint8Array) =>
  replaceManifest(
    name,
    new Map([
      [0, plain],
      [1, packed],
    ]),
  );

/** The built ROM's overlay table agrees with the plan and its stored files decode to the images. */
function checkBuiltTable(built: Uint8Array, images: Uint8Array[]) {
  const model = parseNdsRom(bufferSource(built));
  const { overlays } = frame.rom;
  for (const [i, image] of images.entries()) {
    const ov = model.overlays.arm9.find((o) => o.id === i)!;
    const original = overlays[i]!;
    assert.equal(ov.ramAddress, original.ramAddress, `overlay ${i} keeps its RAM address`);
    assert.equal(ov.ramSize, image.length, `overlay ${i} RAM size`);
    assert.equal(ov.bssSize, original.ramSize + original.bssSize - image.length, `overlay ${i} BSS size`);
    assert.equal(ov.compressed, original.compressed, `overlay ${i} compression flag`);
    const stored = built.subarray(ov.file.start, ov.file.end);
    if (ov.compressed) {
      assert.equal(ov.compressedSize, stored.length, `overlay ${i} compressed size`);
      assert.ok(stored.length < image.length, `overlay ${i} is stored smaller than its image`);
      assert.equal(
        sha(blzDecode(stored, { inPlace: true })),
        sha(image),
        `overlay ${i} decodes to the image`,
      );
    } else {
      assert.equal(sha(stored), sha(image), `overlay ${i} is stored as the image`);
    }
  }
  return model;
}

const expected = expectedLoaderResult;

test('the loader boots the source ROM: the plain and the BLZ-compressed overlay both run', async () => {
  const h = await frame.server();
  const { images } = frame.rom;
  const model = parseNdsRom(bufferSource(await sourceBytes()));
  assert.ok(model.overlays.arm9[1]!.compressed && !model.overlays.arm9[0]!.compressed);
  const { results: loaded } = await bootAndRead(h, 'loader.nds');
  assert.deepEqual(loaded, [expected(model, 0, images.base), expected(model, 1, images.base)]);
});

for (const [name, plainOf, packedOf] of [
  ['grow-plain-shrink-packed', 'big', 'small'],
  ['shrink-plain-grow-packed', 'small', 'big'],
] as const) {
  test(`resized overlays boot: ${name} (built, verified, table checked, values read back from RAM)`, async () => {
    const h = await frame.server('full');
    const { images } = frame.rom;
    const plain = images[plainOf];
    const packed = images[packedOf];
    assert.notEqual(plain.length, images.base.length);
    assert.notEqual(packed.length, images.base.length);
    const before = sha(await sourceBytes());
    const manifest = await resizeManifest(name, plain, packed);
    const { built, bytes } = await buildThroughTools(h, manifest);
    const model = checkBuiltTable(bytes, [plain, packed]);
    const { results: loaded } = await bootAndRead(h, built.rom);
    assert.deepEqual(loaded, [expected(model, 0, plain), expected(model, 1, packed)]);
    assert.equal(loaded[1]!.flags & 1, 1, 'the program decoded a compressed overlay');
    assert.equal(sha(await sourceBytes()), before, 'the source ROM is unchanged');
  });
}

test('control: the same build with the overlay table sizes put back boots wrong (the checks can fail)', async () => {
  const h = await frame.server('full');
  const { images, overlays } = frame.rom;
  const manifest = await resizeManifest('control', images.big, images.small);
  const built = await h.ok<{ rom: string }>('nds_mutation_build', { rom: 'loader.nds', manifest });
  const bytes = new Uint8Array(await readFile(join(frame.workspace, built.rom)));
  const model = parseNdsRom(bufferSource(bytes));
  // Restore the source's RAM and BSS sizes in both table entries, nothing else.
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const ov of model.overlays.arm9) {
    const at = model.header.arm9OverlayTable.start + ov.tableIndex * 32;
    view.setUint32(at + 8, overlays[ov.id]!.ramSize, true);
    view.setUint32(at + 12, overlays[ov.id]!.bssSize, true);
  }
  await writeFile(join(frame.workspace, 'stale.nds'), bytes);
  const [plain, packed] = (await bootAndRead(h, 'stale.nds')).results;
  // The grown plain overlay runs, but the BSS the stale table declares wipes its tail.
  assert.equal(plain!.value, marks(images.big).value);
  assert.equal(plain!.tail, 0);
  // The shrunk compressed overlay decodes and runs, but the word past it keeps the stale fill.
  assert.equal(packed!.value, marks(images.small).value);
  assert.equal(packed!.pastImage, 0xeeeeeeee);
});
