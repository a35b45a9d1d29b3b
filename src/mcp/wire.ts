// Adapts the pipeline's results and tool list to what the connected client can take, at the MCP
// boundary only (the CLI's `call` and in-process callers see the pipeline's own form).
//
// Errors: a tool error travels WITHOUT structuredContent. The 1.x TypeScript SDK client (inside most
// hosts and the MCP Inspector) validates any structuredContent against the tool's outputSchema, error
// or not, and replaces a non-matching one by its own -32602 exception: the user would never see our
// code. The stable code stays machine-readable in `_meta["re-mcp/error"]` ({code, message, details?})
// and human-readable as the text block's first token, "[code] message".
//
// Text: every string a person reads that leaves the server (text blocks, error messages, progress
// messages) has its control, bidi and invisible characters escaped here, at the boundary (wireText;
// a text block keeps its tabs, line feeds and CRLF pairs, a lone CR is escaped),
// whatever layer made it: an armips message, a RetroArch reason or a launch log cannot carry a raw
// ESC or U+202E to the host. Escaping is idempotent (an escape is plain ASCII), so text a renderer
// escaped already is unchanged. Structured data (structuredContent, error details) keeps raw strings.
//
// Protocol versions: outputSchema, structuredContent and tool `title` exist from 2025-06-18; tool
// annotations from 2025-03-26 (whose annotations carry the tool's title). Older clients get neither
// (the text block carries the data).
import { ERROR_CODES } from '../core/errors.js';
import { escapeUnsafe, inline } from '../core/text-safety.js';
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

/**
 * Text for the wire: unsafe characters escaped; where the text is laid out in lines, tabs, line feeds
 * and CRLF pairs kept (a lone CR escaped), else every control escaped.
 */
export function wireText(text: string, lines = true): string {
  return escapeUnsafe(text, lines ? 'lines' : 'strict').text;
}

/** The result's text blocks through wireText (images and other blocks as they are). */
function safeContent(content: ToolCallResult['content']): ToolCallResult['content'] {
  return content.map((block) => (block.type === 'text' ? { ...block, text: wireText(block.text) } : block));
}

export function toWireResult(result: ToolCallResult, version: string | undefined): ToolCallResult {
  if (result.isError) {
    const error = (result.structuredContent as { error?: ToolError } | undefined)?.error;
    const { structuredContent: _dropped, ...rest } = result;
    if (!error) return { ...rest, content: safeContent(rest.content) };
    const message = inline(error.message);
    const details = error.details ? `\ndetails: ${inline(JSON.stringify(error.details))}` : '';
    return {
      ...rest,
      content: [{ type: 'text', text: `[${error.code}] ${message}${details}` }],
      _meta: { [ERROR_META_KEY]: { ...error, message } },
    };
  }
  const safe = { ...result, content: safeContent(result.content) };
  if (atLeast(version, STRUCTURED_SINCE)) return safe;
  const { structuredContent: _dropped, ...rest } = safe;
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
