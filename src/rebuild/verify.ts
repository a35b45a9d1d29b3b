// Semantic verification of a rebuilt ROM against its plan:
// - the output equals the plan's expected stream byte for byte (source prefix + owned pieces);
// - every byte that differs from the source inside the source prefix lies in an owned range (a fixed
//   edit of an approved operation or the owned header rewrite), and bytes past it that no piece owns
//   are zero;
// - the output reparses through the canonical model, and its header tables, FAT ranges, file paths,
//   overlay records and each operation's output bytes are those the plan names.
// verifyOutput (nds_mutation_verify, reuse of a published build) re-reads the source and the whole
// output to establish the first two. verifyBuiltOutput (a build that has just written the file) takes
// them from the build's own single pass (stream.ts), and reads back the planned pieces from the file.
// Both run the same structural checks and give the same record for the same file.
import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { ReMcpError, throwIfCancelled } from '../core/errors.js';
import { readInParts } from '../core/read-parts.js';
import { formatAddress } from '../core/vocabulary.js';
import { blzDecode } from '../formats/blz/index.js';
import type { NdsRomModel } from '../formats/nds/index.js';
import { type ByteSource, parseNdsRom } from '../formats/nds/index.js';
import { attributeChunk } from './attribution.js';
import type { VerificationRecord } from './build-evidence.js';
import { fastCrc32 } from './crc.js';
import type { Plan } from './plan/index.js';
import {
  type ChunkReader,
  expectedFromSource,
  readFully,
  readSourceChunk,
  STREAM_CHUNK,
  type StreamTally,
} from './stream.js';

function fail(message: string, details: Record<string, unknown> = {}): never {
  throw new ReMcpError('verification-failed', message, details);
}

/** A synchronous ByteSource over an open handle's fd (the parser reads only tables and footers). */
function fdSource(
  fd: number,
  size: number,
  readSync: (fd: number, b: Uint8Array, o: number, l: number, p: number) => number,
): ByteSource {
  return {
    size,
    read(offset, length) {
      const end = Math.min(size, offset + length);
      const out = new Uint8Array(Math.max(0, end - offset));
      let done = 0;
      while (done < out.length) {
        const n = readSync(fd, out, done, out.length - done, offset + done);
        if (n === 0) break;
        done += n;
      }
      return out.subarray(0, done);
    },
  };
}

/** Size of the file behind `output`; fails unless it is a regular file of the planned size. */
async function checkSize(plan: Plan, output: FileHandle): Promise<number> {
  const info = await output.stat();
  if (!info.isFile() || info.size !== plan.resolved.output.size) {
    fail(`the rebuilt ROM is ${info.size} bytes; the plan makes ${plan.resolved.output.size}`);
  }
  return info.size;
}

const STREAM_CHECKS = ['output-size', 'expected-bytes', 'prefix-changes-attributed', 'gaps-zero'];

/**
 * Full verification of an existing rebuilt ROM (nds_mutation_verify, reuse of a published build): the
 * whole file is read and compared with the expected stream built from a fresh read of the source, then
 * its structures are checked.
 */
