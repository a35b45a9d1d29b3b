// The check of a build's patches, made while the source streams past. The BPS patch's actions do not
// depend on the two CRC-32s in its footer, so they are made before the stream from the plan alone (the
// CRC fields zero) and decoded with the decoder nds_patch_apply uses as the stream reads the source:
// each source read the decoder asks for is answered from the chunk the stream holds, nothing is read
// twice, and every byte of its result is the planned output (bytes the plan leaves as the source,
// emitted where they were read, are those source bytes by construction; every other result byte is
// compared). Once the stream has ended and its CRC-32s are known, the patches are made whole and must
// differ from the checked one in the footer alone, which must name the source's CRC-32 as read and the
// output's as the build took it from the bytes it wrote. The IPS patch is applied to the ranges it,
// the plan and the grown part touch and compared there (elsewhere both are the source).
import { ReMcpError } from '../core/errors.js';
import {
  BPS_COPY_PIECE,
  type BpsHeader,
  decodeBps,
  PatchError,
  readBpsHeader,
} from '../formats/patch/bps.js';
import { applyIpsRecords, ipsTargetSize, readIps } from '../formats/patch/ips.js';
import type { PatchDecoder, PatchRequest } from '../formats/patch/requests.js';
import { makePatches, type PatchSet, type SourceBytes } from './patches.js';
import type { Plan } from './plan/index.js';
import { expectedFromSource, touches } from './stream.js';

/** The largest target a patch check decodes (a DS ROM is 512 MiB at most). */
const MAX_TARGET = 512 * 1024 * 1024;
/** Bytes the IPS check reads, builds and compares at a time. */
const PIECE = 1 << 20;
/** Bytes of the target kept for the decoder's copies of its own earlier output. */
const WINDOW = 1 << 16;
/** The footer of a BPS patch: source CRC-32, target CRC-32, the patch's own CRC-32. */
const BPS_FOOTER = 12;

function fail(what: string, why: string): never {
  throw new ReMcpError('verification-failed', `the ${what} patch does not rebuild the output: ${why}`);
}

/**
 * The planned output at [position, position + length): the source bytes there (zeros past its end)
 * with the plan's pieces laid over them. The build's stream hashed exactly these bytes as it wrote
 * them (output.sha256), so a patch result equal to them byte for byte has the output's SHA-256.
 */
function plannedOutput(plan: Plan, source: SourceBytes, position: number, length: number): Uint8Array {
  const sourceSize = plan.resolved.source.size;
  const read = position < sourceSize ? source(position, Math.min(length, sourceSize - position)) : NO_BYTES;
  return expectedFromSource(plan, position, read, length);
}

const NO_BYTES = new Uint8Array(0);

const same = (a: Uint8Array, b: Uint8Array) =>
  Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));

type SourceRequest = Extract<PatchRequest, { kind: 'source' }>;

/**
 * The check, fed the source chunk by chunk, in order (feed), then finished with the CRC-32s (finish).
 * The decoder is suspended between chunks only at a source request past the chunk fed last, so an
 * answer it holds never outlives the chunk it was cut from. A request that starts in one chunk and
 * ends in the next is answered from a copy of the first chunk's tail (at most BPS_COPY_PIECE bytes);
 * one before the chunk fed (a copy from earlier source) and those after the last chunk are read.
 */
export class StreamedPatchCheck {
  private readonly body: PatchSet;
  private readonly decoder: PatchDecoder<BpsHeader>;
  private header: BpsHeader | null = null;
  private waiting: SourceRequest | null = null;
  /**
   * The waiting request's bytes from the chunks before (its first part), when it straddles chunks
   * (carrying); one buffer of BPS_COPY_PIECE bytes, the largest request, reused.
   */
  private carried: Uint8Array | null = null;
  private carrying = false;
  private readonly window = new Uint8Array(WINDOW);
  private written = 0;
  private lastRead: { offset: number; bytes: Uint8Array } | null = null;
  private fed = 0;

  /** `source` reads what no chunk answers (and the few source bytes a compared result needs). */
  constructor(
    private readonly plan: Plan,
    private readonly source: SourceBytes,
  ) {
    this.body = makePatches(plan, { source: 0, output: 0 }, source);
    // The footer's CRC-32s are zero here and are checked in finish(); the target's is not taken.
    this.decoder = decodeBps(this.body.bps, { size: plan.resolved.source.size, crc32: 0 }, MAX_TARGET, null);
  }

  /** The source bytes at [at, at + chunk.length), the chunk after the one fed before. */
  feed(at: number, chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    if (at !== this.fed)
      throw new ReMcpError('internal-error', `the patch check was fed ${at}, not ${this.fed}`);
    this.fed = at + chunk.length;
    this.run(at, chunk);
  }

