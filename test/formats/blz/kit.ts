// Shared pieces of the BLZ tests (codec.test.ts, codec.long.ts): the third-party golden data in
// RE_MCP_TEST_BLZ and a console-style reference decoder.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { NO_BLZ, sharedBlzDir } from '../../kit/shared-data.js';

export { NO_BLZ };

/** Names of the golden inputs (`in/`), each also encoded in `cue-greedy/` and `cue-optimal/`; none unset. */
export const NAMES = NO_BLZ ? [] : readdirSync(join(sharedBlzDir(), 'in')).sort();

export const read = (dir: string, name: string) =>
  new Uint8Array(readFileSync(join(sharedBlzDir(), dir, name)));

export const u32 = (b: Uint8Array, at: number) =>
  (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

/**
 * Decodes the way the ARM9's own routine does: in ONE buffer holding the blob, stopping when the
 * stream is used up, reading match sources from that same memory. If the write pointer ever overtakes
 * unread input, this either throws or yields corrupt bytes. Deliberately independent of blzDecode.
 */
export function decodeLikeConsole(blob: Uint8Array): Uint8Array {
  const length = blob.length;
  const extra = u32(blob, length - 4);
  if (extra === 0) return blob.slice(0, length - 4);
  const word = u32(blob, length - 8);
  const memory = new Uint8Array(length + extra);
  memory.set(blob);
  const lower = length - (word & 0xffffff);
  let src = length - (word >>> 24);
  let dst = memory.length;
  while (src > lower) {
    let flags = memory[--src]!;
    for (let bit = 0; bit < 8; bit++, flags <<= 1) {
      if (flags & 0x80) {
        const high = memory[--src]!;
        const low = memory[--src]!;
        const distance = (((high & 0xf) << 8) | low) + 3;
        for (let n = (high >>> 4) + 3; n > 0; n--, dst--) memory[dst - 1] = memory[dst - 1 + distance]!;
      } else {
        memory[--dst] = memory[--src]!;
      }
      assert.ok(dst >= src, `write pointer ${dst} overtook read pointer ${src}`);
      if (src <= lower) break;
    }
  }
  assert.equal(dst, lower, 'stream used up exactly when the output is full');
  return memory;
}