export async function verifyOutput(
  plan: Plan,
  sourceModel: NdsRomModel,
  readSource: ChunkReader,
  output: FileHandle,
  readSync: (fd: number, b: Uint8Array, o: number, l: number, p: number) => number,
  signal?: AbortSignal,
  /**
   * Filled with the CRC-32 of the whole source read (the patches name it). The output's follows from
   * it: once verified, the output is the planned stream (patches.ts plannedOutputCrc).
   */
  crcs?: { source: number },
  /** Sees the source bytes of every chunk, and where they start, once they are read. */
  onSource?: (at: number, source: Uint8Array) => void,
): Promise<VerificationRecord> {
  const r = plan.resolved;
  const size = await checkSize(plan, output);
  let sourceCrc = 0;

  // 1. Byte stream: expected bytes, attribution of prefix changes, zero gaps. The source and the output
  // of the next chunk are read (each as parts at once) while this one is checked.
  const hash = createHash('sha256');
  const buffers = [0, 1].map(() => ({
    got: new Uint8Array(STREAM_CHUNK),
    source: new Uint8Array(STREAM_CHUNK),
  }));
  const scratch = new Uint8Array(STREAM_CHUNK);
  const readOutput: ChunkReader = (into, position) =>
    output.read(into, 0, into.length, position).then((r) => r.bytesRead);
  const readChunk = (at: number, b: (typeof buffers)[number]) => {
    const length = Math.min(STREAM_CHUNK, r.output.size - at);
    return Promise.all([
      readSourceChunk(plan, readSource, at, b.source.subarray(0, length)),
      readInParts((part, position) => readFully(readOutput, part, position), b.got.subarray(0, length), at),
    ]);
  };
  let changedPrefixBytes = 0;
  let next = r.output.size > 0 ? readChunk(0, buffers[0]!) : null;
  try {
    for (let at = 0, which = 0; at < r.output.size; at += STREAM_CHUNK, which = 1 - which) {
      throwIfCancelled(signal);
      const length = Math.min(STREAM_CHUNK, r.output.size - at);
      const [sourceLength, bytesRead] = await next!;
      next = at + STREAM_CHUNK < r.output.size ? readChunk(at + STREAM_CHUNK, buffers[1 - which]!) : null;
      const { got, source } = buffers[which]!;
      const srcView = source.subarray(0, sourceLength);
      const want = expectedFromSource(plan, at, srcView, length, scratch);
      if (bytesRead !== length) fail('the rebuilt ROM could not be read in full');
      const view = got.subarray(0, length);
      hash.update(view);
      if (crcs) sourceCrc = fastCrc32(srcView, sourceCrc);
      onSource?.(at, srcView);
      if (
        !Buffer.from(view.buffer, view.byteOffset, length).equals(
          Buffer.from(want.buffer, want.byteOffset, length),
        )
      ) {
        for (let i = 0; i < length; i++) {
          if (view[i] !== want[i]) {
            const off = at + i;
            fail(`the rebuilt ROM differs from its plan at ${formatAddress(off)}`, {
              offset: formatAddress(off),
            });
          }
        }
      }
      // A chunk no piece lies in is expected to be its source bytes as read (`want` is that view), and
      // was just found equal to them: none of its bytes changed, nothing to attribute.
      if (want.buffer !== srcView.buffer) changedPrefixBytes += attributeChunk(plan, at, view, srcView);
    }
  } finally {
    // A check that fails leaves the read-ahead unawaited: its failure belongs to nobody.
    next?.catch(() => {});
  }
  if (crcs) crcs.source = sourceCrc;
  const checks = [...STREAM_CHECKS];
  await checkStructure(plan, sourceModel, output, size, readSync, checks);
  return record(plan, hash.digest('hex'), changedPrefixBytes, checks);
}

/**
 * Verification of a ROM the build has just written from `tally`'s single pass: the whole source was
 * read (the caller has checked the source file was not modified meanwhile, so every unchanged byte
 * written is a source byte), attribution and zero gaps were checked on the stream, and the written
 * file must hold the planned size and, read back, every planned piece; then the same structural checks
 * as verifyOutput. The record is the one verifyOutput gives for the same file.
 */
export async function verifyBuiltOutput(
  plan: Plan,
  sourceModel: NdsRomModel,
  tally: StreamTally,
  output: FileHandle,
  readSync: (fd: number, b: Uint8Array, o: number, l: number, p: number) => number,
  signal?: AbortSignal,
): Promise<VerificationRecord> {
  const r = plan.resolved;
  if (tally.sourceBytes !== r.source.size) {
    throw new ReMcpError('rom-changed', 'the source ROM could not be read in full during the build', {
      expectedBytes: r.source.size,
      bytesRead: tally.sourceBytes,
    });
  }
  if (tally.outputBytes !== r.output.size || tally.outputSha256 === null) {
    fail('the build did not produce the whole planned output');
  }
  const size = await checkSize(plan, output);
  const stored = new Uint8Array(
    Math.min(STREAM_CHUNK, Math.max(1, ...plan.pieces.map((p) => p.bytes.length))),
  );
  for (const p of plan.pieces) {
    for (let at = 0; at < p.bytes.length; at += stored.length) {
      throwIfCancelled(signal);
      const n = Math.min(stored.length, p.bytes.length - at);
      const { bytesRead } = await output.read(stored, 0, n, p.offset + at);
      const want = p.bytes.subarray(at, at + n);
      if (
        bytesRead !== n ||
        !Buffer.from(stored.buffer, 0, n).equals(Buffer.from(want.buffer, want.byteOffset, n))
      ) {
        fail(`the rebuilt ROM does not hold the planned bytes of ${p.owner} at ${formatAddress(p.offset)}`);
      }
    }
  }
  const checks = [...STREAM_CHECKS];
  await checkStructure(plan, sourceModel, output, size, readSync, checks);
  return record(plan, tally.outputSha256, tally.changedPrefixBytes, checks);
}

function record(
  plan: Plan,
  outputSha256: string,
  changedPrefixBytes: number,
  checks: string[],
): VerificationRecord {
  const r = plan.resolved;
  return {
    buildId: r.buildId,
    engine: r.engine,
    outputSha256,
    outputSize: r.output.size,
    changedPrefixBytes,
    checks,
    rebuildSemanticsVerified: true,
  };
}

