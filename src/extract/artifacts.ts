// Where extracted bytes go and what they are called. Every name is derived from the ROM identity and a
// canonical component, never from caller text, so two extractions of the same component always land on
// the same file. A NitroFS file keeps its own name after its id, reduced to safe characters (the full
// path is recorded in the sidecar).
import { createHash } from 'node:crypto';
import { ReMcpError } from '../core/errors.js';
import type { NdsRomModel, Overlay } from '../formats/nds/index.js';
import type { ComponentSelector } from '../search/search-scope.js';
import { resolveSelector } from '../search/search-scope.js';

export { romDirSegments } from '../workspace/rom-dir.js';

const MiB = 1024 * 1024;

export const EXTRACT_LIMITS = {
  /** Bytes of one extracted component (it is read whole before the atomic write). */
  componentBytes: { max: 128 * MiB, unit: 'bytes' },
} as const;

export function overlayFileName(overlay: Overlay, duplicated: boolean): string {
  const base = `overlay_${String(overlay.id).padStart(4, '0')}`;
  return duplicated ? `${base}_t${overlay.tableIndex}.bin` : `${base}.bin`;
}

/** Characters of a NitroFS name kept in an artifact name. */
const MAX_NAME_CHARS = 64;

/**
 * A NitroFS file's artifact name: `file_<id>` (unique in the ROM), then the last segment of its path
 * with every character but ASCII letters, digits, '.', '-' and '_' made '_', runs of '_' and leading
 * dots dropped, at most MAX_NAME_CHARS characters; `file_<id>.bin` when nothing is left.
 */
export function fileArtifactName(fileId: number, path: string | null): string {
  const base = `file_${String(fileId).padStart(5, '0')}`;
  const last = path?.split('/').pop() ?? '';
  const safe = last
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/_+/g, '_')
    .replace(/^[._]+/, '')
    .slice(0, MAX_NAME_CHARS);
  return /[A-Za-z0-9]/.test(safe) ? `${base}_${safe}` : `${base}.bin`;
}

interface ComponentArtifact {
  /** Directory segments below the ROM directory, then the file name. */
  dir: string[];
  name: string;
  label: string;
  start: number;
  end: number;
  compressed: boolean;
  processor: string | null;
  overlayId: number | null;
  fileId: number | null;
  path: string | null;
}

/** The artifact for one selector: stored bytes only; a selector naming two records is refused. */
export function componentArtifact(model: NdsRomModel, selector: ComponentSelector): ComponentArtifact {
  const found = resolveSelector(model, selector);
  if (found.length !== 1) {
    throw new ReMcpError(
      'invalid-argument',
      `the selector names ${found.length} table records; it is ambiguous`,
      {
        selector,
      },
    );
  }
  const c = found[0]!;
  const base = {
    start: c.start,
    end: c.end,
    compressed: c.compressed === true,
    processor: c.processor ?? null,
    overlayId: c.overlayId ?? null,
    fileId: c.fileId ?? null,
    path: c.path ?? null,
  };
  if (c.kind === 'main')
    return { ...base, dir: [], name: `${c.processor}.bin`, label: `${c.processor} main` };
  if (c.kind === 'overlay') {
    const overlay = model.overlays[c.processor!].find((o) => o.id === c.overlayId)!;
    return {
      ...base,
      dir: ['overlays', c.processor!],
      name: overlayFileName(overlay, false),
      label: `${c.processor} overlay ${c.overlayId}`,
    };
  }
  return {
    ...base,
    dir: ['files'],
    name: fileArtifactName(c.fileId!, c.path ?? null),
    label: c.path ? `file ${c.fileId} (${c.path})` : `file ${c.fileId}`,
  };
}

export function sha256Of(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}
