// Adapts the pipeline's results and tool list to what the connected client can take, at the MCP
// boundary only (the CLI's `call` and in-process callers see the pipeline's own form).
//
// Errors: a tool error travels WITHOUT structuredContent. The 1.x TypeScript SDK client (inside most
// hosts and the MCP Inspector) validates any structuredContent against the tool's outputSchema, error
// or not, and replaces a non-matching one by its own -32602 exception: the user would never see our
// code. The stable code stays machine-readable in `_meta["re-mcp/error"]` ({code, message, details?})
// and human-readable as the text block's first token, "[code] message".
//
// Protocol versions: outputSchema, structuredContent and tool `title` exist from 2025-06-18; tool
// annotations from 2025-03-26 (whose annotations carry the tool's title). Older clients get neither
// (the text block carries the data).
import { ERROR_CODES } from '../core/errors.js';
import type { ToolCallResult, ToolError } from './invoke.js';

/** The fields of a listed tool that depend on the protocol version (the rest pass through). */
interface VersionedTool {
  title?: string;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
}

export const ERROR_META_KEY = 're-mcp/error';

/** JSON Schema of `_meta["re-mcp/error"]` (documented in docs/clients.md; checked by the tests). */
export const ERROR_META_SCHEMA = {
  type: 'object',
  properties: {
    code: { type: 'string', enum: [...ERROR_CODES] },
    message: { type: 'string', minLength: 1 },
    details: { type: 'object' },
  },
  required: ['code', 'message'],
  additionalProperties: false,
} as const;

const STRUCTURED_SINCE = '2025-06-18';
const ANNOTATIONS_SINCE = '2025-03-26';

/** Protocol versions are dates; an unknown (absent) version is treated as the newest. */
function atLeast(version: string | undefined, since: string): boolean {
  return version === undefined || version >= since;
}

export function toWireResult(result: ToolCallResult, version: string | undefined): ToolCallResult {
  if (result.isError) {
    const error = (result.structuredContent as { error?: ToolError } | undefined)?.error;
    const { structuredContent: _dropped, ...rest } = result;
    if (!error) return rest;
    const details = error.details ? `\ndetails: ${JSON.stringify(error.details)}` : '';
    return {
      ...rest,
      content: [{ type: 'text', text: `[${error.code}] ${error.message}${details}` }],
      _meta: { [ERROR_META_KEY]: error },
    };
  }
  if (atLeast(version, STRUCTURED_SINCE)) return result;
  const { structuredContent: _dropped, ...rest } = result;
  return rest;
}

/** True when a client of `version` gets the published definitions unchanged (tools/list as built). */
export function takesPublishedTools(version: string | undefined): boolean {
  return atLeast(version, STRUCTURED_SINCE);
}

export function toWireTools<T extends VersionedTool>(
  tools: readonly T[],
  version: string | undefined,
): unknown[] {
  if (takesPublishedTools(version)) return [...tools];
  const annotations = atLeast(version, ANNOTATIONS_SINCE);
  return tools.map(({ outputSchema: _o, title: _t, annotations: a, ...rest }) =>
    // 2025-03-26 knows no top-level title: it travels in annotations there.
    annotations ? { ...rest, annotations: { title: _t, ...a } } : rest,
  );
}
