// The committed test ROMs are exactly what their sources build to, and their headers are valid.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DS_INPUT_ARM9, GBA_ROM, NES_ROM } from '../kit/retroarch/roms.js';

test('build-roms.mjs reproduces the committed ROMs byte for byte', (t) => {
  const out = mkdtempSync(join(tmpdir(), 're-mcp-roms-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  execFileSync(process.execPath, [join(import.meta.dirname, '../kit/retroarch/build-roms.mjs'), out]);
  assert.ok(readFileSync(join(out, 'gba-test.gba')).equals(readFileSync(GBA_ROM)), 'gba-test.gba is stale');
  assert.ok(readFileSync(join(out, 'nes-test.nes')).equals(readFileSync(NES_ROM)), 'nes-test.nes is stale');
  assert.ok(
    readFileSync(join(out, 'ds-input.arm9.bin')).equals(readFileSync(DS_INPUT_ARM9)),
    'ds-input.arm9.bin is stale',
  );
});

test('GBA ROM: 512 KiB (not multiboot), branch at 0, valid header complement', () => {
  const rom = readFileSync(GBA_ROM);
  assert.equal(rom.length, 512 * 1024);
  assert.equal(rom[3], 0xea); // ARM "b" instruction
  assert.equal(rom[0xb2], 0x96);
  let sum = 0;
  for (let i = 0xa0; i <= 0xbc; i++) sum = (sum - rom[i]!) & 0xff;
  assert.equal(rom[0xbd], (sum - 0x19) & 0xff);
});

test('NES ROM: iNES mapper 0, one 16 KiB PRG bank, vectors inside the bank', () => {
  const rom = readFileSync(NES_ROM);
  assert.equal(rom.subarray(0, 4).toString('latin1'), 'NES\x1a');
  assert.deepEqual([rom[4], rom[5], rom[6]! >> 4, rom[7]! >> 4], [1, 0, 0, 0]);
  assert.equal(rom.length, 16 + 16 * 1024);
  for (const at of [0x3ffa, 0x3ffc, 0x3ffe]) {
    const vector = rom.readUInt16LE(16 + at);
    assert.ok(vector >= 0xc000 && vector < 0xc000 + 0x200, `vector ${vector.toString(16)}`);
  }
});
