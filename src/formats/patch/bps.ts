// BPS patches (byuu's format, the one ROM hackers share): "BPS1", the source, target and metadata
// sizes as variable-length numbers, the metadata, a list of actions that build the target front to
// back, then the CRC-32 of the source, of the target and of the patch itself.
// Actions: SourceRead (copy the source at the same offset), TargetRead (bytes in the patch),
// SourceCopy and TargetCopy (copy from a signed-relative cursor in the source or the target written so far).
//
// encodeBps writes a patch from what a rebuild changes: the source, with non-overlapping byte ranges
// laid over it, zero-extended (or cut) to the target size. Unchanged runs are SourceRead, changed
// ranges TargetRead, and zeros past the source's end one zero byte repeated by a TargetCopy of the
// byte before it.
// decodeBps decodes any well-formed BPS patch, sequentially, as requests its driver answers
// (requests.ts): the target comes out front to back and is never held; source bytes and earlier target
// bytes (TargetCopy) are asked for. applyBps drives it from memory. Every size, count and offset is
// checked before it is used; CRCs are checked (patch before, target after).
import { crc32 } from '../crc32.js';
import { putU32, u32 } from '../le.js';
import { answered, PAUSE, type PatchDecoder, type PatchIo, runDecoder } from './requests.js';

export class PatchError extends Error {
  constructor(
    /** malformed: not a patch of this format; mismatch: a CRC or size says it is not for these bytes. */
    readonly kind: 'malformed' | 'mismatch',
    message: string,
  ) {
    super(message);
  }
}

const MAGIC = [0x42, 0x50, 0x53, 0x31]; // "BPS1"

/** A changed byte range of the target. */
export interface PatchChange {
  offset: number;
  bytes: Uint8Array;
}

interface BpsInput {
  sourceSize: number;
  targetSize: number;
  sourceCrc32: number;
  targetCrc32: number;
  /** Sorted by offset, non-overlapping, inside the target. */
  changes: readonly PatchChange[];
  metadata?: string;
}

/** Appends byte arrays and counts them. */
class Out {
  private readonly parts: Uint8Array[] = [];
  private current: number[] = [];
  size = 0;

  byte(b: number): void {
    this.current.push(b & 0xff);
    this.size++;
    if (this.current.length >= 4096) this.flush();
  }

  bytes(b: Uint8Array): void {
    this.flush();
    this.parts.push(b);
    this.size += b.length;
  }

  /** BPS's number: 7 bits a byte, low first, the last marked by bit 7, each continuation minus one. */
  number(n: number): void {
    let data = n;
    for (;;) {
      const x = data % 128;
      data = Math.floor(data / 128);
      if (data === 0) {
        this.byte(0x80 | x);
        return;
      }
      this.byte(x);
      data -= 1;
    }
  }

  u32(v: number): void {
    for (let i = 0; i < 4; i++) this.byte((v >>> (8 * i)) & 0xff);
  }

  private flush(): void {
    if (this.current.length > 0) this.parts.push(Uint8Array.from(this.current));
    this.current = [];
  }

