// The PNG encoder: what it writes decodes (with the test kit's independent reader) to exactly the pixels
// given, for odd and tiny sizes and for pictures that make each row filter win; the file structure is
// right (signature, IHDR fields, chunk order, every CRC checked by an independent bit-by-bit CRC and by
// zlib's); bad arguments are refused.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as zlib from 'node:zlib';
import { crc32 } from '../../src/formats/crc32.js';
import { encodePng, encodePngCooperative } from '../../src/graph/png.js';
import { readPng } from '../kit/png.js';
import { rng } from '../kit/rng.js';

/** CRC-32 one bit at a time, straight from the definition (reflected polynomial 0xEDB88320). */
function slowCrc(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

interface Chunk {
  type: string;
  data: Uint8Array;
  crc: number;
  /** Type and data: the bytes the CRC covers. */
  covered: Uint8Array;
}

function chunks(png: Uint8Array): Chunk[] {
  const dv = new DataView(png.buffer, png.byteOffset, png.byteLength);
  const out: Chunk[] = [];
  let at = 8;
  while (at < png.length) {
    assert.ok(at + 12 <= png.length, 'chunk header and CRC fit in the file');
    const length = dv.getUint32(at);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    out.push({
      type,
      data: png.subarray(at + 8, at + 8 + length),
      crc: dv.getUint32(at + 8 + length),
      covered: png.subarray(at + 4, at + 8 + length),
    });
    at += 12 + length;
  }
  assert.equal(at, png.length, 'the last chunk ends the file');
  return out;
}

function randomPixels(width: number, height: number, seed: number): Uint8Array {
  const next = rng(seed);
  return Uint8Array.from({ length: width * height * 4 }, () => Math.floor(next() * 256));
}

function filterTypes(png: Uint8Array): number[] {
  const parts = chunks(png);
  const ihdr = parts[0]!.data;
  const dv = new DataView(ihdr.buffer, ihdr.byteOffset);
  const [width, height] = [dv.getUint32(0), dv.getUint32(4)];
  const raw = zlib.inflateSync(Buffer.concat(parts.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  assert.equal(raw.length, height * (width * 4 + 1));
  return Array.from({ length: height }, (_, y) => raw[y * (width * 4 + 1)]!);
}

test('crc32 matches the standard check value and the bit-by-bit definition', () => {
  assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926);
  assert.equal(crc32(new Uint8Array(0)), 0);
  const data = randomPixels(50, 7, 3);
  assert.equal(crc32(data), slowCrc(data));
  // Continuing from a previous CRC is the same as one pass.
  assert.equal(crc32(data.subarray(100), crc32(data.subarray(0, 100))), crc32(data));
});

test('random pixels round-trip exactly at many sizes, odd widths and 1x1 included', () => {
  const sizes: [number, number][] = [
    [1, 1],
    [2, 1],
    [1, 2],
    [3, 5],
    [7, 7],
    [17, 9],
    [64, 64],
    [257, 3],
    [5, 301],
  ];
  let seed = 1;
  for (const [w, h] of sizes) {
    const rgba = randomPixels(w, h, seed++);
    const png = encodePng(w, h, rgba);
    const back = readPng(png);
    assert.equal(back.width, w);
    assert.equal(back.height, h);
    assert.deepEqual(back.pixels, rgba, `${w}x${h}`);
  }
});

test('structure: signature, IHDR (8-bit RGBA, not interlaced), IDAT, IEND; every CRC is right', () => {
  // Random pixels: far more than 256 colours, so the RGBA form.
  const png = encodePng(23, 16, randomPixels(23, 16, 9));
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const parts = chunks(png);
  assert.equal(parts[0]!.type, 'IHDR');
  const ihdr = parts[0]!.data;
  assert.equal(ihdr.length, 13);
  const dv = new DataView(ihdr.buffer, ihdr.byteOffset);
  assert.equal(dv.getUint32(0), 23);
  assert.equal(dv.getUint32(4), 16);
  assert.deepEqual([...ihdr.subarray(8)], [8, 6, 0, 0, 0]);
  assert.ok(parts.slice(1, -1).length >= 1);
  for (const c of parts.slice(1, -1)) assert.equal(c.type, 'IDAT');
  assert.equal(parts.at(-1)!.type, 'IEND');
  assert.equal(parts.at(-1)!.data.length, 0);
  const zlibCrc = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;
  for (const c of parts) {
    assert.equal(c.crc, slowCrc(c.covered), `${c.type} CRC`);
    if (zlibCrc) assert.equal(c.crc, zlibCrc(c.covered), `${c.type} CRC (zlib)`);
  }
});

test('each row filter gets chosen where it wins, and all of them decode', () => {
  // Wide enough for more than 256 colours (the ramps), so the RGBA form with its row filters.
  const w = 80;
  const h = 12;
  const rgba = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      if (y < 4)
        rgba.set([0, 0, 0, 0], i); // all zero: None costs nothing
      else if (y < 8)
        rgba.set([x * 6 + y * 37, x * 6, x * 5 + y * 30, 255], i); // ramps shifted per row: Sub
      else rgba.set([(x * 97) & 255, (x * 61) & 255, (x * 13) & 255, 255], i); // noise repeated: Up
      if (y >= 8) rgba.set(rgba.subarray((8 * w + x) * 4, (8 * w + x) * 4 + 4), i);
    }
  }
  const colours = new Set<number>();
  for (let i = 0; i < rgba.length; i += 4) colours.add(new DataView(rgba.buffer).getUint32(i));
  assert.ok(colours.size > 256, `${colours.size} colours`);
  const png = encodePng(w, h, rgba);
  const filters = filterTypes(png);
  assert.deepEqual(filters.slice(0, 4), [0, 0, 0, 0]);
  assert.ok(
    filters.slice(4, 8).every((f) => f === 1),
    `ramp rows use Sub: ${filters}`,
  );
  assert.ok(
    filters.slice(9).every((f) => f === 2),
    `repeated rows use Up: ${filters}`,
  );
  assert.deepEqual(readPng(png).pixels, rgba);
});

