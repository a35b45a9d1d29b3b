// Canonical component selectors: the only way a caller names ROM bytes (no offsets, no lengths).
// Declared in the model because search scopes, extraction, annotations and rebuild manifests all name
// components the same way. resolveComponent maps one selector to exactly one component of the model.

import { ReMcpError } from '../../core/errors.js';
import type { Processor } from '../../core/vocabulary.js';
import type { ByteRange, NdsRomModel } from './model.js';

export type ComponentSelector =
  | { kind: 'arm9' }
  | { kind: 'arm7' }
  | { kind: 'overlay'; processor: Processor; id: number }
  | { kind: 'file'; fileId: number }
  | { kind: 'path'; path: string };

export interface ModelComponent {
  kind: 'main' | 'overlay' | 'file';
  /** Stable label: "arm9", "arm7", "arm9 overlay 3", "file 12". */
  label: string;
  processor: Processor | null;
  overlayId: number | null;
  /** FAT file ID (overlays and NitroFS files); null for a main executable. */
  fileId: number | null;
  path: string | null;
  compressed: boolean;
  /** Stored ROM range. */
  rom: ByteRange;
}

/**
 * The one component a selector names. An overlay ID that a table lists twice is ambiguous and refused
 * (`ambiguous`), since a write must know which record it changes.
 */
export function resolveComponent(model: NdsRomModel, sel: ComponentSelector): ModelComponent {
  switch (sel.kind) {
    case 'arm9':
    case 'arm7': {
      const exe = model[sel.kind];
      return {
        kind: 'main',
        label: sel.kind,
        processor: sel.kind,
        overlayId: null,
        fileId: null,
        path: null,
        compressed: exe.compressed,
        rom: { ...exe.rom },
      };
    }
    case 'overlay': {
      const found = model.overlays[sel.processor]?.filter((o) => o.id === sel.id) ?? [];
      if (found.length !== 1) {
        throw new ReMcpError(
          found.length === 0 ? 'not-found' : 'invalid-argument',
          found.length === 0
            ? `${sel.processor} has no overlay with ID ${sel.id}`
            : `${sel.processor} lists overlay ID ${sel.id} ${found.length} times; it cannot be selected`,
          { processor: sel.processor, overlayId: sel.id },
        );
      }
      const o = found[0]!;
      return {
        kind: 'overlay',
        label: `${sel.processor} overlay ${o.id}`,
        processor: sel.processor,
        overlayId: o.id,
        fileId: o.fileId,
        path: model.files[o.fileId]?.path ?? null,
        compressed: o.compressed,
        rom: { ...o.file },
      };
    }
    case 'file':
    case 'path': {
      const f =
        sel.kind === 'file'
          ? Number.isInteger(sel.fileId)
            ? model.files[sel.fileId]
            : undefined
          : model.files.find((x) => x.path !== null && x.path === sel.path);
      if (!f) {
        throw new ReMcpError(
          'not-found',
          sel.kind === 'file'
            ? `no NitroFS file with ID ${sel.fileId}`
            : `no NitroFS file at the exact path "${String(sel.path).slice(0, 256)}"`,
          sel.kind === 'file' ? { fileId: sel.fileId } : {},
        );
      }
      const overlay = f.overlays[0];
      return {
        kind: overlay ? 'overlay' : 'file',
        label: overlay ? `${overlay.processor} overlay ${overlay.id}` : `file ${f.fileId}`,
        processor: overlay?.processor ?? null,
        overlayId: overlay?.id ?? null,
        fileId: f.fileId,
        path: f.path,
        compressed: overlay
          ? (model.overlays[overlay.processor].find((o) => o.id === overlay.id)?.compressed ?? false)
          : false,
        rom: { start: f.start, end: f.end },
      };
    }
    default:
      throw new ReMcpError(
        'invalid-argument',
        `unknown component kind ${JSON.stringify((sel as { kind: unknown }).kind)}`,
      );
  }
}
