// Operand families (decoder.ts): a low-register load, store, move or ALU encoding of 16-bit Thumb is
// derived from whichever member of its family the process learned from Capstone first. This file runs
// in a process of its own, so its tables start empty: every member of every family is met in a
// shuffled order, each at a random address of either alignment, and each answer must equal Capstone's.
// (decoder-templates.test.ts covers the same encodings met in ascending order.)

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeWindow, decodeWindowDirect } from '../../src/arm/decoder.js';
import { rng } from '../kit/rng.js';

/** The encodings the families cover: everything below the high-register and PC-relative forms, and the SP forms. */
const inFamilyRanges = (h: number) =>
  h < 0x4400 || (h >= 0x5000 && h < 0xa000) || (h >= 0xa800 && h < 0xb100);

test('every operand-family member, met first in a random order, agrees with Capstone', async () => {
  const next = rng(0x0f4);
  const members: number[] = [];
  for (let h = 0; h < 0x10000; h++) if (inFamilyRanges(h)) members.push(h);
  for (let i = members.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [members[i], members[j]] = [members[j]!, members[i]!];
  }
  for (const processor of ['arm9', 'arm7'] as const) {
    for (const h of members) {
      const bytes = Uint8Array.of(h & 0xff, h >>> 8);
      const at = Math.floor(next() * 0x7ffffff8) * 2;
      // As published (JSON): template answers carry absent fields as undefined.
      const got = JSON.parse(JSON.stringify(await decodeWindow(bytes, at, 'thumb', processor, 1)));
      const want = JSON.parse(JSON.stringify(await decodeWindowDirect(bytes, at, 'thumb', processor, 1)));
      assert.deepEqual(got, want, `${processor} ${h.toString(16).padStart(4, '0')} at 0x${at.toString(16)}`);
    }
  }
});
