// Workspace path arguments, declared once: every argument a tool resolves in the workspace is made
// with workspacePath, which marks it with the kind of entry it names (and, when the tool reads it only
// for some values of its other arguments, those values). The tests derive their hostile-path calls
// from the marks (test/workspace/hostile-paths.test.ts), so a new path argument needs no list. The
// marks live in a registry of their own: tools/list does not carry them.
import { z } from 'zod/v4';

const PATH_KINDS = ['file', 'directory'] as const;
export type PathKind = (typeof PATH_KINDS)[number];

interface PathMark {
  /** What the path names. */
  workspacePath: PathKind;
  /** Other arguments the tool needs before it reads this path, where its required ones are not enough. */
  readWith?: Record<string, unknown>;
}

/** The marks; read them with `z.toJSONSchema(input, { metadata: WORKSPACE_PATHS })`. */
export const WORKSPACE_PATHS = z.registry<PathMark>();

/** `schema`, marked as a workspace path naming a `kind` (read when the other arguments are `readWith`). */
export function workspacePath<T extends z.ZodType>(
  schema: T,
  kind: PathKind,
  readWith?: Record<string, unknown>,
): T {
  WORKSPACE_PATHS.add(
    schema,
    readWith === undefined ? { workspacePath: kind } : { workspacePath: kind, readWith },
  );
  return schema;
}
