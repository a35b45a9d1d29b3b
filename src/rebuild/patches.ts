// The distributable patches of a build: BPS always, IPS where its 24-bit offsets reach every change.
// Both are made from the plan alone (the output is the source with the plan's pieces laid over it,
// zero-extended to the output size) and the CRC-32s of the source and the output, so a second build of
// one manifest writes byte-identical patches and verify can make them again and compare. Each patch is
// checked by applying it to the source, through the same decoders nds_patch_apply uses, and comparing
// the result byte for byte with the planned output, the bytes whose SHA-256 is the output's;
// patches.json records what was written, or why IPS was not.
import { createHash } from 'node:crypto';
import { ReMcpError } from '../core/errors.js';
import { crc32, crc32Combine, crc32Zeros } from '../formats/crc32.js';
import { applyBps, encodeBps, PatchError } from '../formats/patch/bps.js';
import { applyIpsRecords, encodeIps, ipsTargetSize, readIps } from '../formats/patch/ips.js';
import { fastCrc32 } from './crc.js';
import { canonicalJson, type Plan } from './plan/index.js';

export const PATCH_FILES = { bps: 'patch.bps', ips: 'patch.ips', record: 'patches.json' } as const;

export interface PatchSet {
  bps: Uint8Array;
  ips: Uint8Array | null;
  /** Why there is no IPS patch (null when there is one). */
  ipsRefused: string | null;
}

/** Synchronous reads of the source ROM, bounded to its size. */
export type SourceBytes = (offset: number, length: number) => Uint8Array;

/** The output byte at `offset`: a piece's, else the source's, else zero. */
function outputByte(plan: Plan, source: SourceBytes, offset: number): number {
  for (const p of plan.pieces)
    if (offset >= p.offset && offset < p.offset + p.bytes.length) return p.bytes[offset - p.offset]!;
  return offset < plan.resolved.source.size ? (source(offset, 1)[0] ?? 0) : 0;
}

/**
 * CRC-32 of the planned output without reading it: the output is the source zero-extended to its size
 * (S') with the pieces laid over it, that is S' XOR D where D is zero except under the pieces (piece XOR
 * the source bytes there); CRC-32 is affine, so crc(S' XOR D) = crc(S') XOR crc(D) XOR crc(zeros). Reads
 * only the source bytes under the pieces. The patch check recomputes the CRC from the decoded bytes.
 */
export function plannedOutputCrc(plan: Plan, sourceCrc32: number, source: SourceBytes): number {
  const r = plan.resolved;
  const size = r.output.size;
  const grown = Math.max(0, size - r.source.size);
  const extended = crc32Combine(sourceCrc32, crc32Zeros(grown), grown);
  let delta = 0;
  let at = 0;
  for (const p of plan.pieces) {
    const gap = p.offset - at;
    if (gap > 0) delta = crc32Combine(delta, crc32Zeros(gap), gap);
    const d = p.bytes.slice();
    if (p.offset < r.source.size) {
      const under = source(p.offset, Math.min(d.length, r.source.size - p.offset));
      for (let i = 0; i < under.length; i++) d[i]! ^= under[i]!;
    }
    delta = crc32Combine(delta, crc32(d), d.length);
    at = p.offset + d.length;
  }
  if (size > at) delta = crc32Combine(delta, crc32Zeros(size - at), size - at);
  return (extended ^ delta ^ crc32Zeros(size)) >>> 0;
}

export function makePatches(
  plan: Plan,
  crcs: { source: number; output: number },
  source: SourceBytes,
): PatchSet {
  const r = plan.resolved;
  const changes = plan.pieces.map((p) => ({ offset: p.offset, bytes: p.bytes }));
  const bps = encodeBps({
    sourceSize: r.source.size,
    targetSize: r.output.size,
    sourceCrc32: crcs.source,
    targetCrc32: crcs.output,
    changes,
    metadata: '',
  });
  const ips = encodeIps({
    sourceSize: r.source.size,
    targetSize: r.output.size,
    changes,
    targetByte: (offset) => outputByte(plan, source, offset),
  });
  return 'patch' in ips
    ? { bps, ips: ips.patch, ipsRefused: null }
    : { bps, ips: null, ipsRefused: ips.refused };
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The largest target a patch check decodes (a DS ROM is 512 MiB at most). */
const MAX_TARGET = 512 * 1024 * 1024;
/** Bytes a check reads, builds and compares at a time. */
const PIECE = 1 << 20;

/**
 * The planned output at [position, position + length): the source bytes there (zeros past its end)
 * with the plan's pieces laid over them. The build's stream hashed exactly these bytes as it wrote
 * them (output.sha256), so a patch result equal to them byte for byte has the output's SHA-256.
 */
function plannedOutput(plan: Plan, source: SourceBytes, position: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  const sourceSize = plan.resolved.source.size;
  if (position < sourceSize) out.set(source(position, Math.min(length, sourceSize - position)));
  const end = position + length;
  for (const p of plan.pieces) {
    const pEnd = p.offset + p.bytes.length;
    if (pEnd <= position || p.offset >= end) continue;
    const from = Math.max(p.offset, position);
    out.set(p.bytes.subarray(from - p.offset, Math.min(pEnd, end) - p.offset), from - position);
  }
  return out;
}

const same = (a: Uint8Array, b: Uint8Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));

/** Whether a planned piece lies in [position, position + length). */
const touched = (plan: Plan, position: number, length: number) =>
  plan.pieces.some((p) => p.offset < position + length && p.offset + p.bytes.length > position);

/**
 * Applies each patch to the source with the decoders nds_patch_apply uses and compares the result,
 * a piece at a time, byte for byte with the planned output (whose SHA-256 the build's stream took);
 * the result's size must be the output's too. A BPS patch is applied as it streams (its target is
 * never held whole: its copies of the target reach back a few bytes, kept in a window).
 */
