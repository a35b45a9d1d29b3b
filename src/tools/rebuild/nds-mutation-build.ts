import { defineTool } from '../../mcp/tool.js';
import { getRomStore } from '../../nds/rom-store.js';
import { buildManifest } from '../../rebuild/service.js';
import { buildOutput, REBUILD_TOOL_LIMITS, rebuildInput, shapeBuild } from './common.js';

export const ndsMutationBuild = defineTool({
  name: 'nds_mutation_build',
  title: 'Build a rebuilt NDS ROM from a manifest',
  profiles: ['build'],
  description: {
    purpose:
      'Applies a validated mutation manifest to a temporary copy of the source ROM, verifies the result and publishes it atomically.',
    useWhen:
      'after nds_mutation_validate passes; use nds_mutation_verify to re-check an existing build without building.',
    behaviour:
      'writes output/nds/<sha16>/<build-id>/ (rebuilt.nds, mutation-manifest.json, resolved-plan.json, verification.json, changed-components.json, output.sha256); nothing is visible there until every check passed; an identical existing build is reused only after fresh verification, a divergent one is a publish-collision and left untouched; the source ROM is never written.',
    limits: `as nds_mutation_validate: at most ${REBUILD_TOOL_LIMITS.operations.max} operations, ${REBUILD_TOOL_LIMITS.artifactBytes.max / 1048576} MiB per artifact; the ROM is streamed in 4 MiB chunks.`,
    returns:
      'buildId, outputDir, rom (workspace-relative), outputSha256, outputSize, reused, rebuildSemanticsVerified, changedPrefixBytes, checks.',
  },
  input: rebuildInput,
  output: buildOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: REBUILD_TOOL_LIMITS,
  async handler(args, ctx) {
    // The manifest path is checked before the ROM is opened (a bad path is refused cheaply).
    await ctx.services.workspace.resolveExisting(args.manifest, 'file');
    const r = await getRomStore(ctx.services).withRom(
      args.rom,
      (rom) =>
        buildManifest(ctx.services.workspace, rom, args.manifest, {
          signal: ctx.signal,
          onProgress: (done, total) => {
            // One report per 32 MiB written (and the last), so a 256 MiB ROM sends a handful.
            if (done === total || done % (32 * 1024 * 1024) === 0) {
              ctx.progress({ progress: done, total, message: 'writing the rebuilt ROM' });
            }
          },
        }),
      ctx.signal,
    );
    return {
      structured: shapeBuild(r),
      text: `${r.reused ? 'reused verified' : 'built'} ${r.rom} (${r.outputSize} bytes, sha256 ${r.outputSha256})`,
    };
  },
});
