// Real boot of the overlay-replacement edge cases, with the kit's overlay loader
// (test/kit/arm/src/arm9-overlay-loader.s; rebuild-overlay-boot.test.ts boots the ordinary resizes).
// The source ROM's overlays 0 (plain) and 1 (BLZ-compressed) are the 0x200-byte `base` image with
// 0x600 bytes of BSS, so each owns a 0x800-byte runtime range. Here:
//   - an image of exactly 0x800 bytes fills that range: the table must declare BSS 0, and the range's
//     last word in emulated RAM must be the image's own;
//   - an image BLZ cannot shrink replaces the compressed overlay: the build stores it plain and clears
//     the compressed flag (a "not coded" blob is never stored), so the loader must copy it undecoded;
//   - images one step past the size rules are refused with typed errors naming the operation.
// Each build goes through nds_mutation_validate/build/verify and is started in the real DeSmuME
// through the server's own debugger tools; the loader's result blocks and both overlays' whole
// runtime ranges are read back from RAM.
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { blzDecode, blzEncode, blzParseFooter } from '../../src/formats/blz/index.js';
import { bufferSource, parseNdsRom } from '../../src/formats/nds/index.js';
import { loaderEdgeOverlayImages } from '../kit/desmume/index.js';
import {
  expectedLoaderResult,
  type LoaderResult,
  type NdsModel as Model,
  imageMarks as marks,
  overlayLoaderSuite,
  sha256Hex as sha,
  wordAt as word,
} from '../kit/desmume/overlay-loader-boot.js';
import type { Harness } from '../kit/mcp-harness.js';

const suite = overlayLoaderSuite('re-mcp-overlay-edges-');
const { frame, sourceBytes, replaceManifest, buildThroughTools } = suite;
const STALE = 0xeeeeeeee;

/** A result block, with the overlay's whole source runtime range as left in RAM and its last word. */
type Loaded = LoaderResult & { range: Uint8Array; lastWord: number };

/** The source table's runtime range of overlay `id`. */
function sourceRange(id: number): { start: number; size: number } {
  const o = frame.rom.overlays[id]!;
  return { start: o.ramAddress, size: o.ramSize + o.bssSize };
}

/** Boots `rom` to loader_done; both overlays' result blocks with their runtime ranges. */
async function bootAndRead(h: Harness, rom: string): Promise<Loaded[]> {
  const { results, ranges } = await suite.bootAndRead(h, rom, [sourceRange(0), sourceRange(1)]);
  return results.map((r, id) => ({ ...r, range: ranges[id]!.bytes, lastWord: ranges[id]!.lastWord }));
}

/** What the loader must have left for `image` loaded through table entry `id` of the built `model`. */
function expected(model: Model, id: number, image: Uint8Array): Loaded {
  const { size } = sourceRange(id);
  // The image, then the BSS the loader zeroed; nothing of the range keeps the stale fill. (Past the
  // range, outside what the loader touches, is checked separately.)
  const range = new Uint8Array(size);
  range.set(image);
  return { ...expectedLoaderResult(model, id, image), range, lastWord: word(range, size - 4) };
}

/** The raw word at +28 of overlay `id`'s table entry: compressed size (24 bits) and flags (top byte). */
function rawSizeAndFlags(bytes: Uint8Array, model: Model, id: number): number {
  const ov = model.overlays.arm9.find((o) => o.id === id)!;
  return word(bytes, model.header.arm9OverlayTable.start + ov.tableIndex * 32 + 28);
}