  /**
   * The patches of the build whose source and output have these CRC-32s, once every source chunk
   * was fed: the BPS patch's actions checked as they were decoded, its footer here; the IPS patch.
   */
  finish(crcs: { source: number; output: number }): PatchSet {
    if (this.fed !== this.plan.resolved.source.size)
      throw new ReMcpError('internal-error', `the patch check was fed ${this.fed} source bytes`);
    this.run(this.fed, new Uint8Array(0));
    if (this.header === null) throw new ReMcpError('internal-error', 'the patch check did not end');
    if (this.written !== this.plan.resolved.output.size) fail('BPS', `its result is ${this.written} bytes`);
    const made = makePatches(this.plan, crcs, this.source);
    const checked = this.body.bps;
    const bps = made.bps;
    const footer = bps.length - BPS_FOOTER;
    if (bps.length !== checked.length || !same(bps.subarray(0, footer), checked.subarray(0, footer)))
      fail('BPS', 'its actions are not those checked');
    try {
      const h = readBpsHeader(bps);
      if (h.sourceCrc32 !== crcs.source >>> 0) fail('BPS', 'it names another source CRC-32');
      if (h.targetCrc32 !== crcs.output >>> 0) fail('BPS', 'it names another target CRC-32');
    } catch (error) {
      if (error instanceof PatchError) fail('BPS', error.message);
      throw error;
    }
    if (made.ips) checkIps(made.ips, this.plan, this.source);
    return made;
  }

  /** Runs the decoder while the chunk at `at` (the last one when empty: everything is read) answers it. */
  private run(at: number, chunk: Uint8Array): void {
    const last = chunk.length === 0;
    const end = at + chunk.length;
    let answer: Uint8Array | undefined;
    if (this.waiting) {
      const q = this.waiting;
      if (!last && q.offset + q.length > end) {
        this.carry(q, at, chunk);
        return;
      }
      answer = this.answer(q, at, chunk);
      this.waiting = null;
    }
    try {
      for (;;) {
        const r = this.decoder.next(answer);
        answer = undefined;
        if (r.done) {
          this.header = r.value;
          return;
        }
        const q = r.value;
        if (q.kind === 'source') {
          if (!last && q.offset + q.length > end && q.offset >= at) {
            this.waiting = q;
            this.carry(q, at, chunk);
            return;
          }
          answer = this.answer(q, at, chunk);
        } else if (q.kind === 'target') answer = this.target(q.offset, q.length);
        else if (q.kind === 'emit') this.emit(q.bytes);
      }
    } catch (error) {
      if (error instanceof PatchError) fail('BPS', error.message);
      throw error;
    }
  }

  /** Keeps the part of the waiting request that lies in this chunk (its buffer is not ours to keep). */
  private carry(q: SourceRequest, at: number, chunk: Uint8Array): void {
    const from = Math.max(q.offset, at);
    const to = Math.min(q.offset + q.length, at + chunk.length);
    if (to <= from) return;
    this.carried ??= new Uint8Array(BPS_COPY_PIECE);
    this.carried.set(chunk.subarray(from - at, to - at), from - q.offset);
    this.carrying = true;
  }

  /** The bytes of a source request: cut from the chunk, put together with what was carried, or read. */
  private answer(q: SourceRequest, at: number, chunk: Uint8Array): Uint8Array {
    const end = q.offset + q.length;
    let bytes: Uint8Array;
    if (q.offset >= at && end <= at + chunk.length) bytes = chunk.subarray(q.offset - at, end - at);
    else if (this.carrying && q.offset < at && end > at && end <= at + chunk.length) {
      // The carried bytes are joined in place (the buffer is free again once a later request is answered).
      bytes = this.carried!.subarray(0, q.length);
      bytes.set(chunk.subarray(0, end - at), at - q.offset);
    } else bytes = this.source(q.offset, q.length).slice();
    this.carrying = false;
    this.lastRead = { offset: q.offset, bytes };
    return bytes;
  }

  /** Target bytes emitted before, from the window (the decoder's copies reach back a few bytes). */
  private target(offset: number, length: number): Uint8Array {
    if (this.written - offset > WINDOW || length > this.written - offset)
      throw new PatchError('malformed', 'a target copy reaches past the checking window');
    const at = offset % WINDOW;
    const first = Math.min(length, WINDOW - at);
    const out = new Uint8Array(length);
    out.set(this.window.subarray(at, at + first));
    out.set(this.window.subarray(0, length - first), first);
    return out;
  }

  private emit(bytes: Uint8Array): void {
    const written = this.written;
    const plan = this.plan;
    if (written + bytes.length > plan.resolved.output.size)
      fail('BPS', 'its result is longer than the output');
    const read = this.lastRead;
    // Source bytes emitted unchanged where they were read, where no piece lies: the planned output
    // there by construction (both are those source bytes).
    const asRead =
      read !== null &&
      read.bytes === bytes &&
      read.offset === written &&
      written + bytes.length <= plan.resolved.source.size &&
      !touches(plan.pieces, written, bytes.length);
    if (!asRead && !same(bytes, plannedOutput(plan, this.source, written, bytes.length)))
      fail('BPS', `its result differs from the output within ${bytes.length} bytes at ${written}`);
    const tail = bytes.subarray(Math.max(0, bytes.length - WINDOW));
    const at = (written + bytes.length - tail.length) % WINDOW;
    const first = Math.min(tail.length, WINDOW - at);
    this.window.set(tail.subarray(0, first), at);
    this.window.set(tail.subarray(first), 0);
    this.written = written + bytes.length;
  }
}

/**
 * Applies the IPS patch where it, the plan's pieces or the grown part lie and compares the result with
 * the planned output there (elsewhere both are the source); its result must be the output's size.
 */
function checkIps(patch: Uint8Array, plan: Plan, source: SourceBytes): void {
  const r = plan.resolved;
  const ips = readIps(patch, Number.MAX_SAFE_INTEGER);
  const size = ipsTargetSize(ips, r.source.size);
  if (size !== r.output.size) fail('IPS', `its result is ${size} bytes`);
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
