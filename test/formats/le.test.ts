// The little-endian reads and writes every byte format, the ARM decoder and the debugger share: each
// against Node's own Buffer reads of the same bytes (an independent reference), at unaligned offsets,
// and a write read back.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { i32, int, putU16, putU32, u16, u32, uint } from '../../src/formats/le.js';
import { rng } from '../kit/rng.js';

const next = rng(46);
const data = Uint8Array.from({ length: 64 }, () => Math.floor(next() * 256));
const buf = Buffer.from(data);

test('le: u16, u32 and i32 agree with Buffer at every offset', () => {
  for (let at = 0; at + 4 <= data.length; at++) {
    assert.equal(u16(data, at), buf.readUInt16LE(at));
    assert.equal(u32(data, at), buf.readUInt32LE(at));
    assert.equal(i32(data, at), buf.readInt32LE(at));
  }
  assert.equal(u32(Uint8Array.of(0xff, 0xff, 0xff, 0xff), 0), 0xffff_ffff);
  assert.equal(i32(Uint8Array.of(0xff, 0xff, 0xff, 0xff), 0), -1);
});

test('le: uint and int of 1 to 6 bytes agree with Buffer', () => {
  for (let width = 1; width <= 6; width++)
    for (let at = 0; at + width <= data.length; at++) {
      assert.equal(uint(data, at, width), buf.readUIntLE(at, width), `uint width ${width} at ${at}`);
      assert.equal(int(data, at, width), buf.readIntLE(at, width), `int width ${width} at ${at}`);
    }
  assert.equal(int(Uint8Array.of(0x80), 0, 1), -128);
  assert.equal(int(Uint8Array.of(0x7f), 0, 1), 127);
});

test('le: a written word reads back, and only its own bytes change', () => {
  const out = new Uint8Array(8).fill(0xaa);
  putU32(out, 2, 0x1234_5678);
  assert.deepEqual([...out], [0xaa, 0xaa, 0x78, 0x56, 0x34, 0x12, 0xaa, 0xaa]);
  putU16(out, 1, 0xbeef);
  assert.equal(u16(out, 1), 0xbeef);
  putU32(out, 4, -2);
  assert.equal(u32(out, 4), 0xffff_fffe);
});
