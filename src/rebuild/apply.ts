// Applies a patch someone shared (BPS or IPS, told apart by their headers) to a source ROM of the
// workspace and publishes the result atomically under output/patched/<source sha16>/, named by the
// patch's SHA-256; the source is only read. A BPS patch says which source it is for and what it makes
// (sizes and CRC-32s): both are checked, and a patch for another source, a damaged one or one whose
// result is not what it names is refused. An IPS patch carries no checksum: it is only checked to be
// well formed and in bounds, and the result says so.
import { createHash } from 'node:crypto';
import { ReMcpError, throwIfCancelled } from '../core/errors.js';
import { readSmallFile } from '../core/small-file.js';
import { applyBps, PatchError, readBpsHeader } from '../formats/patch/bps.js';
import { applyIpsRecords, ipsTargetSize, readIps } from '../formats/patch/ips.js';
import type { RomHandle } from '../nds/rom-store.js';
import type { Workspace } from '../workspace/workspace.js';
import { fastCrc32 } from './crc.js';

export const APPLY_LIMITS = {
  patchBytes: { default: 256 * 1024 * 1024, max: 256 * 1024 * 1024, unit: 'bytes of patch file' },
  targetBytes: { default: 512 * 1024 * 1024, max: 512 * 1024 * 1024, unit: 'bytes of patched ROM' },
  ipsRecords: { default: 1_000_000, max: 1_000_000, unit: 'IPS records' },
} as const;

/** The patch formats applied, told apart by their headers. */
export const PATCH_FORMATS = ['bps', 'ips'] as const;
export type PatchFormat = (typeof PATCH_FORMATS)[number];

/** What applying a patch checked: the BPS source and target CRC-32s, or nothing an IPS patch can say. */
export const APPLY_CHECKS = ['source-and-target-crc32', 'none: IPS patches carry no checksums'] as const;
export type ApplyCheck = (typeof APPLY_CHECKS)[number];

export interface ApplyResult {
  format: PatchFormat;
  patchSha256: string;
  output: string;
  outputSha256: string;
  outputSize: number;
  checked: ApplyCheck;
  metadata: string | null;
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

function refused(error: unknown): never {
  if (error instanceof PatchError)
    throw new ReMcpError(
      error.kind === 'mismatch' ? 'verification-failed' : 'invalid-argument',
      error.message,
    );
  throw error;
}

/** CRC-32 of the whole source, read in 4 MiB pieces. */
async function sourceCrc(rom: RomHandle, signal?: AbortSignal): Promise<number> {
  const buffer = new Uint8Array(4 * 1024 * 1024);
  let crc = 0;
  for (let at = 0; at < rom.identity.size; ) {
    throwIfCancelled(signal);
    const n = await rom.readChunk(buffer.subarray(0, Math.min(buffer.length, rom.identity.size - at)), at);
    if (n === 0) break;
    crc = fastCrc32(buffer.subarray(0, n), crc);
    at += n;
  }
  return crc;
}

export async function applyPatchFile(
  workspace: Workspace,
  rom: RomHandle,
  patchPath: string,
  signal?: AbortSignal,
): Promise<ApplyResult> {
  const file = await workspace.resolveExisting(patchPath, 'file');
  const patch = new Uint8Array(
    await readSmallFile(file.absolute, {
      maxBytes: APPLY_LIMITS.patchBytes.max,
      label: `the patch ${file.relative}`,
      deadlineMs: 30_000,
      ...(signal ? { signal } : {}),
    }),
  );
  const head = new TextDecoder().decode(patch.subarray(0, 5));
  const source = { size: rom.identity.size };
  let target: Uint8Array;
  let format: ApplyResult['format'];
  let metadata: string | null = null;
  if (head.startsWith('BPS1')) {
    format = 'bps';
    let header: ReturnType<typeof readBpsHeader>;
    try {
      header = readBpsHeader(patch);
    } catch (error) {
      refused(error);
    }
    if (header.targetSize > APPLY_LIMITS.targetBytes.max)
      throw new ReMcpError('limit-exceeded', `the BPS result would be ${header.targetSize} bytes`, {
        size: header.targetSize,
      });
    // Checked before the source is read for its CRC-32 (applyBps checks both again).
    if (header.sourceSize !== source.size)
      throw new ReMcpError(
        'verification-failed',
        `the BPS patch is for a ${header.sourceSize}-byte source; ${rom.path} has ${source.size} bytes`,
      );
    const crc = await sourceCrc(rom, signal);
    // The target is put together in memory (bounded by targetBytes): copies may reach anywhere behind.
    target = new Uint8Array(header.targetSize);
    let written = 0;
    const out = target;
    try {
      applyBps(
        patch,
        { size: source.size, crc32: crc },
        {
          readSource: (offset, length) => rom.readBytes(offset, length),
          readTarget: (offset, length) => out.subarray(offset, offset + length),
          emit: (bytes) => {
            out.set(bytes, written);
            written += bytes.length;
          },
        },
        APPLY_LIMITS.targetBytes.max,
        fastCrc32,
      );
    } catch (error) {
      refused(error);
    }
    metadata = header.metadata || null;
  } else if (head === 'PATCH') {
    format = 'ips';
    let records: ReturnType<typeof readIps>;
    try {
      records = readIps(patch, APPLY_LIMITS.ipsRecords.max);
    } catch (error) {
      refused(error);
    }
    const size = ipsTargetSize(records, source.size);
    if (size > APPLY_LIMITS.targetBytes.max)
      throw new ReMcpError('limit-exceeded', `the IPS result would be ${size} bytes`, { size });
    target = new Uint8Array(size);
    for (let at = 0; at < Math.min(size, source.size); ) {
      throwIfCancelled(signal);
      const n = await rom.readChunk(
        target.subarray(at, Math.min(size, source.size, at + 4 * 1024 * 1024)),
        at,
      );
      if (n === 0) break;
      at += n;
    }
    applyIpsRecords(records, target);
  } else {
    throw new ReMcpError('invalid-argument', `${file.relative} is neither a BPS nor an IPS patch`);
  }
  throwIfCancelled(signal);
  const patchSha256 = sha(patch);
  const dir = await workspace.outputDir('output', ['patched', rom.identity.sha256.slice(0, 16)]);
  const name = `${patchSha256.slice(0, 16)}.nds`;
  try {
    await dir.writeAtomic(name, target);
  } finally {
    await dir.close();
  }
  return {
    format,
    patchSha256,
    output: `output/patched/${rom.identity.sha256.slice(0, 16)}/${name}`,
    outputSha256: sha(target),
    outputSize: target.length,
    checked: format === 'bps' ? 'source-and-target-crc32' : 'none: IPS patches carry no checksums',
    metadata,
  };
}
