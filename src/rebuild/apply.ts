// Applies a patch someone shared (BPS or IPS, told apart by their headers) to a source ROM of the
// workspace and publishes the result atomically under output/patched/<source sha16>/, named by the
// patch's SHA-256; the source is only read. A BPS patch says which source it is for and what it makes
// (sizes and CRC-32s): both are checked, and a patch for another source, a damaged one or one whose
// result is not what it names is refused. An IPS patch carries no checksum: it is only checked to be
// well formed and in bounds, and the result says so.
// Bounded under concurrency: the result is streamed to its file as the patch is decoded
// (apply-stream.ts), so a call holds its patch file and a window of the result, never the result: both
// are reserved from the server's memory budget first (a call that does not fit waits, then is refused
// busy). The actions run in slices (the server answers meanwhile) within APPLY_LIMITS.applyMs; a
// refusal, a cancellation or a timeout on the way removes what was written. output/patched/ holds at
// most APPLY_LIMITS.patchedBytes, results being written included, so a 40-byte patch that makes
// 512 MiB cannot fill the disk by being applied many times over.
import { lstat } from 'node:fs/promises';
import { driveSteps, sha256Steps } from '../core/cooperative.js';
import { ReMcpError } from '../core/errors.js';
import type { MemoryBudget, Reservation } from '../core/memory-budget.js';
import { readSmallFile } from '../core/small-file.js';
import { decodeBps, PatchError, readBpsHeader } from '../formats/patch/bps.js';
import { decodeIps, ipsTargetSize, readIps } from '../formats/patch/ips.js';
import type { PatchDecoder } from '../formats/patch/requests.js';
import type { RomHandle } from '../roms/rom-store.js';
import type { Workspace } from '../workspace/workspace.js';
import { applyStreamBytes, patchStream, SourceWindow } from './apply-stream.js';
import { fastCrc32 } from './crc.js';

export const APPLY_LIMITS = {
  patchBytes: { default: 256 * 1024 * 1024, max: 256 * 1024 * 1024, unit: 'bytes of patch file' },
  targetBytes: { default: 512 * 1024 * 1024, max: 512 * 1024 * 1024, unit: 'bytes of patched ROM' },
  ipsRecords: { default: 1_000_000, max: 1_000_000, unit: 'IPS records' },
  /** Time the actions of one patch may take (in slices). */
  applyMs: { default: 120_000, max: 120_000, unit: 'milliseconds' },
  /** Bytes output/patched/ may hold, results being written included. */
  patchedBytes: { default: 4 * 1024 ** 3, max: 4 * 1024 ** 3, unit: 'bytes under output/patched/' },
} as const;

/**
 * Memory one IPS record read takes at most: its object, its view of the patch, and its place in
 * decodeIps's index.
 */
const IPS_RECORD_BYTES = 164;
/** Names listed per directory when output/patched/ is measured (more counts as over the quota). */
const QUOTA_NAMES = 4096;
/** A result being written (OutputDir.writeAtomic's temp name): counted as pending, not on disk. */
const TEMP = /^\..*\.tmp$/;
/** Result bytes this server is writing under output/patched/ now (beside what is on disk). */
let patchedPending = 0;

/** The patch formats applied, told apart by their headers. */
export const PATCH_FORMATS = ['bps', 'ips'] as const;
type PatchFormat = (typeof PATCH_FORMATS)[number];

/** What applying a patch checked: the BPS source and target CRC-32s, or nothing an IPS patch can say. */
export const APPLY_CHECKS = ['source-and-target-crc32', 'none: IPS patches carry no checksums'] as const;
type ApplyCheck = (typeof APPLY_CHECKS)[number];

interface ApplyResult {
  format: PatchFormat;
  patchSha256: string;
  output: string;
  outputSha256: string;
  outputSize: number;
  checked: ApplyCheck;
  metadata: string | null;
}

function refused(error: unknown): never {
  if (error instanceof PatchError)
    throw new ReMcpError(
      error.kind === 'mismatch' ? 'verification-failed' : 'invalid-argument',
      error.message,
    );
  throw error;
}