test('a large incompressible picture is split over several IDAT chunks and still decodes', () => {
  const [w, h] = [700, 500];
  const rgba = randomPixels(w, h, 77);
  const png = encodePng(w, h, rgba);
  const idats = chunks(png).filter((c) => c.type === 'IDAT');
  assert.ok(idats.length >= 2, `${idats.length} IDAT chunks`);
  for (const c of idats) assert.equal(crc32(c.covered), c.crc);
  assert.deepEqual(readPng(png).pixels, rgba);
});

test('bad arguments are refused with an Error', () => {
  const ok = new Uint8Array(4 * 6);
  assert.doesNotThrow(() => encodePng(2, 3, ok));
  const bad: [number, number, unknown][] = [
    [0, 3, ok],
    [2, 0, ok],
    [-2, -3, ok],
    [1.5, 4, ok],
    [Number.NaN, 3, ok],
    [Number.POSITIVE_INFINITY, 3, ok],
    [2, 3, new Uint8Array(4 * 6 - 1)],
    [2, 3, new Uint8Array(4 * 6 + 4)],
    [2, 3, [0, 0, 0, 0]],
    [2, 3, undefined],
  ];
  for (const [w, h, data] of bad)
    assert.throws(() => encodePng(w, h, data as Uint8Array), Error, `${w}x${h} ${String(data)}`);
});

test('a drawing of few colours is written with a palette (tRNS for the transparent ones) and decodes exactly', () => {
  const w = 37;
  const h = 9;
  const inks = [
    [255, 255, 255, 255],
    [0, 0, 0, 255],
    [207, 233, 212, 255],
    [200, 40, 40, 0],
    [10, 20, 30, 128],
  ];
  const rgba = new Uint8Array(w * h * 4);
  const next = rng(5);
  for (let i = 0; i < w * h; i++) rgba.set(inks[Math.floor(next() * inks.length)]!, i * 4);
  const png = encodePng(w, h, rgba);
  const parts = chunks(png);
  assert.deepEqual([...parts[0]!.data.subarray(8)], [8, 3, 0, 0, 0]);
  const plte = parts.find((c) => c.type === 'PLTE')!;
  assert.equal(plte.data.length, inks.length * 3);
  const trns = parts.find((c) => c.type === 'tRNS')!;
  assert.ok(trns.data.length <= inks.length && [...trns.data].some((a) => a === 0));
  for (const c of parts) assert.equal(c.crc, slowCrc(c.covered), `${c.type} CRC`);
  assert.deepEqual(readPng(png).pixels, rgba);
  // Smaller than the RGBA form of the same picture would be (one byte a pixel before deflate).
  assert.ok(png.length < w * h * 4);
  // All opaque: no tRNS at all.
  const opaque = rgba.slice();
  for (let i = 3; i < opaque.length; i += 4) opaque[i] = 255;
  assert.ok(!chunks(encodePng(w, h, opaque)).some((c) => c.type === 'tRNS'));
});

test('exactly 256 colours keep the palette; 257 switch to RGBA', () => {
  const picture = (n: number) => {
    const rgba = new Uint8Array(n * 4);
    for (let i = 0; i < n; i++) rgba.set([i & 0xff, i >> 8, 7, 255], i * 4);
    return rgba;
  };
  const at256 = encodePng(16, 16, picture(256));
  assert.equal(chunks(at256)[0]!.data[9], 3);
  assert.deepEqual(readPng(at256).pixels, picture(256));
  const wide = new Uint8Array(257 * 2 * 4);
  wide.set(picture(257));
  wide.set(picture(257), 257 * 4);
  const at257 = encodePng(257, 2, wide);
  assert.equal(chunks(at257)[0]!.data[9], 6);
  assert.deepEqual(readPng(at257).pixels, wide);
});

test('the cooperative encoder (the server: pixel passes in slices, deflate off the event loop) writes the same bytes', async () => {
  const few = new Uint8Array(300 * 200 * 4);
  for (let i = 0; i < few.length; i += 4) few.set([(i >> 9) & 3 ? 255 : 0, 40, 90, i % 7 ? 255 : 128], i);
  for (const [w, h, rgba] of [
    [300, 200, few],
    [257, 3, randomPixels(257, 3, 5)],
    [64, 64, randomPixels(64, 64, 6)],
  ] as const) {
    const sync = encodePng(w, h, rgba);
    const cooperative = await encodePngCooperative(w, h, rgba);
    assert.deepEqual(Buffer.from(cooperative), Buffer.from(sync), `${w}x${h}`);
    assert.deepEqual(readPng(cooperative).pixels, rgba);
  }
  await assert.rejects(encodePngCooperative(2, 2, new Uint8Array(3)), Error);
  const stop = new AbortController();
  stop.abort();
  await assert.rejects(encodePngCooperative(2, 2, new Uint8Array(16), stop.signal), {
    code: 'cancelled',
  });
});
