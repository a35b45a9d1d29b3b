import { z } from 'zod/v4';
import { inline } from '../../core/text-safety.js';
import { defineTool } from '../../mcp/tool.js';
import { findRepositories, GIT_LIMITS, repositoryStatus } from '../../project/git-status.js';
import { workspacePath } from '../shared/paths.js';

const repositorySchema = z.object({
  path: z.string(),
  branch: z.string().nullable(),
  detached: z.boolean(),
  head: z.string().nullable(),
  upstream: z.string().nullable(),
  ahead: z.number().int().nullable(),
  behind: z.number().int().nullable(),
  changedCount: z.number().int(),
  changed: z.array(z.object({ path: z.string(), status: z.string() })),
  truncated: z.boolean(),
  error: z.string().nullable(),
});

export const getProjectStatus = defineTool({
  name: 'get_project_status',
  title: 'Project git status',
  profiles: ['project'],
  description: {
    purpose: 'Git status (branch, ahead/behind, changed files) of the workspace and its child repositories.',
    useWhen: 'before and after changes; run_project_verification runs checks.',
    behaviour: 'no shell, minimal env, no repository-configured commands (fsmonitor, hooks, filters).',
    limits: `${GIT_LIMITS.timeoutMs.max} ms per git call.`,
  },
  input: z.object({
    repository: workspacePath(
      z.string().optional().describe('Workspace-relative; default: all found.'),
      'directory',
    ),
    maxRepositories: z
      .number()
      .int()
      .min(1)
      .max(GIT_LIMITS.repositories.max)
      .default(GIT_LIMITS.repositories.default),
    maxFiles: z
      .number()
      .int()
      .min(1)
      .max(GIT_LIMITS.files.max)
      .default(GIT_LIMITS.files.default)
      .describe('Per repository.'),
  }),
  output: z.object({ repositories: z.array(repositorySchema), repositoriesTruncated: z.boolean() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: GIT_LIMITS,
  async handler(args, ctx) {
    const { workspace } = ctx.services;
    let paths: string[];
    let repositoriesTruncated = false;
    if (args.repository !== undefined && args.repository !== '.') {
      paths = [(await workspace.resolveExisting(args.repository, 'directory')).relative];
    } else if (args.repository === '.') {
      paths = ['.'];
    } else {
      const found = await findRepositories(workspace.root, args.maxRepositories);
      paths = found.paths;
      repositoriesTruncated = found.truncated;
    }
    const repositories = [];
    for (const path of paths)
      repositories.push(await repositoryStatus(workspace.root, path, args.maxFiles, ctx.signal));
    const lines = repositories.map((r) =>
      r.error
        ? `${inline(r.path)}: ${inline(r.error)}`
        : `${inline(r.path)}: ${inline(r.branch ?? '(detached)')}${r.ahead !== null ? ` +${r.ahead}/-${r.behind}` : ''}, ${r.changedCount} changed`,
    );
    return {
      structured: { repositories, repositoriesTruncated },
      text: repositories.length === 0 ? 'no git repositories in the workspace' : lines.join('\n'),
    };
  },
});
