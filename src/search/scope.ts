// Search scopes over the canonical model. `whole-rom` is one physical domain where a match may cross
// any structural boundary. `components` keeps every selected component's canonical boundary: the union
// of their bytes is scanned once, but a match only counts when one selected component holds its whole
// span — touching or overlapping components never join into a larger matching domain.
import { ReMcpError } from '../core/errors.js';
import type { NdsRomModel, Processor } from '../formats/nds/index.js';
import { mergeRanges, type Segment } from './scan.js';

export const SCOPE_LIMITS = {
  /** Entries per selector list (overlay IDs, file IDs, paths). */
  selectorsPerList: { max: 1024, unit: 'entries' },
} as const;

export interface ComponentSelection {
  arm9?: boolean;
  arm7?: boolean;
  arm9Overlays?: number[];
  arm7Overlays?: number[];
  fileIds?: number[];
  paths?: string[];
}

export type ScopeInput = { kind: 'whole-rom' } | ({ kind: 'components' } & ComponentSelection);

export interface ScopeComponent {
  kind: 'main' | 'overlay' | 'file';
  processor?: Processor;
  overlayId?: number;
  fileId?: number;
  path?: string | null;
  compressed?: boolean;
  start: number;
  end: number;
}

export interface ResolvedScope {
  kind: 'whole-rom' | 'components';
  /** Canonical order: ARM9, ARM7, ARM9 overlays, ARM7 overlays (table order), files by ID. */
  components: ScopeComponent[];
  segments: Segment[];
  /** Null for whole-rom; otherwise true when one selected component holds [start, end). */
  accept: ((start: number, end: number) => boolean) | null;
  /** The range context bytes may come from for a hit: the ROM, or the first containing component. */
  contextRange(start: number, end: number): { start: number; end: number; component: ScopeComponent | null };
}

function checkList<T>(list: T[] | undefined, name: string): T[] {
  if (list === undefined) return [];
  if (list.length > SCOPE_LIMITS.selectorsPerList.max) {
    throw new ReMcpError(
      'limit-exceeded',
      `${name} lists ${list.length} entries, over ${SCOPE_LIMITS.selectorsPerList.max}`,
    );
  }
  return [...new Set(list)];
}

export function selectComponents(model: NdsRomModel, sel: ComponentSelection): ScopeComponent[] {
  const out: ScopeComponent[] = [];
  for (const processor of ['arm9', 'arm7'] as const) {
    if (sel[processor] !== true) continue;
    const exe = model[processor];
    out.push({ kind: 'main', processor, compressed: exe.compressed, start: exe.rom.start, end: exe.rom.end });
  }
  for (const processor of ['arm9', 'arm7'] as const) {
    const ids = checkList(processor === 'arm9' ? sel.arm9Overlays : sel.arm7Overlays, `${processor}Overlays`);
    for (const id of ids) {
      const found = model.overlays[processor].filter((o) => o.id === id);
      if (found.length === 0) {
        throw new ReMcpError('not-found', `${processor} has no overlay with ID ${id}`, {
          processor,
          overlayId: id,
          available: model.overlays[processor].length,
        });
      }
      for (const o of found) {
        out.push({
          kind: 'overlay',
          processor,
          overlayId: o.id,
          fileId: o.fileId,
          compressed: o.compressed,
          start: o.file.start,
          end: o.file.end,
        });
      }
    }
  }
  const fileIds = new Set(checkList(sel.fileIds, 'fileIds'));
  for (const id of fileIds) {
    if (!Number.isInteger(id) || id < 0 || id >= model.files.length) {
      throw new ReMcpError('not-found', `no NitroFS file with ID ${id}`, {
        fileId: id,
        files: model.files.length,
      });
    }
  }
  for (const path of checkList(sel.paths, 'paths')) {
    const file = model.files.find((f) => f.path !== null && f.path === path);
    if (!file) {
      throw new ReMcpError('not-found', `no NitroFS file at the exact path "${path.slice(0, 256)}"`, {
        hint: 'paths are exact, case-sensitive and have no leading slash, as nds_list_files reports them',
      });
    }
    fileIds.add(file.fileId);
  }
  for (const id of [...fileIds].sort((a, b) => a - b)) {
    const f = model.files[id]!;
    out.push({ kind: 'file', fileId: id, path: f.path, start: f.start, end: f.end });
  }
  if (out.length === 0) throw new ReMcpError('invalid-argument', 'the component scope selects nothing');
  return out;
}

export function resolveScope(model: NdsRomModel, romSize: number, scope: ScopeInput): ResolvedScope {
  if (scope.kind === 'whole-rom') {
    return {
      kind: 'whole-rom',
      components: [],
      segments: romSize > 0 ? [{ start: 0, end: romSize }] : [],
      accept: null,
      contextRange: () => ({ start: 0, end: romSize, component: null }),
    };
  }
  const components = selectComponents(model, scope);
  const segments = mergeRanges(components);
  // Containment in O(log n): sort by start, keep the running maximum end; a span [s, e) is inside some
  // component iff the largest end among components starting at or before s reaches e.
  const byStart = components.filter((c) => c.end > c.start).sort((a, b) => a.start - b.start);
  const starts = Float64Array.from(byStart, (c) => c.start);
  const maxEnd = new Float64Array(byStart.length);
  byStart.forEach((c, i) => {
    maxEnd[i] = Math.max(c.end, i > 0 ? maxEnd[i - 1]! : 0);
  });
  const accept = (s: number, e: number): boolean => {
    let lo = 0;
    let hi = starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! <= s) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found >= 0 && maxEnd[found]! >= e;
  };
  return {
    kind: 'components',
    components,
    segments,
    accept,
    contextRange(s, e) {
      const c = components.find((x) => x.start <= s && e <= x.end) ?? null;
      return c ? { start: c.start, end: c.end, component: c } : { start: s, end: e, component: null };
    },
  };
}
