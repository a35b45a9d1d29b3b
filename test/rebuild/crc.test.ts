// A source ROM's CRC-32 remembered by its identity (src/rebuild/crc.ts): known only after a whole pass
// proven to have read that identity, bounded, and handed to a later pass so it skips the CRC.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { crc32 } from '../../src/formats/crc32.js';
import { fastCrc32, knownSourceCrc32, rememberSourceCrc32, withSourceCrc32 } from '../../src/rebuild/crc.js';
import type { RomHandle } from '../../src/roms/rom-handle.js';

const identity = (n: number) => ({ sha256: n.toString(16).padStart(64, '0'), size: 1000 + n });

/** A handle whose verifyUnchanged passes or fails as told (all a CRC pass asks of it). */
function fakeRom(id: { sha256: string; size: number }, unchanged: () => boolean): RomHandle {
  return {
    identity: id,
    verifyUnchanged: async () => {
      if (!unchanged()) throw new Error('rom-changed');
    },
  } as unknown as RomHandle;
}

test('fastCrc32 is the CRC-32 of formats/crc32.ts, also continued across pieces', () => {
  const bytes = new Uint8Array(10_000).map((_, i) => (i * 31 + 7) & 0xff);
  assert.equal(fastCrc32(bytes), crc32(bytes));
  assert.equal(fastCrc32(bytes.subarray(4321), fastCrc32(bytes.subarray(0, 4321))), crc32(bytes));
});

test('a remembered CRC-32 is known by identity (SHA-256 and size), the oldest forgotten past 64', () => {
  assert.equal(knownSourceCrc32(identity(1)), undefined);
  rememberSourceCrc32(identity(1), 0xdeadbeef);
  assert.equal(knownSourceCrc32(identity(1)), 0xdeadbeef);
  assert.equal(knownSourceCrc32({ ...identity(1), size: 7 }), undefined, 'another size is another ROM');
  for (let n = 2; n <= 65; n++) rememberSourceCrc32(identity(n), n);
  assert.equal(knownSourceCrc32(identity(1)), undefined, 'the oldest of 65 is gone');
  assert.equal(knownSourceCrc32(identity(2)), 2);
  assert.equal(knownSourceCrc32(identity(65)), 65);
});

test('withSourceCrc32: a pass reads the CRC and it is remembered only once the ROM is proven unchanged', async () => {
  const id = identity(500);
  let unchanged = false;
  const rom = fakeRom(id, () => unchanged);
  const passes: Array<{ source: number } | undefined> = [];
  const pass = async (read: { source: number } | undefined) => {
    passes.push(read);
    if (read) read.source = 0x12345678;
    return 'verified';
  };
  await assert.rejects(withSourceCrc32(rom, undefined, pass), /rom-changed/);
  assert.equal(knownSourceCrc32(id), undefined, 'a pass over a ROM that changed teaches nothing');
  unchanged = true;
  assert.deepEqual(await withSourceCrc32(rom, undefined, pass), ['verified', 0x12345678]);
  assert.equal(knownSourceCrc32(id), 0x12345678);
  // Known now: the next pass is asked for no CRC and the remembered one is given.
  assert.deepEqual(await withSourceCrc32(rom, undefined, pass), ['verified', 0x12345678]);
  assert.deepEqual(passes, [{ source: 0x12345678 }, { source: 0x12345678 }, undefined]);
});
