// IPS patches: "PATCH", then records (a 3-byte big-endian offset, a 2-byte size and that many bytes;
// size 0 means a run: a 2-byte count and one byte repeated), "EOF", and optionally a 3-byte size to
// cut the result to (the truncation extension Lunar IPS reads). Offsets are 24-bit: a patch can reach
// only the first 16 MiB, and a record may not start at 0x454F46 (those bytes read as "EOF").
// No checksums: an IPS patch cannot say which source it is for; applyIps checks only that it is
// well formed and that what it writes stays in bounds.
import { type PatchChange, PatchError } from './bps.js';
import { answered, PAUSE, type PatchDecoder } from './requests.js';

const HEADER = [0x50, 0x41, 0x54, 0x43, 0x48]; // "PATCH"
const FOOTER = [0x45, 0x4f, 0x46]; // "EOF"
/** Offsets must fit 24 bits. */
export const IPS_LIMIT = 0x1000000;
const EOF_OFFSET = 0x454f46;
const MAX_RECORD = 0xffff;

interface IpsInput {
  sourceSize: number;
  targetSize: number;
  /** Sorted by offset, non-overlapping, inside the target. */
  changes: readonly PatchChange[];
  /** The target byte at an offset (needed only when a record must start one byte early). */
  targetByte(offset: number): number;
}

/**
 * An IPS patch turning the source into the target (the changes laid over the source, zero-extended
 * or cut to the target size), or why IPS cannot say it.
 */
export function encodeIps(input: IpsInput): { patch: Uint8Array } | { refused: string } {
  const records: number[] = [...HEADER];
  const push = (offset: number, bytes: Uint8Array) => {
    for (let at = 0; at < bytes.length; ) {
      let start = offset + at;
      let n = Math.min(MAX_RECORD, bytes.length - at);
      let lead: number | null = null;
      if (start === EOF_OFFSET) {
        // Begin one byte earlier, with the target byte there.
        lead = input.targetByte(start - 1);
        start -= 1;
        n = Math.min(n, MAX_RECORD - 1);
      }
      records.push(start >>> 16, (start >>> 8) & 0xff, start & 0xff);
      const size = n + (lead === null ? 0 : 1);
      records.push(size >>> 8, size & 0xff);
      if (lead !== null) records.push(lead);
      for (let i = 0; i < n; i++) records.push(bytes[at + i]!);
      at += n;
    }
  };
  const zeros = (offset: number, count: number) => {
    for (let at = 0; at < count; ) {
      let start = offset + at;
      let n = Math.min(MAX_RECORD, count - at);
      if (start === EOF_OFFSET) {
        // A plain record of one zero first, then the run.
        push(start, new Uint8Array(1));
        at += 1;
        start += 1;
        n = Math.min(n, count - at);
        if (n === 0) break;
      }
      records.push(start >>> 16, (start >>> 8) & 0xff, start & 0xff, 0, 0, n >>> 8, n & 0xff, 0);
      at += n;
    }
  };
  // Bytes past the source that no change writes must become zeros: records for them too.
  let at = input.sourceSize;
  const needs: { offset: number; end: number }[] = [];
  for (const c of input.changes) {
    if (c.bytes.length > 0) needs.push({ offset: c.offset, end: c.offset + c.bytes.length });
  }
  for (const n of needs) {
    if (n.end > IPS_LIMIT)
      return {
        refused: `a change at 0x${n.offset.toString(16)} lies past the 16 MiB an IPS offset can reach`,
      };
  }
  if (input.targetSize > input.sourceSize && input.targetSize > IPS_LIMIT) {
    // Zero-filling the grown part needs records there unless changes cover it all.
    const covered = needs
      .filter((n) => n.end > input.sourceSize)
      .reduce((sum, n) => sum + n.end - Math.max(n.offset, input.sourceSize), 0);
    if (covered < input.targetSize - input.sourceSize)
      return { refused: 'the target grows past the 16 MiB an IPS offset can reach' };
  }
  for (const c of input.changes) {
    if (c.bytes.length === 0) continue;
    if (c.offset > at && at < input.targetSize) zeros(at, Math.min(c.offset, input.targetSize) - at);
    push(c.offset, c.bytes);
    at = Math.max(at, c.offset + c.bytes.length);
  }
  if (at < input.targetSize) zeros(at, input.targetSize - at);
  records.push(...FOOTER);
  if (input.targetSize < input.sourceSize) {
    if (input.targetSize >= IPS_LIMIT)
      return { refused: 'the target is cut to a size past what an IPS truncation can say' };
    records.push(input.targetSize >>> 16, (input.targetSize >>> 8) & 0xff, input.targetSize & 0xff);
  }
  return { patch: Uint8Array.from(records) };
}

/** One IPS record: `bytes` at `offset`, or `count` copies of `value`. */
export type IpsRecord =
  | { offset: number; bytes: Uint8Array }
  | { offset: number; count: number; value: number };

