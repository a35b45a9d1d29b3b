// Pieces the three rebuild tools share: the arguments (a ROM and a manifest, both workspace files)
// and the result shape.
import { z } from 'zod/v4';
import { REBUILD_LIMITS } from '../../rebuild/manifest.js';
import type { BuildResult } from '../../rebuild/service.js';
import { romArg } from '../shared/rom.js';

export const rebuildInput = z.object({
  rom: romArg,
  manifest: z.string().min(1).max(1024).describe('Workspace-relative JSON (docs/REBUILD.md).'),
});

export const REBUILD_TOOL_LIMITS = REBUILD_LIMITS;

const MiB = 1024 * 1024;
/** The Limits line all three tools share (each declares the same limits). */
export const REBUILD_LIMITS_LINE = `${REBUILD_LIMITS.operations.max} operations, ${REBUILD_LIMITS.patchBytes.max}-byte edits, ${REBUILD_LIMITS.artifactBytes.max / MiB} MiB artifacts (${REBUILD_LIMITS.artifactTotalBytes.max / MiB} MiB of distinct files in all), ${REBUILD_LIMITS.manifestBytes.max / MiB} MiB manifest`;

export const buildOutput = z.object({
  buildId: z.string(),
  outputDir: z.string(),
  rom: z.string(),
  outputSha256: z.string(),
  outputSize: z.number().int(),
  reused: z.boolean(),
  rebuildSemanticsVerified: z.literal(true),
  changedPrefixBytes: z.number().int(),
  checks: z.array(z.string()),
  patches: z
    .object({
      bps: z.string(),
      ips: z.string().nullable(),
      ipsRefused: z.string().nullable().describe('Why there is no IPS patch'),
    })
    .describe('Distributable patches from the source to the output, each checked by applying it'),
});

export function shapeBuild(r: BuildResult): z.input<typeof buildOutput> {
  return {
    buildId: r.buildId,
    outputDir: r.outputDir,
    rom: r.rom,
    outputSha256: r.outputSha256,
    outputSize: r.outputSize,
    reused: r.reused,
    rebuildSemanticsVerified: r.verification.rebuildSemanticsVerified,
    changedPrefixBytes: r.verification.changedPrefixBytes,
    checks: r.verification.checks,
    patches: r.patches,
  };
}
