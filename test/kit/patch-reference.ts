// Slow, obvious reference codecs for the BPS and IPS patch formats, written from the format
// descriptions alone (nothing here comes from src/formats/patch): a byte-at-a-time BPS applier with
// its own bit-at-a-time CRC-32, an IPS applier (runs and truncation), a naive BPS writer that uses
// only SourceRead/TargetRead, a builder for hand-made BPS action lists, random action lists, and
// random change sets.

/** CRC-32 (reflected 0xEDB88320), one bit at a time: no table shared with the code under test. */
export function referenceCrc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) {
    c ^= bytes[i]!;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

const BPS_MAGIC = [0x42, 0x50, 0x53, 0x31]; // BPS1
const IPS_MAGIC = [0x50, 0x41, 0x54, 0x43, 0x48]; // PATCH

const readU32le = (p: Uint8Array, at: number) =>
  p[at]! + p[at + 1]! * 0x100 + p[at + 2]! * 0x10000 + p[at + 3]! * 0x1000000;

/** BPS's variable-length number as bytes. */
export function bpsNumber(value: number): number[] {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`not a BPS number: ${value}`);
  const out: number[] = [];
  let v = BigInt(value);
  for (;;) {
    const low = Number(v & 0x7fn);
    v >>= 7n;
    if (v === 0n) {
      out.push(0x80 | low);
      return out;
    }
    out.push(low);
    v -= 1n;
  }
}

/** BPS's signed relative offset (bit 0 = negative, the rest the magnitude) as a number. */
export const bpsRelative = (delta: number): number => Math.abs(delta) * 2 + (delta < 0 ? 1 : 0);

/**
 * Applies a BPS patch to `source` in memory, one byte at a time. Throws Error on anything wrong: the
 * header, any of the three CRCs, a size, a read outside the source, the written target or the patch.
 */
