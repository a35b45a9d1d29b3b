import { defineTool } from '../../mcp/tool.js';
import { verifyBuild } from '../../rebuild/service.js';
import { READ_ONLY } from '../shared/annotations.js';
import { withToolRom } from '../shared/rom.js';
import { buildOutput, REBUILD_LIMITS_LINE, REBUILD_TOOL_LIMITS, rebuildInput, shapeBuild } from './common.js';

export const ndsMutationVerify = defineTool({
  name: 'nds_mutation_verify',
  title: 'Verify an existing NDS rebuild',
  profiles: ['build'],
  description: {
    purpose: 'Re-checks a published build: manifest, evidence files, ROM bytes and semantics.',
    useWhen: 'to trust a build on disk; never repairs (nds_mutation_build rebuilds).',
    behaviour: 'verification-failed on any difference, even an extra file.',
    limits: `${REBUILD_LIMITS_LINE}.`,
  },
  input: rebuildInput,
  output: buildOutput,
  annotations: READ_ONLY,
  limits: REBUILD_TOOL_LIMITS,
  async handler(args, ctx) {
    // The manifest path is checked before the ROM is opened (a bad path is refused cheaply).
    await ctx.services.workspace.resolveExisting(args.manifest, 'file');
    const r = await withToolRom(
      ctx,
      args.rom,
      (rom) => verifyBuild(ctx.services.workspace, rom, args.manifest, ctx.signal),
      null,
    );
    return {
      structured: shapeBuild(r),
      text: `verified ${r.rom}: ${r.verification.checks.length} checks passed, sha256 ${r.outputSha256}`,
    };
  },
});