test('an image filling the whole runtime range (BSS 0) boots, plain and recompressed; its last word is in RAM', async () => {
  const h = await frame.server('full');
  const { full } = loaderEdgeOverlayImages();
  const { overlays, images } = frame.rom;
  for (const id of [0, 1]) assert.equal(full.length, overlays[id]!.ramSize + overlays[id]!.bssSize);
  assert.notEqual(marks(full).tail, marks(images.base).tail);
  const before = sha(await sourceBytes());
  const manifest = await replaceManifest(
    'full',
    new Map([
      [0, full],
      [1, full],
    ]),
  );
  const { built, bytes, model, plan } = await buildThroughTools(h, manifest);
  for (const id of [0, 1]) {
    const ov = model.overlays.arm9.find((o) => o.id === id)!;
    const original = overlays[id]!;
    assert.equal(ov.ramAddress, original.ramAddress, `overlay ${id} keeps its RAM address`);
    assert.deepEqual([ov.ramSize, ov.bssSize], [0x800, 0], `overlay ${id}: the image takes the whole range`);
    assert.equal(ov.compressed, original.compressed, `overlay ${id} compression flag`);
    const stored = bytes.subarray(ov.file.start, ov.file.end);
    if (ov.compressed) {
      assert.equal(ov.compressedSize, stored.length);
      assert.ok(stored.length < full.length, 'the recompressed image is stored smaller');
      assert.equal(sha(blzDecode(stored, { inPlace: true })), sha(full), 'it decodes to the image');
    } else {
      assert.equal(sha(stored), sha(full), 'stored as the image');
    }
  }
  assert.deepEqual(
    plan.overlayRecords.map((o: { id: number; ramSize: number; bssSize: number }) => [
      o.id,
      o.ramSize,
      o.bssSize,
    ]),
    [
      [0, 0x800, 0],
      [1, 0x800, 0],
    ],
  );

  const loaded = await bootAndRead(h, built.rom);
  for (const id of [0, 1]) {
    const got = loaded[id]!;
    const want = expected(model, id, full);
    assert.equal(got.lastWord, marks(full).tail, `overlay ${id}: the range's last word is the new image's`);
    assert.equal(sha(got.range), sha(full), `overlay ${id}: the whole range holds the image`);
    // The word right past the image lies outside the range: the loader neither filled nor zeroed it.
    assert.notEqual(got.pastImage, STALE, `overlay ${id}: nothing past the range was filled`);
    assert.deepEqual({ ...got, pastImage: 0 }, want, `overlay ${id} result block`);
  }
  assert.equal(loaded[1]!.flags & 1, 1, 'the program decoded the compressed overlay');
  assert.equal(sha(await sourceBytes()), before, 'the source ROM is unchanged');
});

test('a compressed overlay replaced by an image BLZ cannot shrink is stored plain, flag cleared, and boots', async () => {
  const h = await frame.server('full');
  const { noise } = loaderEdgeOverlayImages();
  const { overlays, images } = frame.rom;
  assert.equal(overlays[1]!.compressed, true);
  // The premise: BLZ coding of this image does not pay, so the encoder gives a "not coded" blob.
  assert.equal(blzParseFooter(blzEncode(noise)).coded, false, 'the noise image is incompressible');
  const source = await sourceBytes();
  const sourceModel = parseNdsRom(bufferSource(source));
  const sourceFlags = sourceModel.overlays.arm9.find((o) => o.id === 1)!.flags;
  assert.equal(sourceFlags & 1, 1);
  const manifest = await replaceManifest('noise', new Map([[1, noise]]));
  const { built, bytes, model, plan } = await buildThroughTools(h, manifest);

  const ov = model.overlays.arm9.find((o) => o.id === 1)!;
  assert.equal(ov.ramAddress, overlays[1]!.ramAddress);
  assert.deepEqual([ov.ramSize, ov.bssSize], [0x400, 0x400], 'the BSS absorbs the rest of the range');
  assert.equal(ov.compressed, false, 'the compressed flag is cleared');
  assert.equal(ov.flags, sourceFlags & ~1, 'only the compressed flag changes');
  assert.equal(ov.compressedSize, 0);
  assert.equal(rawSizeAndFlags(bytes, model, 1), ((sourceFlags & ~1) << 24) >>> 0, 'raw table word');
  const stored = bytes.subarray(ov.file.start, ov.file.end);
  assert.equal(sha(stored), sha(noise), 'stored as the image itself: no footer, no padding');
  assert.deepEqual(plan.overlayRecords, [
    {
      processor: 'arm9',
      id: 1,
      tableIndex: ov.tableIndex,
      compressedSize: 0,
      flags: sourceFlags & ~1,
      ramSize: 0x400,
      bssSize: 0x400,
    },
  ]);
  // Overlay 0 is untouched: same table entry, same stored bytes.
  const before0 = sourceModel.overlays.arm9.find((o) => o.id === 0)!;
  const after0 = model.overlays.arm9.find((o) => o.id === 0)!;
  assert.deepEqual(
    [after0.ramSize, after0.bssSize, after0.flags],
    [before0.ramSize, before0.bssSize, before0.flags],
  );
  assert.equal(
    sha(bytes.subarray(after0.file.start, after0.file.end)),
    sha(source.subarray(before0.file.start, before0.file.end)),
  );

  const loaded = await bootAndRead(h, built.rom);
  assert.deepEqual(loaded[0], expected(model, 0, images.base), 'overlay 0 boots as before');
  assert.deepEqual(loaded[1], expected(model, 1, noise), 'overlay 1: the noise image, then zeroed BSS');
  assert.equal(loaded[1]!.flags & 1, 0, 'the program was told not to decode');
  assert.equal(loaded[1]!.storedLength, noise.length);
  assert.equal(sha(await sourceBytes()), sha(source), 'the source ROM is unchanged');
});

