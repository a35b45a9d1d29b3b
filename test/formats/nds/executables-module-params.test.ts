// The ARM9 module-params search finds candidates with a native indexOf on the magic's first byte
// (src/formats/nds/executables.ts); it must accept exactly the offsets a plain scan of every 4-aligned
// word accepts. Checked on generated ARM9 images with the magic planted at aligned and unaligned
// places, at the edges of the searched window, beyond it, and as a partial (first word only) match.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MODULE_PARAMS_SEARCH_BYTES, searchModuleParams } from '../../../src/formats/nds/executables.js';
import {
  MODULE_PARAMS_SIZE,
  NITROCODE,
  NITROCODE_SWAPPED,
} from '../../../src/formats/nds/raw/module-params.js';
import { rng } from '../../kit/rng.js';

const putWord = (bytes: Uint8Array, at: number, word: number) => {
  if (at + 4 <= bytes.length) new DataView(bytes.buffer).setUint32(at, word, true);
};

/** The word-by-word reference: every 4-aligned end of a 36-byte block inside the searched prefix. */
function reference(image: Uint8Array, romOffset: number, size: number): number[] {
  const bytes = image.subarray(romOffset, romOffset + Math.min(size, MODULE_PARAMS_SEARCH_BYTES));
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const hits: number[] = [];
  for (let at = MODULE_PARAMS_SIZE - 8; at + 8 <= bytes.length; at += 4) {
    if (view.getUint32(at, true) === NITROCODE && view.getUint32(at + 4, true) === NITROCODE_SWAPPED)
      hits.push(at - (MODULE_PARAMS_SIZE - 8));
  }
  return hits;
}

test('the module-params search accepts exactly the offsets of a word-by-word scan', () => {
  const next = rng(0x4d50);
  let found = 0;
  for (let run = 0; run < 400; run++) {
    const romOffset = 0x200 + 4 * Math.floor(next() * 16);
    const size = 1 + Math.floor(next() * (MODULE_PARAMS_SEARCH_BYTES + 0x400));
    const image = new Uint8Array(romOffset + size + 16);
    // Code-like noise, dense in the magic's first byte so candidates abound.
    for (let i = 0; i < image.length; i++)
      image[i] = next() < 0.05 ? NITROCODE & 0xff : Math.floor(next() * 256);
    const plants = Math.floor(next() * 4);
    for (let p = 0; p < plants; p++) {
      const where = [
        () => Math.floor(next() * size),
        () => MODULE_PARAMS_SIZE - 8 + Math.floor(next() * 3) - 1,
        () => Math.min(size, MODULE_PARAMS_SEARCH_BYTES) - 8 - Math.floor(next() * 6),
      ][Math.floor(next() * 3)]!();
      const at = romOffset + Math.max(0, where);
      putWord(image, at, NITROCODE);
      if (next() < 0.85) putWord(image, at + 4, NITROCODE_SWAPPED);
    }
    const source = {
      size: image.length,
      read: (offset: number, length: number) => image.slice(offset, offset + length),
    };
    const entry = { romOffset, entryAddress: 0x02000000, ramAddress: 0x02000000, size };
    const expected = reference(image, romOffset, size);
    found += expected.length;
    assert.deepEqual(searchModuleParams(source, entry), expected, `run ${run}`);
  }
  assert.ok(found > 100, `the generated images hold enough matches (${found})`);
});