export function checkPatches(
  set: PatchSet,
  plan: Plan,
  source: SourceBytes,
  sourceCrc32: number,
  output: { size: number },
  /**
   * Reads source bytes into a buffer the check reuses (no new memory for each piece of a whole-ROM
   * pass); without it the source is read with `source`.
   */
  sourceInto?: (offset: number, into: Uint8Array) => Uint8Array,
): void {
  const r = plan.resolved;
  // The decoder reads the source a piece (at most 1 MiB) at a time and is done with each before the
  // next: one buffer serves them all. `lastRead` compares by identity, never by content.
  const reused = sourceInto ? new Uint8Array(PIECE) : null;
  const fail = (what: string, why: string): never => {
    throw new ReMcpError('verification-failed', `the ${what} patch does not rebuild the output: ${why}`);
  };
  const WINDOW = 1 << 16;
  const window = new Uint8Array(WINDOW);
  let written = 0;
  // The last source read: emitted unchanged at the offset it was read from, where no piece lies, it is
  // the planned output by construction (both are those source bytes) and is not read again.
  let lastRead: { offset: number; bytes: Uint8Array } | null = null;
  try {
    applyBps(
      set.bps,
      { size: r.source.size, crc32: sourceCrc32 },
      {
        readSource: (offset, length) => {
          const bytes =
            sourceInto && reused && length <= reused.length
              ? sourceInto(offset, reused.subarray(0, length))
              : source(offset, length);
          lastRead = { offset, bytes };
          return bytes;
        },
        readTarget: (offset, length) => {
          if (written - offset > WINDOW || length > written - offset)
            throw new PatchError('malformed', 'a target copy reaches past the checking window');
          const at = offset % WINDOW;
          const first = Math.min(length, WINDOW - at);
          const out = new Uint8Array(length);
          out.set(window.subarray(at, at + first));
          out.set(window.subarray(0, length - first), first);
          return out;
        },
        emit: (bytes) => {
          if (written + bytes.length > output.size) fail('BPS', 'its result is longer than the output');
          const read = lastRead as { offset: number; bytes: Uint8Array } | null;
          const asRead =
            read !== null &&
            read.bytes === bytes &&
            read.offset === written &&
            written + bytes.length <= r.source.size &&
            !touched(plan, written, bytes.length);
          if (!asRead && !same(bytes, plannedOutput(plan, source, written, bytes.length)))
            fail('BPS', `its result differs from the output within ${bytes.length} bytes at ${written}`);
          const tail = bytes.subarray(Math.max(0, bytes.length - WINDOW));
          const at = (written + bytes.length - tail.length) % WINDOW;
          const first = Math.min(tail.length, WINDOW - at);
          window.set(tail.subarray(0, first), at);
          window.set(tail.subarray(first), 0);
          written += bytes.length;
        },
      },
      MAX_TARGET,
      fastCrc32,
    );
  } catch (error) {
    if (error instanceof PatchError) fail('BPS', error.message);
    throw error;
  }
  if (written !== output.size) fail('BPS', `its result is ${written} bytes`);
  if (set.ips) {
    const ips = readIps(set.ips, Number.MAX_SAFE_INTEGER);
    const size = ipsTargetSize(ips, r.source.size);
    if (size !== output.size) fail('IPS', `its result is ${size} bytes`);
    // Outside its records, the planned pieces and the grown part, an IPS result and the planned output
    // are both the source bytes: only those ranges are built and compared.
    const ranges = [
      ...ips.records.map((rec) => [rec.offset, rec.offset + ('bytes' in rec ? rec.bytes.length : rec.count)]),
      ...plan.pieces.map((p) => [p.offset, p.offset + p.bytes.length]),
      [Math.min(r.source.size, size), size],
    ]
      .map(([a, b]) => [Math.min(a!, size), Math.min(b!, size)] as const)
      .filter(([a, b]) => b > a)
      .sort((x, y) => x[0] - y[0]);
    let done = 0;
    for (const [a, b] of ranges) {
      for (let at = Math.max(a, done); at < b; at += PIECE) {
        const length = Math.min(PIECE, b - at);
        const piece = new Uint8Array(length);
        if (at < r.source.size) piece.set(source(at, Math.min(length, r.source.size - at)));
        applyIpsRecords(ips, piece, at);
        if (!same(piece, plannedOutput(plan, source, at, length)))
          fail('IPS', `its result differs from the output within ${length} bytes at ${at}`);
      }
      done = Math.max(done, b);
    }
  }
}

/** patches.json: each patch's file, size and SHA-256, what it applies to and gives; or why it is absent. */
export function patchesText(set: PatchSet, plan: Plan, outputSha256: string): string {
  const r = plan.resolved;
  const entry = (file: string, bytes: Uint8Array) => ({
    file,
    bytes: bytes.length,
    sha256: sha(bytes),
    source: { sha256: r.source.sha256, size: r.source.size },
    target: { sha256: outputSha256, size: r.output.size },
    checked: 'applied to the source in the build: the result is the output, byte for byte',
  });
  return `${canonicalJson({
    bps: entry(PATCH_FILES.bps, set.bps),
    ips: set.ips ? entry(PATCH_FILES.ips, set.ips) : { file: null, reason: set.ipsRefused },
  })}\n`;
}

/** The patch files a set writes, by name. */
export function patchFiles(set: PatchSet): Record<string, Uint8Array> {
  return set.ips
    ? { [PATCH_FILES.bps]: set.bps, [PATCH_FILES.ips]: set.ips }
    : { [PATCH_FILES.bps]: set.bps };
}
