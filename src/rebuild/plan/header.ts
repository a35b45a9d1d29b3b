// The owned header rewrite: the header is pointed at the rebuilt tables, its used size and the
// smallest sufficient device capacity are set when anything is appended, the secure-area CRC follows
// an edit of the secure area (when it was right for the source), and the logo and header CRCs are
// resealed. The rewrite is a fixed edit at offset 0 owned by 'rebuild:header'.
import { ReMcpError } from '../../core/errors.js';
import { formatAddress } from '../../core/vocabulary.js';
import { crc16Modbus as crc16 } from '../../formats/crc16.js';
import { uint } from '../../formats/le.js';
import {
  HEADER_BASE_SIZE,
  parseRawHeader,
  sealHeaderCrcs,
  writeRawHeader,
} from '../../formats/nds/raw/header.js';
import type { Layout } from './layout.js';
import type { PlanState } from './state.js';
import type { Piece, ResolvedPlan } from './types.js';

const SECURE_AREA = { start: 0x4000, end: 0x8000 } as const;

/** The header fields a rebuild may change, as reported in the plan: name, offset, width in bytes. */
const HEADER_FIELDS: ReadonlyArray<readonly [string, number, 1 | 2 | 4]> = [
  ['deviceCapacity', 0x14, 1],
  ['fntOffset', 0x40, 4],
  ['fntSize', 0x44, 4],
  ['fatOffset', 0x48, 4],
  ['fatSize', 0x4c, 4],
  ['arm9OverlayTableOffset', 0x50, 4],
  ['arm9OverlayTableSize', 0x54, 4],
  ['arm7OverlayTableOffset', 0x58, 4],
  ['arm7OverlayTableSize', 0x5c, 4],
  ['secureAreaCrc', 0x6c, 2],
  ['usedRomSize', 0x80, 4],
  ['logoCrc', 0x15c, 2],
  ['headerCrc', 0x15e, 2],
];

/** The smallest device capacity code n (128 KiB << n) that holds `size` bytes. */
export function capacityFor(size: number): number {
  let n = 0;
  while (0x20000 * 2 ** n < size) n++;
  return n;
}

function applyInto(target: Uint8Array, base: number, p: Piece): void {
  for (let i = 0; i < p.bytes.length; i++) {
    const at = p.offset + i - base;
    if (at >= 0 && at < target.length) target[at] = p.bytes[i]!;
  }
}

interface HeaderRewrite {
  /** The changed fields, before and after. */
  fields: ResolvedPlan['headerRewrite'];
  /** The output's device capacity code. */
  deviceCapacity: number;
  /** The rewritten header as a fixed edit; null when no byte of it changes. */
  piece: Piece | null;
}

/**
 * The header after the layout and the fixed edits (state.fixed, sorted). Refuses, as an internal
 * error, a fixed edit that reached the header.
 */
export function rewriteHeader(state: PlanState, layout: Layout): HeaderRewrite {
  const { fixed, read, sourceSize } = state;
  const headerBytes = read(0, HEADER_BASE_SIZE).slice();
  const h = parseRawHeader(headerBytes);
  const next = { ...h, ...layout.regions };
  if (layout.pieces.length > 0) {
    next.usedRomSize = Math.max(h.usedRomSize, layout.outputSize);
    next.deviceCapacity = capacityFor(layout.outputSize);
  }
  // The secure-area CRC when an edit reached the secure area and the stored CRC was the CRC of the
  // source bytes (a CRC that was already stale is not invented).
  const secureTouched = fixed.some(
    (p) => p.offset < SECURE_AREA.end && p.offset + p.bytes.length > SECURE_AREA.start,
  );
  if (secureTouched && sourceSize >= SECURE_AREA.end) {
    const area = read(SECURE_AREA.start, SECURE_AREA.end - SECURE_AREA.start).slice();
    if (crc16(area) === h.secureAreaCrc) {
      for (const p of fixed) applyInto(area, SECURE_AREA.start, p);
      next.secureAreaCrc = crc16(area);
    }
  }
  for (const p of fixed) {
    if (p.offset < HEADER_BASE_SIZE)
      throw new ReMcpError('internal-error', 'a component edit reached the header');
  }
  let header = writeRawHeader(headerBytes, next);
  const fields: ResolvedPlan['headerRewrite'] = [];
  if (!header.some((b, i) => b !== headerBytes[i])) {
    return { fields, deviceCapacity: h.deviceCapacity, piece: null };
  }
  // Reseal only when the source CRCs were right; a source with a stale CRC keeps its stale value
  // recomputed over the new bytes either way, so the console accepts the result.
  sealHeaderCrcs(header);
  header = header.slice();
  for (const [field, at, width] of HEADER_FIELDS) {
    const b = uint(headerBytes, at, width);
    const a = uint(header, at, width);
    if (a !== b) fields.push({ field, before: formatAddress(b), after: formatAddress(a) });
  }
  return {
    fields,
    deviceCapacity: header[0x14]!,
    piece: { offset: 0, bytes: header, owner: 'rebuild:header' },
  };
}
