// Linear windows mark the literal-pool words that an earlier load in the same window provably reads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeLinearItems, isLiteralPoolData, type LinearItem } from '../../src/arm/literal-pools.js';

const arm = (...words: number[]) =>
  new Uint8Array(words.flatMap((w) => [w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24]));
const thumb = (...halves: number[]) => new Uint8Array(halves.flatMap((h) => [h & 0xff, h >>> 8]));
const shape = (items: LinearItem[]) =>
  items.map((i) =>
    isLiteralPoolData(i)
      ? `data ${i.address.toString(16)}=${i.value.toString(16)} by ${i.loadedBy.map((a) => a.toString(16))}`
      : `${i.address.toString(16)} ${i.mnemonic}`,
  );

test('ARM: the slot of ldr r0, [pc, #4] is data even when it looks like bx r0', async () => {
  // ldr r0,[pc,#4] / bx lr / nop / (slot: e12fff10 = bx r0) / nop
  const r = await decodeLinearItems(
    arm(0xe59f0004, 0xe12fff1e, 0xe1a00000, 0xe12fff10, 0xe1a00000),
    0x100,
    'arm',
    'arm9',
    32,
  );
  assert.deepEqual(shape(r.items), ['100 ldr', '104 bx', '108 mov', 'data 10c=e12fff10 by 100', '110 mov']);
  assert.equal(r.stop, null);
  const data = r.items[3];
  assert.ok(isLiteralPoolData(data) && data.bytes === '10ff2fe1' && data.size === 4);
});

test('Thumb: word-aligned PC; slots behind the load, outside the window or off the grid stay decoded', async () => {
  // 0x100 ldr r0,[pc,#4] -> Align(0x104,4)+4 = 0x108; bx lr; nop; nop; slot 0x108 (bx r0 x2); movs r0,#1
  const r = await decodeLinearItems(
    thumb(0x4801, 0x4770, 0x46c0, 0x46c0, 0x4700, 0x4700, 0x2001),
    0x100,
    'thumb',
    'arm9',
    32,
  );
  assert.deepEqual(shape(r.items), [
    '100 ldr',
    '102 bx',
    '104 mov',
    '106 mov',
    'data 108=47004700 by 100',
    '10c movs',
  ]);
  // ldr r0,[pc,#0] at 0x102 names 0x104, past the 6-byte window's end: nothing marked
  const outside = await decodeLinearItems(thumb(0x46c0, 0x4800, 0x4700), 0x100, 'thumb', 'arm9', 32);
  assert.ok(outside.items.every((i) => !isLiteralPoolData(i)));
  // ARM ldr r0, [pc, #-12] reads 0x100 - behind it: no marking
  const behind = await decodeLinearItems(
    arm(0xe1a00000, 0xe1a00000, 0xe51f000c, 0xe1a00000),
    0x100,
    'arm',
    'arm9',
    32,
  );
  assert.ok(behind.items.every((i) => !isLiteralPoolData(i)));
  // ARM ldr r0, [pc, #2]: the slot is off the 4-byte grid: never marked
  const offGrid = await decodeLinearItems(
    arm(0xe59f0002, 0xe1a00000, 0xe1a00000, 0xe1a00000),
    0x100,
    'arm',
    'arm9',
    32,
  );
  assert.ok(offGrid.items.every((i) => !isLiteralPoolData(i)));
});

test('the item budget counts data words; a Thumb pair over a proven slot stops there', async () => {
  const r = await decodeLinearItems(
    arm(0xe59f0000, 0xe1a00000, 0x12345678, 0xe1a00000),
    0x100,
    'arm',
    'arm9',
    3,
  );
  assert.deepEqual(shape(r.items), ['100 ldr', '104 mov', 'data 108=12345678 by 100']);
  // ldr r0,[pc,#0] at 0x100 names 0x104; bl at 0x102..0x106 straddles it: disagreement reported
  const pair = await decodeLinearItems(thumb(0x4800, 0xf000, 0xf800, 0x46c0), 0x100, 'thumb', 'arm9', 32);
  assert.deepEqual(shape(pair.items), ['100 ldr']);
  assert.deepEqual(pair.stop, { reason: 'truncated-instruction', address: 0x102 });
});
