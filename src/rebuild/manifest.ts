// The mutation manifest: the only thing a caller hands the rebuild. Strict (unknown keys refused),
// bounded, and free of offsets into the ROM: every edit names a canonical component and an offset
// inside it, guarded by the bytes expected there. Replacement artifacts are workspace paths with the
// SHA-256 the caller expects them to have.
import { z } from 'zod/v4';
import { addressArg } from '../core/vocabulary.js';

const MiB = 1024 * 1024;

export const REBUILD_LIMITS = {
  /** Operations in one manifest. */
  operations: { max: 256, unit: 'operations' },
  /** Bytes of one guarded edit. */
  patchBytes: { max: 4096, unit: 'bytes' },
  /** Bytes of one replacement artifact (read whole when applied). */
  artifactBytes: { max: 64 * MiB, unit: 'bytes' },
  /**
   * Bytes of all distinct artifact files of one manifest together (a file named by several paths or
   * operations counts once): with the BLZ encoder's transient working memory (~15 bytes per byte of the
   * one image being encoded) this bounds a plan's memory, whatever the number of operations.
   */
  artifactTotalBytes: { max: 256 * MiB, unit: 'bytes' },
  /** Bytes of the manifest file. */
  manifestBytes: { max: 1 * MiB, unit: 'bytes' },
} as const;

const sha256 = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'a SHA-256 is 64 lower-case hex digits')
  .describe('SHA-256, 64 lower-case hex digits.');

const hexBytes = z
  .string()
  .regex(/^([0-9a-fA-F]{2})+$/, 'hex bytes: an even number of hex digits, no spaces')
  .max(REBUILD_LIMITS.patchBytes.max * 2);

/** A canonical component: a main executable, an overlay, a NitroFS file by ID or by path. */
export const selector = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('arm9') }),
  z.strictObject({ kind: z.literal('arm7') }),
  z.strictObject({
    kind: z.literal('overlay'),
    processor: z.enum(['arm9', 'arm7']),
    id: z.number().int().min(0).max(0xffffffff),
  }),
  z.strictObject({ kind: z.literal('file'), fileId: z.number().int().min(0).max(0xffff) }),
  z.strictObject({ kind: z.literal('path'), path: z.string().min(1).max(1024) }),
]);

const opId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'an operation id is 1..64 of A-Z a-z 0-9 . _ - ');

const workspacePath = z.string().min(1).max(1024).describe('Workspace-relative path of the artifact.');

const patchOp = z.strictObject({
  op: z.literal('patch'),
  id: opId,
  component: selector,
  /** Offset inside the component's stored bytes. */
  offset: addressArg('Offset inside the component'),
  original: hexBytes.describe('The bytes that must be there now (guard).'),
  replacement: hexBytes.describe('The bytes written instead; same length as original.'),
  /** Runtime guard: the runtime address the first edited byte must load at. */
  runtimeAddress: addressArg('Runtime address the first edited byte must map to').optional(),
  /** Component guard: SHA-256 of the whole component as stored. */
  componentSha256: sha256.optional(),
});

const replaceOp = z.strictObject({
  op: z.literal('replace-component'),
  id: opId,
  component: selector,
  artifact: workspacePath,
  artifactSha256: sha256,
  componentSha256: sha256.describe('Guard: SHA-256 of the component as stored now.'),
});

const replaceFileOp = z.strictObject({
  op: z.literal('replace-file'),
  id: opId,
  component: selector,
  artifact: workspacePath,
  artifactSha256: sha256,
  componentSha256: sha256.describe('Guard: SHA-256 of the file as stored now.'),
});

const addFileOp = z.strictObject({
  op: z.literal('add-file'),
  id: opId,
  path: z.string().min(1).max(1024).describe('New NitroFS path; missing directories are created.'),
  artifact: workspacePath,
  artifactSha256: sha256,
});

const replaceOverlayOp = z.strictObject({
  op: z.literal('replace-overlay'),
  id: opId,
  overlay: z.strictObject({
    processor: z.enum(['arm9', 'arm7']),
    id: z.number().int().min(0).max(0xffffffff),
  }),
  artifact: workspacePath.describe(
    "Decoded (runtime) overlay image: a multiple of 4 bytes, at most the overlay's RAM size plus its BSS (the BSS absorbs the difference).",
  ),
  artifactSha256: sha256.describe('SHA-256 of the decoded image.'),
  componentSha256: sha256.describe('Guard: SHA-256 of the overlay file as stored now.'),
});

const source = z.strictObject({ sha256, size: z.number().int().min(0x200).max(0xffffffff) });

const manifestV1Schema = z.strictObject({
  formatVersion: z.literal(1),
  source,
  operations: z
    .array(z.discriminatedUnion('op', [patchOp, replaceOp]))
    .min(1)
    .max(REBUILD_LIMITS.operations.max),
});

const manifestV2Schema = z.strictObject({
  formatVersion: z.literal(2),
  source,
  operations: z
    .array(z.discriminatedUnion('op', [patchOp, replaceOp, replaceFileOp, addFileOp, replaceOverlayOp]))
    .min(1)
    .max(REBUILD_LIMITS.operations.max),
});

export const manifestSchema = z.discriminatedUnion('formatVersion', [manifestV1Schema, manifestV2Schema]);

export type Manifest = z.output<typeof manifestSchema>;
export type ManifestOperation = Manifest['operations'][number];
