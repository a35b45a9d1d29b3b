// The decoder derives the answer for an encoding met again at another address from the first one
// (decoder.ts, instruction templates). That derivation must be exact: every field equal to what
// Capstone and classify() say at the new address. Checked exhaustively for 16-bit Thumb, on every
// BL/BLX prefix form and a large sample of ARM words and 32-bit Thumb pairs, at addresses with both
// values of bit 1 (Thumb's Align(PC, 4)) and far apart, for both processors, and on real code
// windows of the kit programs.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { decodeWindow, decodeWindowDirect } from '../../src/arm/decoder.js';
import type { ArmMode } from '../../src/arm/types.js';
import type { Processor } from '../../src/core/vocabulary.js';
import { ARM_KIT_BUILD_DIR } from '../kit/arm/index.js';
import { rng } from '../kit/rng.js';

const le32 = (w: number) => Uint8Array.of(w & 0xff, (w >>> 8) & 0xff, (w >>> 16) & 0xff, w >>> 24);
const le16 = (h: number) => Uint8Array.of(h & 0xff, h >>> 8);

/**
 * An answer as it is published (JSON): the templates' instructions carry every field, absent ones
 * undefined (one object shape), where Capstone's direct answers leave them out.
 */
const published = (r: unknown) => JSON.parse(JSON.stringify(r));

/** Decodes `bytes` at each address through the templates and straight from Capstone: equal answers. */
async function agree(bytes: Uint8Array, addresses: number[], mode: ArmMode, processor: Processor) {
  for (const at of addresses) {
    const got = published(await decodeWindow(bytes, at, mode, processor, 1));
    const want = published(await decodeWindowDirect(bytes, at, mode, processor, 1));
    assert.deepEqual(
      got,
      want,
      `${processor} ${mode} ${Buffer.from(bytes).toString('hex')} at 0x${at.toString(16)}`,
    );
  }
}

// Far apart, both values of bit 1, near the top of the address space (wrap-around of targets).
const THUMB_AT = [0x02000000, 0x02000002, 0x0237fffe, 0x01ff8004, 0x00000000, 0xfffffff0];
const ARM_AT = [0x02000000, 0x0237fffc, 0x01ff8004, 0x00000000, 0xfffffff8];

test('every 16-bit Thumb encoding decodes the same through the templates as from Capstone', async () => {
  for (const processor of ['arm9', 'arm7'] as const) {
    for (let h = 0; h < 0x10000; h++) {
      if (h >>> 11 >= 0b11101) continue; // a 32-bit prefix: below
      await agree(le16(h), THUMB_AT, 'thumb', processor);
    }
  }
});

test('32-bit Thumb pairs (BL/BLX prefixes and Thumb-2) agree at every address', async () => {
  const next = rng(0x7b1);
  for (const processor of ['arm9', 'arm7'] as const) {
    for (let i = 0; i < 6000; i++) {
      const first = 0xe800 | Math.floor(next() * 0x1800);
      // Half the suffixes are BL/BLX suffixes (11111 / 11101), half anything.
      const second =
        i % 2 === 0
          ? (next() < 0.5 ? 0xf800 : 0xe800) | Math.floor(next() * 0x800)
          : Math.floor(next() * 0x10000);
      const bytes = Uint8Array.of(first & 0xff, first >>> 8, second & 0xff, second >>> 8);
      await agree(bytes, THUMB_AT, 'thumb', processor);
    }
  }
});

test('ARM words agree at every address: a random sample and each condition of the branch forms', async () => {
  const next = rng(0xa4b);
  for (const processor of ['arm9', 'arm7'] as const) {
    for (let i = 0; i < 12000; i++) {
      await agree(le32(Math.floor(next() * 0x1_0000_0000)), ARM_AT, 'arm', processor);
    }
    for (let cond = 0; cond < 16; cond++) {
      for (const op of [0x0a000000, 0x0b000000]) {
        for (const imm of [0, 1, 0x7fffff, 0x800000, 0xffffff, 0x123456]) {
          await agree(le32(((cond << 28) | op | imm) >>> 0), ARM_AT, 'arm', processor);
        }
      }
      // PC-relative loads, ADR forms, PC-based data processing.
      for (const base of [0x059f0000, 0x051f0000, 0x028f0000, 0x024f0000, 0x008f0000, 0x01df00b0]) {
        for (const rd of [0, 3, 15]) {
          for (const imm of [0, 4, 0xff, 0x3fc]) {
            await agree(le32(((cond << 28) | base | (rd << 12) | imm) >>> 0), ARM_AT, 'arm', processor);
          }
        }
      }
    }
  }
});

