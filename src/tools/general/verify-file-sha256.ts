import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { sha256File } from '../../workspace/hash.js';

export const verifyFileSha256 = defineTool({
  name: 'verify_file_sha256',
  title: 'Verify a file SHA-256',
  profiles: ['static', 'runtime', 'build', 'project'],
  description: {
    purpose: 'SHA-256 of a workspace file, compared with an optional expected digest.',
    useWhen: "checking a ROM, build output or download; nds_inspect_rom already reports a ROM's.",
    behaviour: 'streams the file, with progress.',
    limits: 'a regular file; any size.',
    returns: 'matches is null when nothing was expected.',
  },
  input: z.object({
    path: z.string().describe('Workspace-relative regular file.'),
    expectedSha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, '64 hex digits')
      .optional(),
  }),
  output: z.object({
    path: z.string(),
    size: z.number().int(),
    sha256: z.string(),
    expected: z.string().nullable(),
    matches: z.boolean().nullable(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    const { resolved: file, handle } = await ctx.services.workspace.openFile(args.path);
    let digest: { sha256: string; size: number };
    try {
      digest = await sha256File(handle, {
        signal: ctx.signal,
        onProgress: (done, total) => ctx.progress({ progress: done, total, message: 'hashing' }),
      });
    } finally {
      await handle.close();
    }
    const { sha256, size } = digest;
    const expected = args.expectedSha256?.toLowerCase() ?? null;
    const matches = expected === null ? null : expected === sha256;
    const verdict = matches === null ? '' : matches ? ' (matches)' : ` (MISMATCH: expected ${expected})`;
    return {
      structured: { path: file.relative, size, sha256, expected, matches },
      text: `${file.relative}: ${size} bytes, sha256 ${sha256}${verdict}`,
    };
  },
});
