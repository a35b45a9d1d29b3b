import { z } from 'zod/v4';
import { EXTRACT_LIMITS } from '../../extract/artifacts.js';
import { buildAnalysisBundle } from '../../extract/bundle.js';
import { defineTool } from '../../mcp/tool.js';
import { romArg, withToolRom } from '../shared/rom.js';

const MiB = 1024 * 1024;

export const ndsExtractAnalysisBundle = defineTool({
  name: 'nds_extract_analysis_bundle',
  title: 'Extract the analysis bundle',
  profiles: ['static'],
  description: {
    purpose: 'Writes manifest, address map, file/overlay tables, executables and overlays as stored.',
    useWhen: 'handing a ROM to an external tool; nds_extract_component for one component.',
    behaviour: 'replaces the previous bundle atomically, keeping components/.',
    limits: `${EXTRACT_LIMITS.componentBytes.max / MiB} MiB per executable or overlay; 4096 overlays per table.`,
  },
  input: z.object({ rom: romArg }),
  output: z.object({
    directory: z.string(),
    sourceSha256: z.string(),
    sourceSize: z.number().int(),
    bundleId: z.string(),
    files: z.number().int(),
    totalBytes: z.number().int(),
    overlays: z.object({ arm9: z.number().int(), arm7: z.number().int() }),
    replacedPrevious: z.boolean(),
    recovered: z.array(z.string()),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: EXTRACT_LIMITS,
  async handler(args, ctx) {
    const r = await withToolRom(
      ctx,
      args.rom,
      (rom) => buildAnalysisBundle(ctx.services.workspace, rom, { signal: ctx.signal }),
      null,
    );
    return {
      structured: r,
      text: `bundle ${r.directory}: ${r.files} files, ${r.totalBytes} bytes, ${r.overlays.arm9}+${r.overlays.arm7} overlays${r.replacedPrevious ? ' (replaced the previous bundle)' : ''}`,
    };
  },
});
