import { defineTool } from '../../mcp/tool.js';
import { buildManifest } from '../../rebuild/service.js';
import { withToolRom } from '../shared/rom.js';
import { buildOutput, REBUILD_LIMITS_LINE, REBUILD_TOOL_LIMITS, rebuildInput, shapeBuild } from './common.js';

export const ndsMutationBuild = defineTool({
  name: 'nds_mutation_build',
  title: 'Build a rebuilt NDS ROM from a manifest',
  profiles: ['build'],
  description: {
    purpose: 'Applies a manifest to a copy of the ROM, verifies and publishes it.',
    useWhen: 'after nds_mutation_validate passes.',
    behaviour:
      'publishes only when every check passed; an identical existing build is re-verified and reused, a different one is publish-collision.',
    limits: `${REBUILD_LIMITS_LINE}.`,
  },
  input: rebuildInput,
  output: buildOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: REBUILD_TOOL_LIMITS,
  async handler(args, ctx) {
    // The manifest path is checked before the ROM is opened (a bad path is refused cheaply).
    await ctx.services.workspace.resolveExisting(args.manifest, 'file');
    const r = await withToolRom(
      ctx,
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
      null,
    );
    return {
      structured: shapeBuild(r),
      text: `${r.reused ? 'reused verified' : 'built'} ${r.rom} (${r.outputSize} bytes, sha256 ${r.outputSha256})`,
    };
  },
});