test('images one step past the size rules are refused with typed errors naming the operation', async () => {
  const h = await frame.server('full');
  const { full } = loaderEdgeOverlayImages();
  const runtime = sourceRange(0).size;
  assert.equal(runtime, sourceRange(1).size);
  const published = async () =>
    (await readdir(join(frame.workspace, 'output'), { recursive: true }).catch(() => [])).sort();
  const publishedBefore = await published();
  // One rule, one message: a size other than the RAM size must be a non-empty multiple of 4 of at
  // most RAM size + BSS. Each case sits one step outside it; its neighbour inside is accepted below.
  const refused: Array<[string, Uint8Array]> = [
    ['past-by-one', new Uint8Array(runtime + 1)], // one byte more than RAM + BSS
    ['past-by-word', new Uint8Array(runtime + 4)], // a multiple of 4, past the range
    ['unaligned', full.subarray(0, runtime - 2)], // inside the range, not a multiple of 4
    ['empty', new Uint8Array(0)],
  ];
  for (const id of [0, 1]) {
    for (const [name, image] of refused) {
      const op = `${name}-${id}-${id}`;
      const manifest = await replaceManifest(`${name}-${id}`, new Map([[id, image]]));
      for (const tool of ['nds_mutation_validate', 'nds_mutation_build']) {
        const e = await h.fail(tool, { rom: 'loader.nds', manifest });
        assert.equal(e.code, 'invalid-argument', `${tool} ${op}: ${e.message}`);
        assert.equal(e.details?.operation, op, `${tool} names the operation in its details`);
        assert.match(
          e.message,
          new RegExp(`^operation "${op}": the decoded image is ${image.length} bytes;`),
        );
        assert.match(
          e.message,
          new RegExp(`non-empty multiple of 4 of at most ${runtime} \\(its RAM size 512 plus BSS 1536`),
        );
      }
    }
    // The neighbours inside the rule are accepted: exactly the range, one word less, one word.
    for (const [name, length] of [
      ['exact', runtime],
      ['word-less', runtime - 4],
      ['one-word', 4],
    ] as const) {
      await h.ok('nds_mutation_validate', {
        rom: 'loader.nds',
        manifest: await replaceManifest(`${name}-${id}`, new Map([[id, full.subarray(0, length)]])),
      });
    }
  }
  assert.deepEqual(await published(), publishedBefore, 'no refused build left output');
});