export function referenceApplyBps(patch: Uint8Array, source: Uint8Array, maxTarget = 2 ** 28): Uint8Array {
  if (patch.length < BPS_MAGIC.length + 12) throw new Error('too short for a BPS patch');
  for (let i = 0; i < BPS_MAGIC.length; i++) if (patch[i] !== BPS_MAGIC[i]) throw new Error('no BPS1 magic');
  const footer = patch.length - 12;
  if (referenceCrc32(patch.subarray(0, patch.length - 4)) !== readU32le(patch, patch.length - 4))
    throw new Error('patch CRC-32 differs');
  let pos = BPS_MAGIC.length;
  const byte = (): number => {
    if (pos >= footer) throw new Error('read past the actions');
    return patch[pos++]!;
  };
  const number = (): number => {
    let data = 0n;
    let shift = 1n;
    for (;;) {
      const x = byte();
      data += BigInt(x & 0x7f) * shift;
      if (data > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error('number too large');
      if (x & 0x80) return Number(data);
      shift <<= 7n;
      data += shift;
    }
  };
  const sourceSize = number();
  const targetSize = number();
  const metadataSize = number();
  for (let i = 0; i < metadataSize; i++) byte();
  if (sourceSize !== source.length) throw new Error('source size differs');
  if (referenceCrc32(source) !== readU32le(patch, footer)) throw new Error('source CRC-32 differs');
  if (targetSize > maxTarget) throw new Error('target too large');
  const target = new Uint8Array(targetSize);
  let out = 0;
  let sourceCursor = 0;
  let targetCursor = 0;
  const put = (b: number) => {
    if (out >= targetSize) throw new Error('writes past the target size');
    target[out++] = b;
  };
  while (pos < footer) {
    const n = number();
    const command = n % 4;
    const length = Math.floor(n / 4) + 1;
    if (length > targetSize - out) throw new Error('action longer than what remains of the target');
    if (command === 0) {
      for (let i = 0; i < length; i++) {
        if (out >= source.length) throw new Error('SourceRead past the source');
        put(source[out]!);
      }
    } else if (command === 1) {
      for (let i = 0; i < length; i++) put(byte());
    } else if (command === 2) {
      const d = number();
      sourceCursor += (d % 2 === 1 ? -1 : 1) * Math.floor(d / 2);
      for (let i = 0; i < length; i++) {
        if (sourceCursor < 0 || sourceCursor >= source.length)
          throw new Error('SourceCopy outside the source');
        put(source[sourceCursor++]!);
      }
    } else {
      const d = number();
      targetCursor += (d % 2 === 1 ? -1 : 1) * Math.floor(d / 2);
      for (let i = 0; i < length; i++) {
        if (targetCursor < 0 || targetCursor >= out) throw new Error('TargetCopy outside the written target');
        put(target[targetCursor++]!);
      }
    }
  }
  if (out !== targetSize) throw new Error('actions end before the target size');
  if (referenceCrc32(target) !== readU32le(patch, footer + 4)) throw new Error('target CRC-32 differs');
  return target;
}

/** Writes BPS patches action by action (for hand-built and randomly built action lists). */
export class BpsBuilder {
  readonly bytes: number[] = [...BPS_MAGIC];

  constructor(sourceSize: number, targetSize: number, metadata: ArrayLike<number> = []) {
    this.number(sourceSize).number(targetSize).number(metadata.length).raw(metadata);
  }

  number(n: number): this {
    this.bytes.push(...bpsNumber(n));
    return this;
  }

  raw(bytes: ArrayLike<number>): this {
    for (let i = 0; i < bytes.length; i++) this.bytes.push(bytes[i]! & 0xff);
    return this;
  }

  sourceRead(length: number): this {
    return this.number((length - 1) * 4);
  }

  targetRead(bytes: ArrayLike<number>): this {
    return this.number((bytes.length - 1) * 4 + 1).raw(bytes);
  }

  sourceCopy(length: number, delta: number): this {
    return this.number((length - 1) * 4 + 2).number(bpsRelative(delta));
  }

  targetCopy(length: number, delta: number): this {
    return this.number((length - 1) * 4 + 3).number(bpsRelative(delta));
  }

  /** The patch: the actions so far, the source and target CRCs, and the patch's own CRC. */
  finish(sourceCrc: number, targetCrc: number): Uint8Array {
    const body = [...this.bytes];
    for (const v of [sourceCrc, targetCrc]) for (let i = 0; i < 4; i++) body.push((v >>> (8 * i)) & 0xff);
    return sealBps(Uint8Array.from(body));
  }
}

const randomBytes = (next: () => number, n: number) => {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = (next() * 256) | 0;
  return b;
};

/**
 * A random valid action list over `source` making `targetSize` bytes (all four actions; target copies
 * half the time just behind the write cursor, so they overlap what they write, else from anywhere
 * before it; one action in five up to `longest` bytes), and the target it makes.
 */
export function randomBpsActions(
  next: () => number,
  source: Uint8Array,
  targetSize: number,
  longest = 3000,
): { patch: Uint8Array; target: Uint8Array } {
  const int = (n: number) => Math.floor(next() * n);
  const b = new BpsBuilder(source.length, targetSize, int(4) === 0 ? randomBytes(next, int(20)) : []);
  const t = new Uint8Array(targetSize);
  let out = 0;
  let sourceCursor = 0;
  let targetCursor = 0;
  while (out < targetSize) {
    const room = targetSize - out;
    const length = 1 + int(Math.min(room, int(5) === 0 ? longest : 40));
    let command = int(4);
    if (command === 0 && out + length > source.length) command = 2;
    if (command === 2 && length > source.length) command = 3;
    if (command === 3 && out === 0) command = 1;
    if (command === 0) {
      b.sourceRead(length);
      t.set(source.subarray(out, out + length), out);
    } else if (command === 1) {
      const bytes = randomBytes(next, length);
      b.targetRead(bytes);
      t.set(bytes, out);
    } else if (command === 2) {
      const from = int(source.length - length + 1);
      b.sourceCopy(length, from - sourceCursor);
      t.set(source.subarray(from, from + length), out);
      sourceCursor = from + length;
    } else {
      const from = int(2) === 0 ? out - 1 - int(Math.min(out, 8)) : int(out);
      b.targetCopy(length, from - targetCursor);
      for (let i = 0; i < length; i++) t[out + i] = t[from + i]!;
      targetCursor = from + length;
    }
    out += length;
  }
  return { patch: b.finish(referenceCrc32(source), referenceCrc32(t)), target: t };
}

/** `body` followed by its CRC-32 (little-endian): what makes a BPS patch's own checksum right. */
export function sealBps(body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + 4);
  out.set(body);
  const crc = referenceCrc32(body);
  for (let i = 0; i < 4; i++) out[body.length + i] = (crc >>> (8 * i)) & 0xff;
  return out;
}

/** A BPS patch from `source` to `target` that only uses SourceRead and TargetRead, byte by byte. */
export function referenceEncodeBpsNaive(source: Uint8Array, target: Uint8Array): Uint8Array {
  const b = new BpsBuilder(source.length, target.length);
  let i = 0;
  const same = (k: number) => k < source.length && source[k] === target[k];
  while (i < target.length) {
    let j = i;
    if (same(i)) {
      while (j < target.length && same(j)) j++;
      b.sourceRead(j - i);
    } else {
      while (j < target.length && !same(j)) j++;
      b.targetRead(target.subarray(i, j));
    }
    i = j;
  }
  return b.finish(referenceCrc32(source), referenceCrc32(target));
}

/**
 * Applies an IPS patch to `source`: records in order (a run record repeats one byte), the file grown
 * to the furthest record, then cut (or zero-extended) to the truncation size when there is one.
 * Throws Error when the patch is not well formed or the result would exceed `maxTarget`.
 */
