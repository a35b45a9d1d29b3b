// Patch bombs in the adversarial pass's shapes: a BPS of a few dozen bytes that makes a large result,
// and a BPS of one 1-byte action per byte (test/hardening/patch-bombs.test.ts and the mixed flood).
import { crc32 } from '../../src/formats/crc32.js';
import { encodeBps } from '../../src/formats/patch/bps.js';
import { bpsNumber, sealBps } from './patch-reference.js';

/** A BPS patch of a few dozen bytes whose result is the source followed by zeros, `size` bytes in all. */
export function zeroBomb(source: Uint8Array, size: number, salt: number): Uint8Array {
  const target = new Uint8Array(size);
  target.set(source);
  return encodeBps({
    sourceSize: source.length,
    targetSize: size,
    sourceCrc32: crc32(source),
    targetCrc32: crc32(target),
    changes: [],
    metadata: `bomb ${salt}`, // distinct patches: distinct result names
  });
}

/** A BPS patch that makes `target` from `source` with one 1-byte TargetRead action per byte. */
export function oneByteActions(source: Uint8Array, target: Uint8Array): Uint8Array {
  const head = [0x42, 0x50, 0x53, 0x31, ...bpsNumber(source.length), ...bpsNumber(target.length), 0x80];
  const body = new Uint8Array(head.length + target.length * 2 + 8);
  body.set(head);
  for (let i = 0; i < target.length; i++) {
    body[head.length + 2 * i] = 0x81; // TargetRead of length 1
    body[head.length + 2 * i + 1] = target[i]!;
  }
  const dv = new DataView(body.buffer);
  dv.setUint32(body.length - 8, crc32(source), true);
  dv.setUint32(body.length - 4, crc32(target), true);
  return sealBps(body);
}