  done(): Uint8Array {
    this.flush();
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

const SOURCE_READ = 0;
const TARGET_READ = 1;
const SOURCE_COPY = 2;
const TARGET_COPY = 3;

/** Writes a BPS patch turning the source into the target described by `input`. */
export function encodeBps(input: BpsInput): Uint8Array {
  const out = new Out();
  for (const b of MAGIC) out.byte(b);
  out.number(input.sourceSize);
  out.number(input.targetSize);
  const metadata = new TextEncoder().encode(input.metadata ?? '');
  out.number(metadata.length);
  out.bytes(metadata);
  const action = (command: number, length: number) => out.number((length - 1) * 4 + command);
  // The target cursor TargetCopy moves from (BPS keeps it between actions).
  let targetCursor = 0;
  let at = 0;
  const gap = (end: number) => {
    const fromSource = Math.min(end, input.sourceSize) - at;
    if (fromSource > 0) {
      action(SOURCE_READ, fromSource);
      at += fromSource;
    }
    if (at >= end) return;
    // Zeros past the source: one written, the rest copied from the byte before (an overlapping copy).
    action(TARGET_READ, 1);
    out.byte(0);
    at += 1;
    const rest = end - at;
    if (rest > 0) {
      const delta = at - 1 - targetCursor;
      action(TARGET_COPY, rest);
      out.number(Math.abs(delta) * 2 + (delta < 0 ? 1 : 0));
      targetCursor = at - 1 + rest;
      at += rest;
    }
  };
  for (const c of input.changes) {
    if (c.offset < at || c.offset + c.bytes.length > input.targetSize)
      throw new RangeError('BPS changes must be sorted, non-overlapping and inside the target');
    if (c.bytes.length === 0) continue;
    gap(c.offset);
    action(TARGET_READ, c.bytes.length);
    out.bytes(c.bytes);
    at += c.bytes.length;
  }
  gap(input.targetSize);
  out.u32(input.sourceCrc32);
  out.u32(input.targetCrc32);
  const body = out.done();
  const full = new Uint8Array(body.length + 4);
  full.set(body);
  putU32(full, body.length, crc32(body));
  return full;
}

export interface BpsHeader {
  sourceSize: number;
  targetSize: number;
  metadata: string;
  sourceCrc32: number;
  targetCrc32: number;
  /** Where the actions start and end (the three CRCs follow them). */
  actionsStart: number;
  actionsEnd: number;
}

/** Reads a BPS number at `at`; refuses one that runs past `end` or needs more than 8 bytes (about 2^56). */
function readNumber(p: Uint8Array, at: { i: number }, end: number): number {
  let data = 0;
  let shift = 1;
  for (;;) {
    if (at.i >= end) throw new PatchError('malformed', 'the BPS patch ends inside a number');
    const x = p[at.i++]!;
    data += (x & 0x7f) * shift;
    if (x & 0x80) break;
    shift *= 128;
    data += shift;
    if (shift > 2 ** 49) throw new PatchError('malformed', 'a BPS number is too large');
  }
  return data;
}

/** The header and footer of a BPS patch, after its own CRC is checked. */
export function readBpsHeader(patch: Uint8Array): BpsHeader {
  if (patch.length < MAGIC.length + 3 + 12 || !MAGIC.every((b, i) => patch[i] === b))
    throw new PatchError('malformed', 'not a BPS patch (no BPS1 header)');
  const end = patch.length - 12;
  const stored = u32(patch, patch.length - 4);
  if (crc32(patch.subarray(0, patch.length - 4)) !== stored)
    throw new PatchError('mismatch', 'the BPS patch is damaged (its own CRC-32 does not match)');
  const at = { i: MAGIC.length };
  const sourceSize = readNumber(patch, at, end);
  const targetSize = readNumber(patch, at, end);
  const metadataSize = readNumber(patch, at, end);
  if (metadataSize > end - at.i) throw new PatchError('malformed', 'the BPS metadata runs past the patch');
  const metadata = new TextDecoder().decode(patch.subarray(at.i, at.i + metadataSize));
  at.i += metadataSize;
  return {
    sourceSize,
    targetSize,
    metadata,
    sourceCrc32: u32(patch, end),
    targetCrc32: u32(patch, end + 4),
    actionsStart: at.i,
    actionsEnd: end,
  };
}
/**
 * How a decoder takes the target's CRC-32: a CRC-32 function (the same checksum; a caller may pass a
 * faster one), or null when the caller knows the target's CRC-32 otherwise and compares it itself.
 */
type TargetCrc = ((bytes: Uint8Array, crc?: number) => number) | null;

/** How applyBps reads the source and earlier target bytes and hands out the target (PatchIo). */
type BpsApplyIo = PatchIo;

/** Largest piece a copy action is carried out in (bounded memory per step; at most this is asked at once). */
export const BPS_COPY_PIECE = 1 << 20;
/** Emits shorter than this are gathered into one buffer of STAGE_BYTES before they go out. */
const SMALL_EMIT = 512;
const STAGE_BYTES = 64 * 1024;
/** Actions carried out between two pauses of decodeBps (and at most BPS_COPY_PIECE bytes each). */
const STEP_ACTIONS = 8192;
const EMPTY: Uint8Array = new Uint8Array(0);

/**
 * Applies `patch` to a source of `source.size` bytes whose CRC-32 is `source.crc32`, from memory: the
 * target comes out through `io.emit`; returns the header. Refuses (PatchError) what decodeBps refuses.
 */
export function applyBps(
  patch: Uint8Array,
  source: { size: number; crc32: number },
  io: BpsApplyIo,
  maxTarget: number,
  /** The CRC-32 function (the same checksum; a caller may pass a faster one). */
  crc: TargetCrc = crc32,
): BpsHeader {
  return runDecoder(decodeBps(patch, source, maxTarget, crc), io);
}

/**
 * Decodes `patch` against a source of `source.size` bytes whose CRC-32 is `source.crc32`, front to back,
 * as requests (formats/patch/requests.ts): the target is emitted in order and never held; source bytes
 * and earlier target bytes (TargetCopy) are asked for, at most BPS_COPY_PIECE at once; a pause follows
 * every STEP_ACTIONS actions and every copy piece. Short emits are gathered (a 1-byte action costs no
 * CRC call and no emit of its own). Returns the header. Refuses (PatchError) a damaged patch, one for
 * another source, an action past either end, and a target whose size or CRC-32 is not the patch's —
 * the last only at the end, after everything was emitted: a driver writing the emits must discard
 * them when the decoder throws. `maxTarget` bounds the target. With `crc` null the target's CRC-32 is
 * not taken: the caller compares the header's with the CRC-32 of the target it knows otherwise.
 */
export function* decodeBps(
  patch: Uint8Array,
  source: { size: number; crc32: number },
  maxTarget: number,
  crc: TargetCrc = crc32,
): PatchDecoder<BpsHeader> {
  const h = readBpsHeader(patch);
  if (h.sourceSize !== source.size)
    throw new PatchError(
      'mismatch',
      `the BPS patch is for a ${h.sourceSize}-byte source; this one has ${source.size} bytes`,
    );
  if (h.sourceCrc32 !== source.crc32)
    throw new PatchError('mismatch', 'the BPS patch is for another source (its CRC-32 differs)');
  if (h.targetSize > maxTarget)
    throw new PatchError('mismatch', `the BPS target is ${h.targetSize} bytes, more than ${maxTarget}`);
  const at = { i: h.actionsStart };
  const o = new BpsOutput(crc);
  let sourceCursor = 0;
  let targetCursor = 0;
  let actions = 0;
  const relative = (cursor: number, limit: number, what: string) => {
    const n = readNumber(patch, at, h.actionsEnd);
    const next = cursor + (n % 2 === 1 ? -1 : 1) * Math.floor(n / 2);
    if (next < 0 || next >= limit) throw new PatchError('malformed', `a BPS ${what} copy starts outside it`);
    return next;
  };
  while (at.i < h.actionsEnd) {
    if (++actions % STEP_ACTIONS === 0) yield PAUSE;
    const n = readNumber(patch, at, h.actionsEnd);
    const command = n % 4;
    const length = Math.floor(n / 4) + 1;
    if (length > h.targetSize - o.out)
      throw new PatchError('malformed', 'a BPS action writes past the end of the target');
    switch (command) {
      case SOURCE_READ:
        if (o.out + length > h.sourceSize)
          throw new PatchError('malformed', 'a BPS source read runs past the end of the source');
        yield* o.copySource(o.out, length);
        break;
      case TARGET_READ:
        if (length > h.actionsEnd - at.i)
          throw new PatchError('malformed', 'a BPS target read runs past the patch');
        {
          const bytes = patch.subarray(at.i, at.i + length);
          if (!o.stageSmall(bytes)) yield* o.emit(bytes);
        }
        at.i += length;
        break;
      case SOURCE_COPY: {
        sourceCursor = relative(sourceCursor, h.sourceSize, 'source');
        if (sourceCursor + length > h.sourceSize)
          throw new PatchError('malformed', 'a BPS source copy runs past the end of the source');
        yield* o.copySource(sourceCursor, length);
        sourceCursor += length;
        break;
      }
      default: {
        targetCursor = relative(targetCursor, Math.max(1, o.out), 'target');
        if (targetCursor >= o.out)
          throw new PatchError('malformed', 'a BPS target copy starts at unwritten bytes');
        yield* o.copyTarget(targetCursor, length);
        targetCursor += length;
      }
    }
  }
  yield* o.flush();
  if (o.out !== h.targetSize)
    throw new PatchError('malformed', `the BPS actions make ${o.out} bytes; the header says ${h.targetSize}`);
  if (crc !== null && o.crc32 !== h.targetCrc32)
    throw new PatchError('mismatch', 'the patched result does not have the CRC-32 the BPS patch names');
  return h;
}

/**
 * The target as decodeBps makes it: its bytes emitted in order (short ones gathered first), its CRC-32,
 * and the source and earlier target bytes it copies asked for piece by piece (the last source answer
 * held, so reads inside it are not asked for again).
 */
class BpsOutput {
  /** Target bytes made, the staged ones included (the driver has received out - staged). */
  out = 0;
  /** The CRC-32 of the bytes emitted so far. */
  crc32 = 0;
  private readonly stage = new Uint8Array(STAGE_BYTES);
  private staged = 0;
  // The last source answer and where it starts: reads inside it are not asked for again.
  private held = EMPTY;
  private heldAt = 0;

  constructor(private readonly crc: TargetCrc) {}

  /** Stages a short emit; false when `bytes` must go out through emit(). */
  stageSmall(bytes: Uint8Array): boolean {
    if (bytes.length >= SMALL_EMIT || this.staged + bytes.length > STAGE_BYTES) return false;
    this.stage.set(bytes, this.staged);
    this.staged += bytes.length;
    this.out += bytes.length;
    return true;
  }

  *flush(): PatchDecoder<void> {
    if (this.staged === 0) return;
    const bytes = this.stage.subarray(0, this.staged);
    if (this.crc) this.crc32 = this.crc(bytes, this.crc32);
    yield { kind: 'emit', offset: this.out - this.staged, bytes };
    this.staged = 0;
  }

  *emit(bytes: Uint8Array): PatchDecoder<void> {
    yield* this.flush();
    if (this.stageSmall(bytes)) return;
    if (this.crc) this.crc32 = this.crc(bytes, this.crc32);
    yield { kind: 'emit', offset: this.out, bytes };
    this.out += bytes.length;
  }

  /** Source bytes already held, or null. */
  private heldSource(offset: number, length: number): Uint8Array | null {
    if (offset < this.heldAt || offset + length > this.heldAt + this.held.length) return null;
    // The answer itself when it is exactly what is read (a caller may recognise its own buffer).
    return offset === this.heldAt && length === this.held.length
      ? this.held
      : this.held.subarray(offset - this.heldAt, offset - this.heldAt + length);
  }

  private *askSource(offset: number, length: number): PatchDecoder<Uint8Array> {
    this.held = answered(yield { kind: 'source', offset, length }, length, false);
    this.heldAt = offset;
    return this.heldSource(offset, length)!;
  }

  private *readTarget(offset: number, length: number): PatchDecoder<Uint8Array> {
    yield* this.flush();
    return answered(yield { kind: 'target', offset, length }, length, true);
  }

  /**
   * Emits `length` source bytes from `offset`, in pieces of at most BPS_COPY_PIECE that never cross a
   * multiple of BPS_COPY_PIECE in the source (a reader that holds the source in chunks of a multiple
   * of it answers each piece from one chunk); a pause after each piece that reaches such a multiple.
   */
  *copySource(offset: number, length: number): PatchDecoder<void> {
    for (let done = 0; done < length; ) {
      const at = offset + done;
      const k = Math.min(BPS_COPY_PIECE - (at % BPS_COPY_PIECE), length - done);
      const bytes = this.heldSource(at, k) ?? (yield* this.askSource(at, k));
      if (!this.stageSmall(bytes)) yield* this.emit(bytes);
      done += k;
      if ((at + k) % BPS_COPY_PIECE === 0) yield PAUSE;
    }
  }

  /** Emits `length` bytes copied from the target at `cursor` (before out; the copy may overlap what it makes). */
  *copyTarget(cursor: number, length: number): PatchDecoder<void> {
    const distance = this.out - cursor;
    if (distance >= Math.min(length, BPS_COPY_PIECE)) {
      // Every piece reads bytes already written (copied: the answer may be reused by the emit).
      for (let done = 0; done < length; ) {
        const k = Math.min(BPS_COPY_PIECE, length - done, distance);
        yield* this.emit((yield* this.readTarget(cursor + done, k)).slice());
        done += k;
        if (k === BPS_COPY_PIECE) yield PAUSE;
      }
      return;
    }
    // An overlapping copy repeats the `distance` bytes before the cursor: a whole number of
    // repeats a piece, so each piece starts on the pattern's first byte (no more repeats than
    // the copy needs: a short copy costs a short tile).
    const repeats = Math.min(Math.floor(BPS_COPY_PIECE / distance), Math.ceil(length / distance));
    const tile = new Uint8Array(repeats * distance);
    tile.set(yield* this.readTarget(cursor, distance));
    for (let filled = distance; filled < tile.length; filled *= 2)
      tile.copyWithin(filled, 0, Math.min(filled, tile.length - filled));
    for (let done = 0; done < length; ) {
      const k = Math.min(tile.length, length - done);
      yield* this.emit(tile.subarray(0, k));
      done += k;
      if (k === tile.length) yield PAUSE;
    }
  }
}