export function referenceApplyIps(patch: Uint8Array, source: Uint8Array, maxTarget = 2 ** 26): Uint8Array {
  for (let i = 0; i < IPS_MAGIC.length; i++)
    if (patch[i] !== IPS_MAGIC[i]) throw new Error('no PATCH header');
  let pos = IPS_MAGIC.length;
  const need = (n: number) => {
    if (pos + n > patch.length) throw new Error('IPS patch ends early');
  };
  const records: { offset: number; data: Uint8Array | null; count: number; value: number }[] = [];
  let size = source.length;
  for (;;) {
    need(3);
    if (patch[pos] === 0x45 && patch[pos + 1] === 0x4f && patch[pos + 2] === 0x46) {
      pos += 3;
      break;
    }
    need(5);
    const offset = patch[pos]! * 0x10000 + patch[pos + 1]! * 0x100 + patch[pos + 2]!;
    const length = patch[pos + 3]! * 0x100 + patch[pos + 4]!;
    pos += 5;
    if (length > 0) {
      need(length);
      records.push({ offset, data: patch.subarray(pos, pos + length), count: length, value: 0 });
      pos += length;
    } else {
      need(3);
      const count = patch[pos]! * 0x100 + patch[pos + 1]!;
      if (count === 0) throw new Error('run of zero bytes');
      records.push({ offset, data: null, count, value: patch[pos + 2]! });
      pos += 3;
    }
    size = Math.max(size, offset + records[records.length - 1]!.count);
  }
  const rest = patch.length - pos;
  if (rest === 3) size = patch[pos]! * 0x10000 + patch[pos + 1]! * 0x100 + patch[pos + 2]!;
  else if (rest !== 0) throw new Error('bytes after EOF');
  if (size > maxTarget) throw new Error('target too large');
  const target = new Uint8Array(size);
  for (let i = 0; i < Math.min(size, source.length); i++) target[i] = source[i]!;
  for (const r of records)
    for (let i = 0; i < r.count; i++) {
      const at = r.offset + i;
      if (at < size) target[at] = r.data === null ? r.value : r.data[i]!;
    }
  return target;
}

/** A changed byte range (the same shape as the codecs' changes). */
export interface RefChange {
  offset: number;
  bytes: Uint8Array;
}

/** The target a change set describes: the source, the changes over it, zero-extended or cut. */
export function layChanges(
  source: Uint8Array,
  changes: readonly RefChange[],
  targetSize: number,
): Uint8Array {
  const target = new Uint8Array(targetSize);
  target.set(source.subarray(0, Math.min(targetSize, source.length)));
  for (const c of changes) target.set(c.bytes, c.offset);
  return target;
}

export interface ChangeCase {
  source: Uint8Array;
  targetSize: number;
  changes: RefChange[];
  target: Uint8Array;
}

/**
 * A random source (empty, tiny, small or up to `maxSource` bytes), a target size below, equal to or
 * above it, and sorted, non-overlapping changes: some at offset 0, some adjacent, some ending at the
 * target's last byte, some in the grown part, some repeating the bytes already there.
 */
export function randomChangeCase(next: () => number, maxSource = 300 * 1024): ChangeCase {
  const int = (n: number) => Math.floor(next() * n);
  const sizeClass = int(5);
  const sourceSize =
    sizeClass === 0
      ? 0
      : sizeClass === 1
        ? 1 + int(16)
        : sizeClass === 2
          ? 17 + int(4096)
          : int(maxSource + 1);
  const source = randomBytes(next, sourceSize);
  const shape = int(3);
  const targetSize =
    shape === 0
      ? int(sourceSize + 1)
      : shape === 1
        ? sourceSize
        : sourceSize + 1 + (int(2) === 0 ? int(64) : int(100_000));
  const changes: RefChange[] = [];
  const count = int(4) === 0 ? 0 : 1 + int(30);
  const spread = Math.max(1, Math.floor(targetSize / (count + 1)));
  let pos = int(3) === 0 ? 0 : int(spread);
  for (let k = 0; k < count && pos < targetSize; k++) {
    const length = Math.min(targetSize - pos, int(8) === 0 ? 0 : 1 + int(int(4) === 0 ? 5000 : 40));
    const kind = int(6);
    const bytes =
      kind === 0
        ? source.slice(pos, pos + length) // may be shorter past the source's end
        : kind === 1
          ? new Uint8Array(length)
          : randomBytes(next, length);
    changes.push({ offset: pos, bytes });
    pos += bytes.length + (int(4) === 0 ? 0 : int(spread));
  }
  if (int(3) === 0 && targetSize > 0) {
    // One more change that ends exactly at the target's last byte.
    const last = changes.length > 0 ? changes[changes.length - 1]! : null;
    const from = last ? last.offset + last.bytes.length : 0;
    if (from < targetSize) {
      const start = Math.max(from, targetSize - 1 - int(3000));
      changes.push({ offset: start, bytes: randomBytes(next, targetSize - start) });
    }
  }
  return { source, targetSize, changes, target: layChanges(source, changes, targetSize) };
}
