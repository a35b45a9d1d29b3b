// Memory scan ("cheat search"): snapshot a declared region, then narrow the candidate addresses by
// comparing each value with its previous snapshot or with a given value, step after step, until the
// few addresses where a game keeps a value (health, score, a timer) remain. Pure: the caller reads
// memory through a bounded reader; scans belong to one emulator "owner" (a process generation) and
// are discarded when it changes.
import { ReMcpError } from '../core/errors.js';
import { formatAddress } from '../core/vocabulary.js';
import { int, uint } from '../formats/le.js';

export const SCAN_LIMITS = {
  /** Bytes a region may span (a DS's whole 4 MiB main RAM). */
  regionBytes: { min: 1, max: 4 * 1024 * 1024 },
  /** Scans kept per emulator at once; starting one more drops the oldest. */
  scans: { max: 8 },
  /** Candidates returned per results page. */
  page: { default: 50, min: 1, max: 500 },
  /** Bytes between two candidates read as one span instead of two (fewer requests, a few more bytes). */
  spanGap: 64,
} as const;

export const SCAN_COMPARISONS = [
  'equal',
  'not-equal',
  'greater',
  'less',
  'increased',
  'decreased',
  'changed',
  'unchanged',
] as const;
export type ScanComparison = (typeof SCAN_COMPARISONS)[number];
/** Comparisons against a caller's value; the others compare with the previous snapshot. */
const VALUE_COMPARISONS: readonly ScanComparison[] = ['equal', 'not-equal', 'greater', 'less'];

type ValueSize = 1 | 2 | 4;

interface ScanSpec {
  base: number;
  length: number;
  size: ValueSize;
  signed: boolean;
  /** Which of the emulator's address spaces, when it has more than one (RetroArch: memory map or RAM). */
  space?: 'memory' | 'ram';
  /** The CPU whose view was scanned, when the emulator has several (a DS: arm9 or arm7). */
  processor?: 'arm9' | 'arm7';
}

export type ReadSpan = (address: number, length: number) => Promise<Uint8Array>;

function readValue(bytes: Uint8Array, at: number, size: ValueSize, signed: boolean): number {
  return signed ? int(bytes, at, size) : uint(bytes, at, size);
}

function checkValue(value: number, size: ValueSize, signed: boolean): void {
  const lo = signed ? -(2 ** (8 * size - 1)) : 0;
  const hi = signed ? 2 ** (8 * size - 1) - 1 : 2 ** (8 * size) - 1;
  if (!Number.isInteger(value) || value < lo || value > hi) {
    throw new ReMcpError(
      'invalid-argument',
      `value ${value} does not fit a ${signed ? 'signed' : 'unsigned'} ${8 * size}-bit scan (${lo}..${hi})`,
    );
  }
}

export class MemoryScan {
  steps = 0;
  readonly createdAt = new Date().toISOString();
  /** Candidate offsets into the region, ascending. */
  private candidates: Uint32Array;
  private count: number;
  /** The region at the last step (only candidate bytes are kept current after the first). */
  private current: Uint8Array;
  private previous: Uint8Array;

  constructor(
    readonly id: string,
    readonly owner: string,
    readonly spec: ScanSpec,
    initial: Uint8Array,
  ) {
    if (initial.length !== spec.length) {
      throw new ReMcpError('internal-error', 'scan snapshot length differs from the region');
    }
    const n = Math.floor(spec.length / spec.size);
    this.candidates = new Uint32Array(n);
    for (let i = 0; i < n; i++) this.candidates[i] = i * spec.size;
    this.count = n;
    this.current = initial;
    this.previous = initial;
  }

  get candidateCount(): number {
    return this.count;
  }

  /** The spans to read so that every candidate's bytes are fresh: merged when close together. */
  spans(): Array<{ offset: number; length: number }> {
    const out: Array<{ offset: number; length: number }> = [];
    const size = this.spec.size;
    for (let i = 0; i < this.count; i++) {
      const at = this.candidates[i]!;
      const last = out[out.length - 1];
      if (last && at - (last.offset + last.length) <= SCAN_LIMITS.spanGap) {
        last.length = at + size - last.offset;
      } else {
        out.push({ offset: at, length: size });
      }
    }
    return out;
  }

