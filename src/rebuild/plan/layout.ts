// The output's layout, deterministic and append-only: the source file is kept whole as the output's
// prefix (trailing data included), where only fixed edits change bytes, and two of them may not touch
// one byte. Payloads that change size and every rebuilt table are appended after the source, each at
// the next 0x200 boundary: payloads in operation order, then the FNT, the ARM9 and ARM7 overlay tables
// and the FAT. Gaps between them are zero.
import { ReMcpError } from '../../core/errors.js';
import { writeRawFat } from '../../formats/nds/raw/fat.js';
import { layoutFntTables, writeFntTables } from '../../formats/nds/raw/fnt.js';
import type { RawTableRegion } from '../../formats/nds/raw/header.js';
import { writeRawOverlayTable } from '../../formats/nds/raw/overlay-table.js';
import { type PlanState, range, sha } from './state.js';
import type { Piece, ResolvedPlan } from './types.js';

export const APPEND_ALIGN = 0x200;
const align = (n: number) => Math.ceil(n / APPEND_ALIGN) * APPEND_ALIGN;

/** Where the appended bytes went, and the header's new pointers to the rebuilt tables. */
export interface Layout {
  /** The appended pieces in output order. */
  pieces: Piece[];
  tables: ResolvedPlan['tables'];
  /** The header's offset/size pair of each rebuilt table. */
  regions: Partial<Record<'fnt' | 'fat' | 'arm9OverlayTable' | 'arm7OverlayTable', RawTableRegion>>;
  outputSize: number;
}

/** Sorts the fixed edits by offset and refuses two that change the same bytes. */
export function checkConflicts(fixed: Piece[]): void {
  fixed.sort((x, y) => x.offset - y.offset);
  for (let i = 1; i < fixed.length; i++) {
    const p = fixed[i - 1]!;
    const q = fixed[i]!;
    if (q.offset < p.offset + p.bytes.length) {
      throw new ReMcpError(
        'invalid-argument',
        `operations "${p.owner}" and "${q.owner}" change the same bytes`,
        {
          operations: [p.owner, q.owner],
        },
      );
    }
  }
}

/**
 * Places the appended payloads (setting their FAT entries and planned output ranges) and the rebuilt
 * tables after the source. Refuses an output over 4 GiB.
 */
export function layOut(state: PlanState): Layout {
  const pieces: Piece[] = [];
  let cursor = align(state.sourceSize);
  for (const item of state.appended) {
    const start = cursor;
    state.fat[item.fileId] = { start, end: start + item.bytes.length };
    pieces.push({ offset: start, bytes: item.bytes, owner: item.owner });
    const p = state.planned.find((x) => x.id === item.owner)!;
    p.output = range(start, start + item.bytes.length);
    cursor = align(start + Math.max(item.bytes.length, 1));
  }
  const tables: ResolvedPlan['tables'] = [];
  const regions: Layout['regions'] = {};
  // Rewritten tables follow the appended data, each aligned; returns the header's offset/size pair.
  const placeTable = (table: ResolvedPlan['tables'][number]['table'], bytes: Uint8Array) => {
    const at = { offset: cursor, size: bytes.length };
    pieces.push({ offset: cursor, bytes, owner: `rebuild:${table}` });
    tables.push({ table, ...range(cursor, cursor + bytes.length), sha256: sha(bytes) });
    cursor = align(cursor + Math.max(bytes.length, 1));
    return at;
  };
  if (state.fntDirs !== null) regions.fnt = placeTable('fnt', writeFntTables(layoutFntTables(state.fntDirs)));
  for (const processor of ['arm9', 'arm7'] as const) {
    const table = state.overlayTables[processor];
    if (!table) continue;
    regions[processor === 'arm9' ? 'arm9OverlayTable' : 'arm7OverlayTable'] = placeTable(
      `${processor}-overlay-table`,
      writeRawOverlayTable(table),
    );
  }
  if (state.fatChanged) regions.fat = placeTable('fat', writeRawFat(state.fat));
  const outputSize =
    pieces.length > 0 ? Math.max(...pieces.map((p) => p.offset + p.bytes.length)) : state.sourceSize;
  if (outputSize > 0xffffffff) throw new ReMcpError('limit-exceeded', 'the rebuilt ROM would exceed 4 GiB');
  return { pieces, tables, regions, outputSize };
}