export async function applyPatchFile(
  workspace: Workspace,
  rom: RomHandle,
  patchPath: string,
  memory: MemoryBudget,
  signal?: AbortSignal,
): Promise<ApplyResult> {
  const file = await workspace.resolveExisting(patchPath, 'file');
  // The patch's size as it is now (readSmallFile refuses one over the cap, or grown past it, and gives
  // the typed error for a file gone meanwhile).
  const size = Math.min(
    await lstat(file.absolute).then(
      (s) => s.size,
      () => 0,
    ),
    APPLY_LIMITS.patchBytes.max,
  );
  const held = await memory.reserve(size, `reading the patch ${file.relative}`, signal ? { signal } : {});
  try {
    const patch = new Uint8Array(
      await readSmallFile(file.absolute, {
        maxBytes: APPLY_LIMITS.patchBytes.max,
        label: `the patch ${file.relative}`,
        deadlineMs: 30_000,
        ...(signal ? { signal } : {}),
      }),
    );
    return await applyRead(workspace, rom, file.relative, patch, memory, signal);
  } finally {
    held.release();
  }
}

async function applyRead(
  workspace: Workspace,
  rom: RomHandle,
  patchName: string,
  patch: Uint8Array,
  memory: MemoryBudget,
  signal: AbortSignal | undefined,
): Promise<ApplyResult> {
  const held: Reservation[] = [];
  try {
    const head = new TextDecoder().decode(patch.subarray(0, 5));
    const size = rom.identity.size;
    const wait = signal ? { signal } : {};
    if (!head.startsWith('BPS1') && head !== 'PATCH')
      throw new ReMcpError('invalid-argument', `${patchName} is neither a BPS nor an IPS patch`);
    // What the stream holds, whatever the result's size (apply-stream.ts).
    held.push(await memory.reserve(applyStreamBytes(), `applying ${patchName}`, wait));
    const source = new SourceWindow((into, at) => rom.readChunk(into, at), size, rom.path);
    const { format, metadata, targetSize, decoder } = head.startsWith('BPS1')
      ? await openBps(patch, rom, source, signal)
      : await openIps(patch, patchName, size, memory, held, wait);
    const patchSha256 = await driveSteps(sha256Steps(patch), wait);
    const name = `${patchSha256.slice(0, 16)}.nds`;
    const sha16 = rom.identity.sha256.slice(0, 16);
    const stream = patchStream(decoder, source, {
      ...wait,
      deadline: { ms: APPLY_LIMITS.applyMs.max, what: `applying ${patchName}` },
      refuse: refused,
      // The bytes read are the source the patch was checked against only if it was not written meanwhile.
      beforeEnd: async () => {
        if (!(await rom.unmodifiedSinceIdentified()))
          throw new ReMcpError(
            'rom-changed',
            `the ROM ${rom.path} was modified while the patch was applied`,
            {
              path: rom.path,
            },
          );
      },
    });
    await writePatched(workspace, { dir: sha16, name }, targetSize, stream);
    const made = stream.result();
    if (made.size !== targetSize)
      throw new ReMcpError('internal-error', `the patch made ${made.size} bytes, not ${targetSize}`);
    return {
      format,
      patchSha256,
      output: `output/patched/${sha16}/${name}`,
      outputSha256: made.sha256,
      outputSize: made.size,
      checked: format === 'bps' ? 'source-and-target-crc32' : 'none: IPS patches carry no checksums',
      metadata,
    };
  } finally {
    for (const r of held) r.release();
  }
}

/** A patch read and checked as far as it can be before anything is written, and its decoder. */
interface OpenedPatch {
  format: PatchFormat;
  metadata: string | null;
  targetSize: number;
  decoder: PatchDecoder<unknown>;
}

/** A BPS patch whose result fits and whose source is this ROM (size and CRC-32). */
async function openBps(
  patch: Uint8Array,
  rom: RomHandle,
  source: SourceWindow,
  signal: AbortSignal | undefined,
): Promise<OpenedPatch> {
  const size = rom.identity.size;
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
  // Both checked before anything is written (the decoder checks them again).
  if (header.sourceSize !== size)
    throw new ReMcpError(
      'verification-failed',
      `the BPS patch is for a ${header.sourceSize}-byte source; ${rom.path} has ${size} bytes`,
    );
  const crc = await source.crc32(fastCrc32, signal);
  if (crc !== header.sourceCrc32)
    throw new ReMcpError(
      'verification-failed',
      `the BPS patch is for another source: ${rom.path} does not have the CRC-32 it names`,
    );
  return {
    format: 'bps',
    metadata: header.metadata || null,
    targetSize: header.targetSize,
    decoder: decodeBps(patch, { size, crc32: crc }, APPLY_LIMITS.targetBytes.max, fastCrc32),
  };
}

