// The distributable patches of a build: BPS always, IPS where its 24-bit offsets reach every change.
// Both are made from the plan alone (the output is the source with the plan's pieces laid over it,
// zero-extended to the output size) and the CRC-32s of the source and the output, so a second build of
// one manifest writes byte-identical patches and verify can make them again and compare. Each patch is
// checked by applying it to the source, through the same decoders nds_patch_apply uses, and comparing
// the result byte for byte with the planned output, the bytes whose SHA-256 is the output's
// (patch-check.ts); patches.json records what was written, or why IPS was not.
import { createHash } from 'node:crypto';
import { crc32, crc32Combine, crc32Zeros } from '../formats/crc32.js';
import { encodeBps } from '../formats/patch/bps.js';
import { encodeIps } from '../formats/patch/ips.js';
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