/** Reparse and structural checks on the output file; appends the names of the checks passed. */
async function checkStructure(
  plan: Plan,
  sourceModel: NdsRomModel,
  output: FileHandle,
  size: number,
  readSync: (fd: number, b: Uint8Array, o: number, l: number, p: number) => number,
  checks: string[],
): Promise<void> {
  const r = plan.resolved;
  // The output reparses, and its structures are the planned ones.
  let model: NdsRomModel;
  try {
    model = parseNdsRom(fdSource(output.fd, size, readSync));
  } catch (error) {
    fail(`the rebuilt ROM does not parse: ${(error as Error).message}`);
  }
  checks.push('reparse');
  const ranges = model.files.map((f) => ({ start: formatAddress(f.start), end: formatAddress(f.end) }));
  if (JSON.stringify(ranges) !== JSON.stringify(r.fat))
    fail('the rebuilt FAT ranges are not the planned ones');
  checks.push('fat-ranges');
  for (const f of sourceModel.files) {
    if (model.files[f.fileId]?.path !== f.path) fail(`file ${f.fileId} lost its NitroFS identity`);
  }
  for (const op of r.operations) {
    if (op.op === 'add-file' && model.files[op.fileId!]?.path !== op.path) {
      fail(`operation "${op.id}": ${op.path} is not file ${op.fileId} in the rebuilt ROM`);
    }
  }
  checks.push('nitrofs-identities');
  // Overlay records: the source's, except the compressed size, flags, RAM and BSS sizes the plan rewrites.
  const planned = new Map(r.overlayRecords.map((o) => [`${o.processor}:${o.tableIndex}`, o]));
  const overlayKey = (m: NdsRomModel, apply: boolean) =>
    JSON.stringify(
      [...m.overlays.arm9, ...m.overlays.arm7].map((o) => {
        const p = apply ? planned.get(`${o.processor}:${o.tableIndex}`) : undefined;
        return [
          o.processor,
          o.id,
          o.ramAddress,
          p?.ramSize ?? o.ramSize,
          p?.bssSize ?? o.bssSize,
          o.staticInit,
          o.fileId,
          p?.compressedSize ?? o.compressedSize,
          p?.flags ?? o.flags,
        ];
      }),
    );
  if (overlayKey(model, false) !== overlayKey(sourceModel, true))
    fail('the rebuilt overlay records are not the planned ones');
  // Decoded-overlay runtime identity: the stored bytes decode to exactly the approved image.
  for (const op of r.operations) {
    if (op.decodedSha256 === undefined) continue;
    const rec = r.overlayRecords.find((o) => model.overlays[o.processor][o.tableIndex]?.fileId === op.fileId);
    const ov = rec ? model.overlays[rec.processor][rec.tableIndex]! : undefined;
    if (!ov) fail(`operation "${op.id}": its overlay is missing from the rebuilt ROM`);
    const stored = new Uint8Array(ov.file.end - ov.file.start);
    await output.read(stored, 0, stored.length, ov.file.start);
    let image: Uint8Array;
    try {
      image = ov.compressed ? blzDecode(stored) : stored;
    } catch (error) {
      fail(`operation "${op.id}": the stored overlay does not decode: ${(error as Error).message}`);
    }
    if (
      createHash('sha256').update(image).digest('hex') !== op.decodedSha256 ||
      image.length !== ov.ramSize
    ) {
      fail(`operation "${op.id}": the stored overlay does not decode to the approved image`);
    }
  }
  checks.push('decoded-overlay-identity');
  checks.push('overlay-metadata');
  if (model.header.headerCrc.ok !== sourceModel.header.headerCrc.ok && !model.header.headerCrc.ok) {
    fail('the rebuilt header CRC is wrong');
  }
  if (
    model.arm9.entryAddress !== sourceModel.arm9.entryAddress ||
    model.arm7.entryAddress !== sourceModel.arm7.entryAddress
  ) {
    fail('an entry address changed');
  }
  checks.push('header');
  for (const op of r.operations) {
    const start = Number.parseInt(op.output.start, 16);
    const h = createHash('sha256');
    const buf = new Uint8Array(Math.min(STREAM_CHUNK, Math.max(op.length, 1)));
    for (let at = 0; at < op.length; at += buf.length) {
      const n = Math.min(buf.length, op.length - at);
      await output.read(buf, 0, n, start + at);
      h.update(buf.subarray(0, n));
    }
    if (h.digest('hex') !== op.afterSha256)
      fail(`operation "${op.id}": its output bytes have another SHA-256`);
  }
  checks.push('operations');
}