/** A well-formed IPS patch whose result fits; its records' memory is reserved into `held`. */
async function openIps(
  patch: Uint8Array,
  patchName: string,
  size: number,
  memory: MemoryBudget,
  held: Reservation[],
  wait: { signal?: AbortSignal },
): Promise<OpenedPatch> {
  // The records read are objects: reserved at their most (a record takes at least 6 patch bytes).
  held.push(
    await memory.reserve(
      Math.min(APPLY_LIMITS.ipsRecords.max, Math.floor(patch.length / 6)) * IPS_RECORD_BYTES,
      `the records of ${patchName}`,
      wait,
    ),
  );
  let records: ReturnType<typeof readIps>;
  try {
    records = readIps(patch, APPLY_LIMITS.ipsRecords.max);
  } catch (error) {
    refused(error);
  }
  const targetSize = ipsTargetSize(records, size);
  if (targetSize > APPLY_LIMITS.targetBytes.max)
    throw new ReMcpError('limit-exceeded', `the IPS result would be ${targetSize} bytes`, {
      size: targetSize,
    });
  return { format: 'ips', metadata: null, targetSize, decoder: decodeIps(records, size) };
}

/** Writes the stream to output/patched/<dir>/<name> within the folder's quota. */
async function writePatched(
  workspace: Workspace,
  at: { dir: string; name: string },
  targetSize: number,
  stream: ReturnType<typeof patchStream>,
): Promise<void> {
  const patched = await workspace.outputDir('output', ['patched']);
  try {
    // The quota check and the pending count are one synchronous step after the measure, so two
    // calls of this server cannot both pass on the same free space.
    const used = await patchedUsage(patched, at);
    if (used + patchedPending + targetSize > APPLY_LIMITS.patchedBytes.max)
      throw new ReMcpError(
        'limit-exceeded',
        `output/patched/ holds ${used} bytes${patchedPending > 0 ? ` (${patchedPending} more being written)` : ''}; this ${targetSize}-byte result would pass its quota of ${APPLY_LIMITS.patchedBytes.max} bytes: remove results you no longer need from output/patched/`,
        { used, pending: patchedPending, size: targetSize, quota: APPLY_LIMITS.patchedBytes.max },
      );
    patchedPending += targetSize;
    try {
      const dir = await patched.child(at.dir);
      try {
        // Written as it is made; removed unless every byte came out and every check passed.
        await dir.writeAtomic(at.name, stream.chunks, stream.writeOptions);
      } finally {
        await dir.close();
      }
    } finally {
      patchedPending -= targetSize;
    }
  } finally {
    await patched.close();
  }
}

/**
 * Bytes of the regular files in output/patched/ and its directories, less the file `replaced` (the
 * result about to be written over, when it exists). A directory of more than QUOTA_NAMES names is
 * refused: the quota cannot be measured there.
 */
async function patchedUsage(
  patched: Awaited<ReturnType<Workspace['outputDir']>>,
  replaced: { dir: string; name: string },
): Promise<number> {
  const tooMany = () =>
    new ReMcpError(
      'limit-exceeded',
      `output/patched/ holds more than ${QUOTA_NAMES} entries in one directory; remove results you no longer need`,
    );
  const top = await patched.fileSizes(QUOTA_NAMES);
  if (top.more) throw tooMany();
  let used = [...top.sizes.values()].reduce((a, b) => a + b, 0);
  for (const name of await patched.names()) {
    if ((await patched.kind(name)) !== 'directory') continue;
    const child = await patched.child(name, false);
    try {
      const inner = await child.fileSizes(QUOTA_NAMES);
      if (inner.more) throw tooMany();
      for (const [file, size] of inner.sizes)
        if (!(name === replaced.dir && file === replaced.name) && !TEMP.test(file)) used += size;
    } finally {
      await child.close();
    }
  }
  return used;
}
