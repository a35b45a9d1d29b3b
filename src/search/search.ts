// One pattern search over one validated ROM: pattern + scope -> streamed scan -> a page of hits with
// their canonical owners. Pure: the ROM's bytes arrive through injected readers, so the same code runs
// over a file (the tool) and over a buffer (tests).
import { ReMcpError } from '../core/errors.js';
import type { BoundedStatus } from '../core/vocabulary.js';
import { type NdsRomModel, ownersOfRomRange, type RomOwner } from '../formats/nds/index.js';
import { type CompiledPattern, compilePattern, type PatternInput } from './pattern.js';
import { type ChunkReader, type ScanResult, scanSegments, type TruncationReason } from './scan.js';
import { resolveScope, type ScopeComponent, type ScopeInput } from './search-scope.js';

const MiB = 1024 * 1024;

export const SEARCH_LIMITS = {
  pageSize: { default: 64, min: 1, max: 1000, unit: 'matches' },
  offset: { default: 0, min: 0, max: 99_999, unit: 'match index' },
  maxScanBytes: { default: 64 * MiB, min: 1, max: 512 * MiB, unit: 'bytes' },
  contextBytes: { default: 0, min: 0, max: 64, unit: 'bytes per side' },
  patternBytes: { min: 1, max: 4096, unit: 'bytes' },
  discoveredMatches: { max: 100_000, unit: 'matches' },
} as const;

/** Hits of wildcard signatures echo their actual bytes up to this length. */
const ECHO_BYTES_MAX = 64;

const hex = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

export interface SearchRequest {
  pattern: PatternInput;
  scope: ScopeInput;
  offset: number;
  limit: number;
  maxScanBytes: number;
  contextBytes: number;
  /** Scan only from this ROM offset on (a previous result's resumeRomOffset); default 0. */
  startRomOffset?: number;
}

/**
 * Scans kept between calls, by the caller (per ROM): a later page of the same search is read from
 * the kept scan instead of scanning again. keep() is given a scan that ended normally; the caller
 * keeps it only for bytes it has verified unchanged.
 */
export interface ScanMemo {
  get(key: string): ScanResult | undefined;
  keep(key: string, scan: ScanResult): Promise<void>;
}

export interface SearchIo {
  romSize: number;
  /** Streaming reads for the scan. */
  readChunk: ChunkReader;
  /** Small bounded reads for context and echoed bytes. */
  readBytes(offset: number, length: number): Uint8Array;
  signal?: AbortSignal;
  onProgress?: (scanned: number, total: number) => void;
  /** Where scans of this ROM are kept (a page of a search already scanned does not scan again). */
  scans?: ScanMemo;
}

interface HitOwner {
  kind: RomOwner['kind'];
  start: number;
  end: number;
  processor?: string;
  overlayId?: number;
  fileId?: number;
  path?: string | null;
  field?: string;
  tableIndex?: number;
  autoloadIndex?: number;
  compressed?: boolean;
  runtimeAddress?: number | null;
}

interface SearchHit {
  index: number;
  romOffset: number;
  owners: HitOwner[];
  /** Actual bytes of a wildcard hit (hex), when the pattern is short enough. */
  bytes?: string;
  context?: { before: string; after: string; clippedTo: { start: number; end: number } };
}

export interface SearchResult {
  pattern: { kind: string; length: number; canonical: string; alignment: number };
  scope: { kind: string; components: string[]; scopeBytes: number };
  status: BoundedStatus;
  truncationReasons: TruncationReason[];
  scannedBytes: number;
  discoveredMatches: number;
  offset: number;
  returned: number;
  nextOffset: number | null;
  /** A truncated scan resumes here (pass it as startRomOffset with the same pattern and scope). */
  resumeRomOffset: number | null;
  matches: SearchHit[];
}

function componentLabel(c: ScopeComponent): string {
  if (c.kind === 'main') return `${c.processor}-main`;
  if (c.kind === 'overlay') return `${c.processor}-overlay:${c.overlayId}`;
  return c.path ? `file:${c.fileId}:${c.path}` : `file:${c.fileId}`;
}

