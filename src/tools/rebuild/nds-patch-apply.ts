// nds_patch_apply: a shared BPS or IPS patch applied to a workspace ROM; the result is published under
// output/patched/ and the source is left as it is (src/rebuild/apply.ts).
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { APPLY_CHECKS, APPLY_LIMITS, applyPatchFile, PATCH_FORMATS } from '../../rebuild/apply.js';
import { workspacePath } from '../shared/paths.js';
import { romArg, withToolRom } from '../shared/rom.js';
import { carriedNamesOut, carriedText, carryTo } from './carry.js';

const MiB = 1024 * 1024;

export const ndsPatchApply = defineTool({
  name: 'nds_patch_apply',
  title: 'Apply a BPS or IPS patch to a ROM',
  profiles: ['build'],
  description: {
    purpose: 'Applies a BPS or IPS patch file to a ROM; writes the result under output/patched/.',
    useWhen: 'someone shared a patch; nds_mutation_build to make one (it writes patch.bps/.ips).',
    behaviour:
      'source untouched; BPS: its source and result CRC-32s must match (else verification-failed); IPS has no checksums.',
    limits: `patch ${APPLY_LIMITS.patchBytes.max / MiB} MiB, result ${APPLY_LIMITS.targetBytes.max / MiB} MiB, ${APPLY_LIMITS.ipsRecords.max} IPS records, applied in ${APPLY_LIMITS.applyMs.max / 1000} s; output/patched/ holds ${APPLY_LIMITS.patchedBytes.max / 2 ** 30} GiB.`,
  },
  input: z.object({
    rom: romArg,
    patch: workspacePath(
      z.string().min(1).max(1024).describe('Workspace-relative .bps or .ips file.'),
      'file',
    ),
  }),
  output: z.object({
    format: z.enum(PATCH_FORMATS),
    patchSha256: z.string(),
    output: z.string(),
    outputSha256: z.string(),
    outputSize: z.number().int(),
    checked: z.enum(APPLY_CHECKS),
    metadata: z.string().nullable().describe("The BPS patch's own metadata text"),
    names: carriedNamesOut,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: APPLY_LIMITS,
  async handler(args, ctx) {
    // The patch path is checked before the ROM is opened (a bad path is refused cheaply).
    await ctx.services.workspace.resolveExisting(args.patch, 'file');
    const r = await withToolRom(
      ctx,
      args.rom,
      (rom) => applyPatchFile(ctx.services.workspace, rom, args.patch, ctx.services.memory, ctx.signal),
      null,
    );
    // The source's names follow the patch where its bytes still hold them.
    const names = await carryTo(ctx, args.rom, r.output);
    return {
      structured: { ...r, names },
      text: `${r.format.toUpperCase()} patch applied: ${r.output} (${r.outputSize} bytes, sha256 ${r.outputSha256}); checked: ${r.checked}\n${carriedText(names)}`,
    };
  },
});
