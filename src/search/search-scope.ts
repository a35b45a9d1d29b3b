// Search scopes over the canonical model. `whole-rom` is one physical domain where a match may cross
// any structural boundary. `components` keeps every selected component's canonical boundary: the union
// of their bytes is scanned once, but a match only counts when one selected component holds its whole
// span — touching or overlapping components never join into a larger matching domain.
import { ReMcpError } from '../core/errors.js';
import type { Processor } from '../core/vocabulary.js';
import type { NdsRomModel } from '../formats/nds/index.js';
import { mergeRanges, type Segment } from './scan.js';

export const SCOPE_LIMITS = {
  /** Component selectors in one scope. */
  selectors: { max: 1024, unit: 'selectors' },
} as const;

import type { ComponentSelector } from '../formats/nds/selectors.js';

export type { ComponentSelector };

export type ScopeInput = { kind: 'whole-rom' } | { kind: 'components'; components: ComponentSelector[] };

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

interface ResolvedScope {
  kind: 'whole-rom' | 'components';
  /** Canonical order: ARM9, ARM7, ARM9 overlays, ARM7 overlays (by ID), files by ID. */
  components: ScopeComponent[];
  segments: Segment[];
  /** Null for whole-rom; otherwise true when one selected component holds [start, end). */
  accept: ((start: number, end: number) => boolean) | null;
  /** The range context bytes may come from for a hit: the ROM, or the first containing component. */
  contextRange(start: number, end: number): { start: number; end: number; component: ScopeComponent | null };
}

/** Every component one selector names (an overlay ID listed twice in a table names both records). */
export function resolveSelector(model: NdsRomModel, sel: ComponentSelector): ScopeComponent[] {
  switch (sel.kind) {
    case 'arm9':
    case 'arm7': {
      const exe = model[sel.kind];
      return [
        {
          kind: 'main',
          processor: sel.kind,
          compressed: exe.compressed,
          start: exe.rom.start,
          end: exe.rom.end,
        },
      ];
    }
    case 'overlay': {
      const found = model.overlays[sel.processor]?.filter((o) => o.id === sel.id) ?? [];
      if (found.length === 0) {
        throw new ReMcpError('not-found', `${sel.processor} has no overlay with ID ${sel.id}`, {
          processor: sel.processor,
          overlayId: sel.id,
          overlays: model.overlays[sel.processor]?.length ?? 0,
        });
      }
      return found.map((o) => ({
        kind: 'overlay' as const,
        processor: sel.processor,
        overlayId: o.id,
        fileId: o.fileId,
        compressed: o.compressed,
        start: o.file.start,
        end: o.file.end,
      }));
    }
    case 'file': {
      const f = Number.isInteger(sel.fileId) ? model.files[sel.fileId] : undefined;
      if (!f) {
        throw new ReMcpError('not-found', `no NitroFS file with ID ${sel.fileId}`, {
          fileId: sel.fileId,
          files: model.files.length,
        });
      }
      return [{ kind: 'file', fileId: f.fileId, path: f.path, start: f.start, end: f.end }];
    }
    case 'path': {
      const f = model.files.find((x) => x.path !== null && x.path === sel.path);
      if (!f) {
        throw new ReMcpError(
          'not-found',
          `no NitroFS file at the exact path "${String(sel.path).slice(0, 256)}"`,
          {
            hint: 'paths are exact, case-sensitive and have no leading slash, as nds_list_files reports them',
          },
        );
      }
      return [{ kind: 'file', fileId: f.fileId, path: f.path, start: f.start, end: f.end }];
    }
    default:
      throw new ReMcpError(
        'invalid-argument',
        `unknown component kind ${JSON.stringify((sel as { kind: unknown }).kind)}`,
      );
  }
}

const ORDER = { main: 0, overlay: 1, file: 2 } as const;

/** Resolves and de-duplicates selectors into canonical order. */
function selectComponents(model: NdsRomModel, selectors: readonly ComponentSelector[]): ScopeComponent[] {
  if (selectors.length === 0) throw new ReMcpError('invalid-argument', 'the component scope selects nothing');
  if (selectors.length > SCOPE_LIMITS.selectors.max) {
    throw new ReMcpError(
      'limit-exceeded',
      `the scope lists ${selectors.length} components, over ${SCOPE_LIMITS.selectors.max}`,
    );
  }
  const seen = new Map<string, ScopeComponent>();
  for (const sel of selectors) {
    for (const c of resolveSelector(model, sel)) {
      seen.set(`${c.kind}:${c.processor ?? ''}:${c.overlayId ?? ''}:${c.fileId ?? ''}:${c.start}`, c);
    }
  }
  const proc = (c: ScopeComponent) => (c.processor === 'arm7' ? 1 : 0);
  return [...seen.values()].sort(
    (a, b) =>
      ORDER[a.kind] - ORDER[b.kind] ||
      proc(a) - proc(b) ||
      (a.overlayId ?? 0) - (b.overlayId ?? 0) ||
      (a.fileId ?? 0) - (b.fileId ?? 0) ||
      a.start - b.start,
  );
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
  const components = selectComponents(model, scope.components);
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