function compactOwner(o: RomOwner): HitOwner {
  const out: HitOwner = { kind: o.kind, start: o.range.start, end: o.range.end };
  if (o.processor !== undefined) out.processor = o.processor;
  if (o.overlayId !== undefined) out.overlayId = o.overlayId;
  if (o.fileId !== undefined) out.fileId = o.fileId;
  if (o.path !== undefined) out.path = o.path;
  if (o.field !== undefined) out.field = o.field;
  if (o.tableIndex !== undefined) out.tableIndex = o.tableIndex;
  if (o.autoloadIndex !== undefined) out.autoloadIndex = o.autoloadIndex;
  if (o.compressed !== undefined) out.compressed = o.compressed;
  if (o.runtimeAddress !== undefined) out.runtimeAddress = o.runtimeAddress;
  return out;
}

function checkBound(value: number, name: keyof typeof SEARCH_LIMITS): void {
  const spec = SEARCH_LIMITS[name] as { min?: number; max: number };
  if (!Number.isInteger(value) || value < (spec.min ?? 0) || value > spec.max) {
    throw new ReMcpError(
      'invalid-argument',
      `${name} must be an integer in [${spec.min ?? 0}, ${spec.max}]`,
      {
        [name]: value,
      },
    );
  }
}

export async function searchRom(model: NdsRomModel, io: SearchIo, req: SearchRequest): Promise<SearchResult> {
  checkBound(req.offset, 'offset');
  checkBound(req.limit, 'pageSize');
  checkBound(req.maxScanBytes, 'maxScanBytes');
  checkBound(req.contextBytes, 'contextBytes');
  const pattern: CompiledPattern = compilePattern(req.pattern);
  const scope = resolveScope(model, io.romSize, req.scope);
  const from = req.startRomOffset ?? 0;
  if (!Number.isInteger(from) || from < 0)
    throw new ReMcpError('invalid-argument', 'startRomOffset must be a non-negative integer');
  const segments = scope.segments
    .map((s) => ({ start: Math.max(s.start, from), end: s.end }))
    .filter((s) => s.end > s.start);
  // Everything the scan's result depends on besides the ROM's bytes.
  const key = JSON.stringify([
    pattern.kind,
    hex(pattern.bytes),
    pattern.mask === null ? null : hex(pattern.mask),
    pattern.alignment,
    scope.kind,
    scope.components.map((c) => [c.start, c.end]),
    segments,
    req.maxScanBytes,
  ]);
  let scan = io.scans?.get(key);
  if (scan === undefined) {
    scan = await scanSegments(pattern, io.readChunk, {
      segments,
      maxScanBytes: req.maxScanBytes,
      maxMatches: SEARCH_LIMITS.discoveredMatches.max,
      ...(scope.accept ? { accept: scope.accept } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
      ...(io.onProgress ? { onProgress: io.onProgress } : {}),
    });
    await io.scans?.keep(key, scan);
  }
  const len = pattern.bytes.length;
  const page = scan.offsets.slice(req.offset, req.offset + req.limit);
  const matches = page.map((romOffset, i): SearchHit => {
    const hit: SearchHit = {
      index: req.offset + i,
      romOffset,
      owners: ownersOfRomRange(model, romOffset, romOffset + len).map(compactOwner),
    };
    if (pattern.mask !== null && len <= ECHO_BYTES_MAX) hit.bytes = hex(io.readBytes(romOffset, len));
    if (req.contextBytes > 0) {
      const clip = scope.contextRange(romOffset, romOffset + len);
      const beforeStart = Math.max(clip.start, romOffset - req.contextBytes);
      const afterEnd = Math.min(clip.end, romOffset + len + req.contextBytes);
      hit.context = {
        before: hex(io.readBytes(beforeStart, romOffset - beforeStart)),
        after: hex(io.readBytes(romOffset + len, afterEnd - (romOffset + len))),
        clippedTo: { start: clip.start, end: clip.end },
      };
    }
    return hit;
  });
  const discovered = scan.offsets.length;
  return {
    pattern: { kind: pattern.kind, length: len, canonical: pattern.canonical, alignment: pattern.alignment },
    scope: {
      kind: scope.kind,
      components: scope.components.map(componentLabel),
      scopeBytes: scan.scopeBytes,
    },
    status: scan.reasons.length === 0 ? 'complete' : 'truncated',
    truncationReasons: scan.reasons,
    scannedBytes: scan.scannedBytes,
    discoveredMatches: discovered,
    offset: req.offset,
    returned: matches.length,
    nextOffset: req.offset + req.limit < discovered ? req.offset + req.limit : null,
    resumeRomOffset: scan.resumeAt,
    matches,
  };
}
