// CRC-32 for the rebuild's passes over whole ROMs: zlib's native one where this Node has it (Node 20.15
// and later), else the table-driven one of formats/crc32.ts (the same checksum, slower). A source ROM's
// CRC-32 (the patches name it) is remembered by its identity once a pass has read it whole: a later
// verification of a build of it needs no second CRC pass over up to 512 MiB.
import * as zlib from 'node:zlib';
import { crc32 } from '../formats/crc32.js';
import type { RomHandle, RomIdentity } from '../roms/rom-handle.js';

export const fastCrc32: (bytes: Uint8Array, crc?: number) => number =
  (zlib as { crc32?: (b: Uint8Array, c?: number) => number }).crc32 ?? crc32;

/** Source CRC-32s remembered, by SHA-256 and size (the oldest forgotten past this many). */
const REMEMBERED_MAX = 64;
const remembered = new Map<string, number>();
const keyOf = (rom: RomIdentity) => `${rom.sha256}:${rom.size}`;

/** The CRC-32 of the ROM with this identity, when a whole pass over it was remembered. */
export function knownSourceCrc32(rom: RomIdentity): number | undefined {
  return remembered.get(keyOf(rom));
}

/**
 * Remembers the CRC-32 of the ROM with this identity: only from a pass that read all of its bytes from a
 * file still identified so afterwards (the caller's check), never from a partial or unchecked read.
 */
export function rememberSourceCrc32(rom: RomIdentity, crc: number): void {
  const key = keyOf(rom);
  remembered.delete(key);
  remembered.set(key, crc >>> 0);
  if (remembered.size > REMEMBERED_MAX) remembered.delete(remembered.keys().next().value!);
}

/**
 * Runs `pass` (a whole read of the source that computes its CRC-32 into `read` when given one) and
 * gives its result with the source's CRC-32: the remembered one (no `read` then: the pass skips the
 * CRC), or the one the pass read, remembered once the source is proven still that identity.
 */
export async function withSourceCrc32<T>(
  rom: RomHandle,
  signal: AbortSignal | undefined,
  pass: (read: { source: number } | undefined) => Promise<T>,
): Promise<[T, number]> {
  const known = knownSourceCrc32(rom.identity);
  if (known !== undefined) return [await pass(undefined), known];
  const read = { source: 0 };
  const result = await pass(read);
  await rom.verifyUnchanged(signal);
  rememberSourceCrc32(rom.identity, read.source);
  return [result, read.source];
}
