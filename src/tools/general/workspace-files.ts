// The workspace file tools: list_workspace_files (what the workspace holds, with sizes) and
// verify_file_sha256 (one file's digest, compared with an expected one).
import { z } from 'zod/v4';
import { BOUNDED_STATUSES, limitArg, pageOut, paginate } from '../../core/vocabulary.js';
import { defineTool, type ToolContext } from '../../mcp/tool.js';
import { sha256File } from '../../workspace/hash.js';
import { LISTED_KINDS, LISTING_LIMITS, LISTING_TRUNCATIONS, listWorkspace } from '../../workspace/listing.js';
import { workspacePath } from '../shared/paths.js';

// list_workspace_files: the bounded, breadth-first listing of the workspace.
const L = LISTING_LIMITS;
const PAGE = {
  offset: { default: 0, min: 0, max: 100_000, unit: 'entries skipped' },
  limit: { default: 200, min: 1, max: 1_000, unit: 'entries listed' },
} as const;

export const listWorkspaceFiles = defineTool({
  name: 'list_workspace_files',
  title: 'List workspace files',
  profiles: ['static', 'runtime', 'build', 'project'],
  description: {
    purpose: 'The files and directories of the workspace (or one directory of it), with sizes.',
    useWhen: 'the path of a ROM, manifest or artifact for another tool; suffix ".nds" for ROMs.',
    behaviour:
      'breadth-first, name order; hidden skipped (counted); symlinks listed, not followed; usable false: tools refuse it.',
    limits: `${L.maxEntries.max} entries visited, ${L.maxDepth.max} levels, pages of ${PAGE.limit.max}.`,
  },
  input: z.object({
    under: workspacePath(
      z.string().min(1).max(1024).optional().describe('Workspace-relative directory (default the root).'),
      'directory',
    ),
    suffix: z
      .string()
      .regex(/^\.[A-Za-z0-9]{1,15}$/, 'a dot and 1..15 letters or digits')
      .optional()
      .describe('Only files ending so (case-insensitive).'),
    maxDepth: limitArg(L.maxDepth),
    maxEntries: limitArg(L.maxEntries),
    offset: limitArg(PAGE.offset),
    limit: limitArg(PAGE.limit),
  }),
  output: z.object({
    under: z.string().describe('"" for the root'),
    status: z.enum(BOUNDED_STATUSES),
    truncation: z.array(z.enum(LISTING_TRUNCATIONS)),
    totals: z.object({
      files: z.number().int(),
      directories: z.number().int(),
      symlinks: z.number().int(),
      other: z.number().int(),
      bytes: z.number().int(),
      hidden: z.number().int(),
      notEntered: z.number().int().describe('Directories at maxDepth, not listed inside'),
    }),
    page: z.object(pageOut),
    entries: z.array(
      z.object({
        path: z.string(),
        kind: z.enum(LISTED_KINDS),
        size: z.number().int().nullable(),
        target: z.string().nullable(),
        outside: z.boolean(),
        usable: z.boolean(),
      }),
    ),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { ...L, ...PAGE },
  async handler(args, ctx) {
    // The entries visited are held until the page is cut: reserved from the server's memory budget.
    const held = await ctx.services.memory.reserve(
      args.maxEntries * LISTED_ENTRY_BYTES,
      'a workspace listing',
      {
        signal: ctx.signal,
      },
    );
    try {
      return await listPage(args, ctx);
    } finally {
      held.release();
    }
  },
});

/** Memory one listed entry takes at most (its record, its path, its share of the page's rendering). */
const LISTED_ENTRY_BYTES = 512;

async function listPage(
  args: {
    under?: string | undefined;
    suffix?: string | undefined;
    maxDepth: number;
    maxEntries: number;
    offset: number;
    limit: number;
  },
  ctx: ToolContext,
) {
  const listing = await listWorkspace(ctx.services.workspace, {
    ...(args.under !== undefined ? { under: args.under } : {}),
    ...(args.suffix !== undefined ? { suffix: args.suffix } : {}),
    maxDepth: args.maxDepth,
    maxEntries: args.maxEntries,
    signal: ctx.signal,
    onProgress: (visited) => ctx.progress({ progress: visited, message: 'listing' }),
  });
  const page = paginate(listing.entries, args.offset, args.limit);
  const status = listing.truncation.length > 0 ? ('truncated' as const) : ('complete' as const);
  const { totals } = listing;
  const where = listing.under === '' ? 'the workspace' : listing.under;
  return {
    structured: {
      under: listing.under,
      status,
      truncation: listing.truncation,
      totals: { ...totals, hidden: listing.hidden, notEntered: listing.notEntered },
      page: { total: page.total, offset: page.offset, nextOffset: page.nextOffset },
      entries: page.items,
    },
    text: `${where}: ${totals.files} files (${totals.bytes} bytes), ${totals.directories} directories, ${totals.symlinks} symlinks${listing.hidden > 0 ? `, ${listing.hidden} hidden skipped` : ''}; ${args.suffix !== undefined ? `${page.total} ending ${args.suffix}, ` : ''}listing ${page.items.length} from ${page.offset}${page.nextOffset !== null ? `, next offset ${page.nextOffset}` : ''}; ${status}${listing.truncation.length > 0 ? ` (${listing.truncation.join(', ')})` : ''}`,
  };
}

// verify_file_sha256: a workspace file's SHA-256, streamed.
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
    path: workspacePath(z.string().describe('Workspace-relative regular file.'), 'file'),
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
