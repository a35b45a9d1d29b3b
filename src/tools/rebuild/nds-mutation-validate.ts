import { z } from 'zod/v4';
import { addressOut } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { validateManifest } from '../../rebuild/service.js';
import { READ_ONLY } from '../shared/annotations.js';
import { withToolRom } from '../shared/rom.js';
import { REBUILD_LIMITS_LINE, REBUILD_TOOL_LIMITS, rebuildInput } from './common.js';

const range = z.object({ start: addressOut, end: addressOut });

export const ndsMutationValidate = defineTool({
  name: 'nds_mutation_validate',
  title: 'Validate an NDS mutation manifest',
  profiles: ['build'],
  description: {
    purpose: 'Checks a manifest against the source ROM and plans the build; writes nothing.',
    useWhen: 'before nds_mutation_build; nds_mutation_verify checks an existing build.',
    behaviour:
      'format 1: same-size guarded edits, component replacement; format 2 adds resized and new NitroFS files.',
    limits: `${REBUILD_LIMITS_LINE}.`,
  },
  input: rebuildInput,
  output: z.object({
    buildId: z.string(),
    outputDir: z.string(),
    formatVersion: z.number().int(),
    sourceSha256: z.string(),
    outputSize: z.number().int(),
    deviceCapacity: z.number().int(),
    operations: z.array(
      z.object({
        id: z.string(),
        op: z.string(),
        component: z.string().nullable(),
        fileId: z.number().int().nullable(),
        path: z.string().nullable(),
        output: range,
        length: z.number().int(),
        beforeSha256: z.string().nullable(),
        afterSha256: z.string(),
      }),
    ),
    headerRewrite: z.array(z.object({ field: z.string(), before: addressOut, after: addressOut })),
    tables: z.array(z.object({ table: z.string(), start: addressOut, end: addressOut, sha256: z.string() })),
  }),
  annotations: READ_ONLY,
  limits: REBUILD_TOOL_LIMITS,
  async handler(args, ctx) {
    // The manifest path is checked before the ROM is opened (a bad path is refused cheaply).
    await ctx.services.workspace.resolveExisting(args.manifest, 'file');
    const v = await withToolRom(
      ctx,
      args.rom,
      (rom) => validateManifest(ctx.services.workspace, rom, args.manifest, ctx.signal),
      null,
    );
    const r = v.plan.resolved;
    return {
      structured: {
        buildId: r.buildId,
        outputDir: v.outputDir,
        formatVersion: r.formatVersion,
        sourceSha256: r.source.sha256,
        outputSize: r.output.size,
        deviceCapacity: r.deviceCapacity,
        operations: r.operations.map((o) => ({
          id: o.id,
          op: o.op,
          component: o.component,
          fileId: o.fileId,
          path: o.path,
          output: o.output,
          length: o.length,
          beforeSha256: o.beforeSha256,
          afterSha256: o.afterSha256,
        })),
        headerRewrite: r.headerRewrite,
        tables: r.tables,
      },
      text: `valid: ${r.operations.length} operation(s), build ${r.buildId} -> ${v.outputDir} (${r.output.size} bytes)`,
    };
  },
});