test('real code windows agree: every kit program at its own and at a moved address', async () => {
  for (const name of ['arm9-program', 'arm7-program', 'arm9-analysis', 'arm7-analysis']) {
    const bytes = new Uint8Array(readFileSync(join(ARM_KIT_BUILD_DIR, `${name}.bin`)));
    const processor: Processor = name.startsWith('arm9') ? 'arm9' : 'arm7';
    for (const mode of ['arm', 'thumb'] as const) {
      for (const base of [0x02000000, 0x037f8002 & ~(mode === 'arm' ? 3 : 1)]) {
        for (let o = 0; o + 64 <= bytes.length; o += 60) {
          const window = bytes.subarray(o, o + 64);
          const at = base + o;
          if (at % (mode === 'arm' ? 4 : 2) !== 0) continue;
          const got = published(await decodeWindow(window, at, mode, processor, 32));
          const want = published(await decodeWindowDirect(window, at, mode, processor, 32));
          assert.deepEqual(got, want, `${name} ${mode} at 0x${at.toString(16)}`);
        }
      }
    }
  }
});

test('windows cut inside an instruction report the same truncation as Capstone', async () => {
  const cases: [Uint8Array, ArmMode][] = [
    [Uint8Array.of(0x00, 0xf0, 0x00), 'thumb'],
    [Uint8Array.of(0x00), 'thumb'],
    [Uint8Array.of(0x00, 0x20, 0x00, 0xf0), 'thumb'],
    [Uint8Array.of(0x00, 0x00, 0xa0), 'arm'],
    [Uint8Array.of(0x00, 0x00, 0xa0, 0xe1, 0x00, 0x00), 'arm'],
    [Uint8Array.of(0x10, 0xbf, 0x00, 0x20), 'thumb'], // IT: refused before Capstone
    [Uint8Array.of(0x00, 0xbf, 0x00, 0x20), 'thumb'], // NOP hint
  ];
  for (const [bytes, mode] of cases) {
    for (const processor of ['arm9', 'arm7'] as const) {
      assert.deepEqual(
        published(await decodeWindow(bytes, 0x02000000, mode, processor, 8)),
        published(await decodeWindowDirect(bytes, 0x02000000, mode, processor, 8)),
        `${Buffer.from(bytes).toString('hex')} ${mode}`,
      );
    }
  }
});

test('branch families: members met first at other addresses and offsets agree with Capstone', async () => {
  // A direct branch's answer is derived from one learned member of its family (same bits but the
  // offset). Many members, each at a fresh random address: targets near 0, near the top (wrap), and
  // in between, forward and backward, both processors.
  const next = rng(0xbf1);
  const anyAt = (unit: number) => Math.floor(next() * (0xfffffff0 / unit)) * unit;
  for (const processor of ['arm9', 'arm7'] as const) {
    for (let i = 0; i < 3000; i++) {
      const cond = Math.floor(next() * 16);
      const op = next() < 0.5 ? 0x0a000000 : 0x0b000000;
      const imm = Math.floor(next() * 0x1000000);
      await agree(le32(((cond << 28) | op | imm) >>> 0), [anyAt(4), anyAt(4) & 0xfff], 'arm', processor);
      const b16 =
        next() < 0.5
          ? 0xe000 | Math.floor(next() * 0x800)
          : 0xd000 | (Math.floor(next() * 14) << 8) | Math.floor(next() * 0x100);
      await agree(le16(b16), [anyAt(2), anyAt(2) & 0xffe], 'thumb', processor);
      const first = 0xf000 | Math.floor(next() * 0x800);
      const second = (next() < 0.5 ? 0xf800 : 0xe800) | Math.floor(next() * 0x800);
      const pair = Uint8Array.of(first & 0xff, first >>> 8, second & 0xff, second >>> 8);
      await agree(pair, [anyAt(2), anyAt(2) & 0xffe, 0xfffffff0 - (anyAt(2) & 0xffe)], 'thumb', processor);
    }
  }
});