/** The records of an IPS patch and its truncation size (null when none). */
export function readIps(
  patch: Uint8Array,
  maxRecords: number,
): { records: IpsRecord[]; truncate: number | null } {
  if (patch.length < HEADER.length + FOOTER.length || !HEADER.every((b, i) => patch[i] === b))
    throw new PatchError('malformed', 'not an IPS patch (no PATCH header)');
  const records: IpsRecord[] = [];
  let i = HEADER.length;
  for (;;) {
    if (i + 3 > patch.length) throw new PatchError('malformed', 'the IPS patch ends without EOF');
    if (patch[i] === FOOTER[0] && patch[i + 1] === FOOTER[1] && patch[i + 2] === FOOTER[2]) {
      i += 3;
      break;
    }
    if (records.length >= maxRecords)
      throw new PatchError('malformed', `the IPS patch has more than ${maxRecords} records`);
    if (i + 5 > patch.length) throw new PatchError('malformed', 'the IPS patch ends inside a record header');
    const offset = (patch[i]! << 16) | (patch[i + 1]! << 8) | patch[i + 2]!;
    const size = (patch[i + 3]! << 8) | patch[i + 4]!;
    i += 5;
    if (size > 0) {
      if (i + size > patch.length) throw new PatchError('malformed', 'an IPS record runs past the patch');
      records.push({ offset, bytes: patch.subarray(i, i + size) });
      i += size;
    } else {
      if (i + 3 > patch.length) throw new PatchError('malformed', 'an IPS run record runs past the patch');
      const count = (patch[i]! << 8) | patch[i + 1]!;
      if (count === 0) throw new PatchError('malformed', 'an IPS run record repeats a byte zero times');
      records.push({ offset, count, value: patch[i + 2]! });
      i += 3;
    }
  }
  let truncate: number | null = null;
  if (i === patch.length - 3) truncate = (patch[i]! << 16) | (patch[i + 1]! << 8) | patch[i + 2]!;
  else if (i !== patch.length) throw new PatchError('malformed', 'the IPS patch has bytes after EOF');
  return { records, truncate };
}

/** The target size an IPS patch makes from a source of `sourceSize` bytes. */
export function ipsTargetSize(
  r: { records: IpsRecord[]; truncate: number | null },
  sourceSize: number,
): number {
  let size = sourceSize;
  for (const rec of r.records)
    size = Math.max(size, rec.offset + ('bytes' in rec ? rec.bytes.length : rec.count));
  return r.truncate === null ? size : r.truncate;
}

/**
 * Applies the records, in order, to `target`: the target's bytes from offset `base` on (the source
 * bytes there already copied in, zeros past the source). A record reaching past it is cut.
 */
export function applyIpsRecords(r: { records: IpsRecord[] }, target: Uint8Array, base = 0): void {
  for (const rec of r.records) layRecord(rec, target, base);
}

/** Lays one record over `target` (the target's bytes from `base` on), cut to it. */
function layRecord(rec: IpsRecord, target: Uint8Array, base: number): void {
  const recEnd = rec.offset + ('bytes' in rec ? rec.bytes.length : rec.count);
  const end = base + target.length;
  if (recEnd <= base || rec.offset >= end) return;
  const from = Math.max(rec.offset, base);
  const to = Math.min(recEnd, end);
  if ('bytes' in rec) target.set(rec.bytes.subarray(from - rec.offset, to - rec.offset), from - base);
  else target.fill(rec.value, from - base, to - base);
}

/** Target bytes decodeIps makes per emit (a record, at most 0xffff bytes, spans at most two of them). */
export const IPS_WINDOW = 1 << 20;
/** Records laid between two pauses of decodeIps (each writes at most 64 KiB). */
const STEP_RECORDS = 2048;

/**
 * The target an IPS patch makes from a source of `sourceSize` bytes, front to back, as requests
 * (requests.ts): window by window, the source bytes there (zeros past the source) with the records
 * that touch the window laid over them in the patch's order, then emitted. Never holds more than one
 * window of the target, besides an index of the records by window (4 bytes a record). Pauses every
 * STEP_RECORDS records and after every window. Returns the target size (ipsTargetSize).
 */
export function* decodeIps(
  r: { records: IpsRecord[]; truncate: number | null },
  sourceSize: number,
): PatchDecoder<number> {
  const size = ipsTargetSize(r, sourceSize);
  const { records } = r;
  // The records by the window they start in, each window's in patch order (a counting sort): a
  // window's records are those starting in it and those starting in the window before (shorter than
  // a window, a record reaches at most one window further).
  const windows = Math.ceil(size / IPS_WINDOW);
  const starts = new Uint32Array(windows + 1);
  let counted = 0;
  for (const rec of records) {
    if (rec.offset >= size) continue;
    starts[Math.floor(rec.offset / IPS_WINDOW) + 1]!++;
    counted++;
  }
  for (let w = 1; w <= windows; w++) starts[w]! += starts[w - 1]!;
  const order = new Uint32Array(counted);
  {
    const fill = starts.slice(0, windows);
    for (let i = 0; i < records.length; i++) {
      const rec = records[i]!;
      if (rec.offset < size) order[fill[Math.floor(rec.offset / IPS_WINDOW)]!++] = i;
    }
    yield PAUSE;
  }
  const piece = new Uint8Array(Math.min(IPS_WINDOW, size));
  let laid = 0;
  for (let w = 0; w < windows; w++) {
    const base = w * IPS_WINDOW;
    const window = piece.subarray(0, Math.min(IPS_WINDOW, size - base));
    const fromSource = Math.max(0, Math.min(window.length, sourceSize - base));
    if (fromSource > 0)
      window.set(
        answered(yield { kind: 'source', offset: base, length: fromSource }, fromSource, false).subarray(
          0,
          fromSource,
        ),
      );
    window.fill(0, fromSource);
    // The two runs of indices (the window before's, this one's), merged back into patch order.
    let a = w > 0 ? starts[w - 1]! : starts[0]!;
    const aEnd = w > 0 ? starts[w]! : starts[0]!;
    let b = starts[w]!;
    const bEnd = starts[w + 1]!;
    while (a < aEnd || b < bEnd) {
      const next = b >= bEnd || (a < aEnd && order[a]! < order[b]!) ? order[a++]! : order[b++]!;
      layRecord(records[next]!, window, base);
      if (++laid % STEP_RECORDS === 0) yield PAUSE;
    }
    yield { kind: 'emit', offset: base, bytes: window };
    yield PAUSE;
  }
  return size;
}
