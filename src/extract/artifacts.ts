// Where extracted bytes go and what they are called. Every name is derived from the ROM identity and a
// canonical component, never from caller text (a NitroFS path is recorded in metadata, not used as a
// file name), so two extractions of the same component always land on the same file.
import { createHash } from 'node:crypto';
import { ReMcpError } from '../core/errors.js';
import type { NdsRomModel, Overlay } from '../formats/nds/index.js';
import type { ComponentSelector } from '../search/scope.js';
import { resolveSelector } from '../search/scope.js';

const MiB = 1024 * 1024;

export const EXTRACT_LIMITS = {
  /** Bytes of one extracted component (it is read whole before the atomic write). */
  componentBytes: { max: 128 * MiB, unit: 'bytes' },
} as const;

/** analysis/generated/nds/<first 16 hex of the SHA-256>. */
export function romDirSegments(sha256: string): string[] {
  if (!/^[0-9a-f]{64}$/.test(sha256)) throw new ReMcpError('internal-error', 'not a SHA-256');
  return ['nds', sha256.slice(0, 16)];
}

export function overlayFileName(overlay: Overlay, duplicated: boolean): string {
  const base = `overlay_${String(overlay.id).padStart(4, '0')}`;
  return duplicated ? `${base}_t${overlay.tableIndex}.bin` : `${base}.bin`;
}

export interface ComponentArtifact {
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
    name: `file_${String(c.fileId).padStart(5, '0')}.bin`,
    label: c.path ? `file ${c.fileId} (${c.path})` : `file ${c.fileId}`,
  };
}

export function sha256Of(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}