  /** Reads the candidates' bytes again (bounded spans), then keeps those that satisfy the comparison. */
  async narrow(
    comparison: ScanComparison,
    value: number | null,
    read: ReadSpan,
    onSpan?: (done: number, total: number) => void,
  ): Promise<{ before: number; after: number; bytesRead: number; spans: number }> {
    const { size, signed } = this.spec;
    const needsValue = VALUE_COMPARISONS.includes(comparison);
    if (needsValue && value === null) {
      throw new ReMcpError('invalid-argument', `comparison "${comparison}" needs a value`);
    }
    if (!needsValue && value !== null) {
      throw new ReMcpError(
        'invalid-argument',
        `comparison "${comparison}" compares with the previous snapshot: give no value`,
      );
    }
    if (value !== null) checkValue(value, size, signed);
    const spans = this.spans();
    const next = new Uint8Array(this.current);
    let bytesRead = 0;
    for (let i = 0; i < spans.length; i++) {
      const s = spans[i]!;
      const bytes = await read(this.spec.base + s.offset, s.length);
      if (bytes.length !== s.length) {
        throw new ReMcpError(
          'protocol-error',
          `the emulator returned ${bytes.length} of ${s.length} bytes at ${formatAddress(this.spec.base + s.offset)}; the scan region must be readable whole`,
        );
      }
      next.set(bytes, s.offset);
      bytesRead += bytes.length;
      onSpan?.(i + 1, spans.length);
    }
    const before = this.count;
    let kept = 0;
    for (let i = 0; i < this.count; i++) {
      const at = this.candidates[i]!;
      const now = readValue(next, at, size, signed);
      const was = readValue(this.current, at, size, signed);
      if (keep(comparison, now, was, value)) this.candidates[kept++] = at;
    }
    this.count = kept;
    // Shrink the candidate array once it is much smaller, so a narrowed scan holds little memory.
    if (kept < this.candidates.length / 4) this.candidates = this.candidates.slice(0, kept);
    this.previous = this.current;
    this.current = next;
    this.steps++;
    return { before, after: kept, bytesRead, spans: spans.length };
  }

  page(offset: number, limit: number): Array<{ address: number; value: number; previous: number }> {
    const { size, signed, base } = this.spec;
    const out: Array<{ address: number; value: number; previous: number }> = [];
    for (let i = offset; i < Math.min(this.count, offset + limit); i++) {
      const at = this.candidates[i]!;
      out.push({
        address: base + at,
        value: readValue(this.current, at, size, signed),
        previous: readValue(this.previous, at, size, signed),
      });
    }
    return out;
  }
}

function keep(c: ScanComparison, now: number, was: number, value: number | null): boolean {
  switch (c) {
    case 'equal':
      return now === value;
    case 'not-equal':
      return now !== value;
    case 'greater':
      return now > value!;
    case 'less':
      return now < value!;
    case 'increased':
      return now > was;
    case 'decreased':
      return now < was;
    case 'changed':
      return now !== was;
    case 'unchanged':
      return now === was;
  }
}

/** The scans of one emulator kind, at most SCAN_LIMITS.scans.max, each tied to its owner. */
export class ScanStore {
  private readonly scans = new Map<string, MemoryScan>();
  private next = 1;

  constructor(private readonly prefix: string) {}

  add(owner: string, spec: ScanSpec, initial: Uint8Array): { scan: MemoryScan; dropped: string[] } {
    const dropped: string[] = [];
    // Scans of an earlier owner are gone for good; then the oldest makes room.
    for (const [id, s] of this.scans) {
      if (s.owner !== owner) {
        this.scans.delete(id);
        dropped.push(id);
      }
    }
    while (this.scans.size >= SCAN_LIMITS.scans.max) {
      const oldest = this.scans.keys().next().value!;
      this.scans.delete(oldest);
      dropped.push(oldest);
    }
    const scan = new MemoryScan(`${this.prefix}-scan${this.next++}`, owner, spec, initial);
    this.scans.set(scan.id, scan);
    return { scan, dropped };
  }

  /** The scan, if it belongs to the current owner; a scan of an earlier owner is discarded here. */
  get(id: string, owner: string, ownerText: string): MemoryScan {
    const scan = this.scans.get(id);
    if (!scan) {
      throw new ReMcpError(
        'not-found',
        `no memory scan ${id} (scans end with the emulator they were taken on, and at most ${SCAN_LIMITS.scans.max} are kept)`,
      );
    }
    if (scan.owner !== owner) {
      this.scans.delete(id);
      throw new ReMcpError(
        'not-found',
        `memory scan ${id} was taken on ${scan.owner}, which is gone (now ${ownerText}); it has been discarded: start a new scan`,
        { discarded: true },
      );
    }
    return scan;
  }

  list(): MemoryScan[] {
    return [...this.scans.values()];
  }
}
