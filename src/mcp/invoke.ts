// The single tool-call pipeline shared by the MCP server and `re-mcp call`: input validation, handler
// execution with progress and cancellation, error mapping, output validation and the output bound.

import type { z } from 'zod/v4';
import { type ErrorCode, isReMcpError } from '../core/errors.js';
import { inline } from '../core/text-safety.js';
import { formatAddress } from '../core/vocabulary.js';
import type { Services } from '../services.js';
import { isExactOutput } from './exact-output.js';
import { NAMES_META_KEY, type NameUse, namesLine, resolveNamedArguments } from './named-args.js';
import { renderToolText } from './render/registry.js';
import type { ProgressUpdate, ToolDefinition } from './tool.js';

export interface ToolError {
  code: ErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

export interface ToolCallResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string } | { type: 'image'; data: string; mimeType: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

interface InvokeOptions {
  signal: AbortSignal;
  /** Receives progress updates (already made monotonic and rate-limited). */
  onProgress?: (update: ProgressUpdate) => void;
  /** Stack traces of internal errors go here (stderr in the server). */
  log?: (line: string) => void;
}

const PROGRESS_INTERVAL_MS = 100;
/** Room kept for the JSON-RPC envelope around a result when sizing its text block. */
const TEXT_SLACK_BYTES = 256;

export function errorResult(error: ToolError): ToolCallResult {
  return {
    content: [{ type: 'text', text: `[${error.code}] ${inline(error.message)}` }],
    structuredContent: { error },
    isError: true,
  };
}

function describeZodIssues(error: z.ZodError): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const path = issue.path.length > 0 ? issue.path.join('.') : '(arguments)';
    return `${path}: ${issue.message}`;
  });
  if (error.issues.length > 5) parts.push(`and ${error.issues.length - 5} more`);
  return parts.join('; ');
}

function makeProgress(
  onProgress: InvokeOptions['onProgress'],
  finished: () => boolean,
  signal: AbortSignal,
): (update: ProgressUpdate) => void {
  if (!onProgress) return () => {};
  let last = Number.NEGATIVE_INFINITY;
  let lastAt = 0;
  return (update) => {
    // A callback that fires after the result (a stray timer, a late stream event) must not send a
    // progress notification for a request that has already completed.
    // Nor does a cancelled one: the client has stopped listening for it.
    if (finished() || signal.aborted) return;
    const now = Date.now();
    const isFinal = update.total !== undefined && update.progress >= update.total;
    if (update.progress <= last) return;
    if (!isFinal && now - lastAt < PROGRESS_INTERVAL_MS) return;
    last = update.progress;
    lastAt = now;
    onProgress(update);
  };
}

/** Longest error message kept when an error result would exceed the output bound. */
const BOUNDED_ERROR_CHARS = 256;

/**
 * Error results are bounded too: one over RE_MCP_MAX_OUTPUT_BYTES keeps its code and the start of its
 * message, and loses its details. (Successes over the bound are refused in `invokeTool` itself.)
 */
/** Detail keys that hold an address or offset: written as every result writes one ("0x0200a1b4"). */
const ADDRESS_KEYS = new Set([
  'address',
  'offset',
  'romOffset',
  'start',
  'end',
  'target',
  'pc',
  'lr',
  'sp',
  'base',
  'runtimeAddress',
  'returnAddress',
]);

/** An error's details with its address-valued fields in the one address form (hex strings). */
function addressForms(details: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(details))
    out[k] =
      ADDRESS_KEYS.has(k) && typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffff_ffff
        ? formatAddress(v)
        : v;
  return out;
}

function boundErrorResult(result: ToolCallResult, limit: number): ToolCallResult {
  if (!result.isError || Buffer.byteLength(JSON.stringify(result), 'utf8') <= limit) return result;
  const error = (result.structuredContent as { error: ToolError }).error;
  return errorResult({
    code: error.code,
    message: `${error.message.slice(0, BOUNDED_ERROR_CHARS)}... (cut: the error exceeded RE_MCP_MAX_OUTPUT_BYTES)`,
  });
}

/** The JSON text of a success result's structuredContent, made once by invokeTool (structuredJson). */
const structuredJsonOf = new WeakMap<ToolCallResult, string>();

export function structuredJson(result: ToolCallResult): string | undefined {
  return structuredJsonOf.get(result);
}

export async function invokeTool(
  def: ToolDefinition,
  rawArgs: unknown,
  services: Services,
  options: InvokeOptions,
): Promise<ToolCallResult> {
  let finished = false;
  try {
    const result = await invokeUnbounded(def, rawArgs, services, options, () => finished);
    return boundErrorResult(result, services.config.maxOutputBytes);
  } finally {
    finished = true;
  }
}

async function invokeUnbounded(
  def: ToolDefinition,
  rawArgs: unknown,
  services: Services,
  options: InvokeOptions,
  finished: () => boolean,
): Promise<ToolCallResult> {
  // Unknown top-level arguments are refused rather than silently dropped: a misspelt limit or
  // selector must not quietly fall back to a default. Own keys only: `constructor` or `__proto__`
  // are not arguments of any tool.
  if (rawArgs !== null && typeof rawArgs === 'object' && !Array.isArray(rawArgs)) {
    const unknown = Object.keys(rawArgs).filter((key) => !Object.hasOwn(def.input.shape, key));
    if (unknown.length > 0) {
      return errorResult({
        code: 'invalid-argument',
        message: `unknown argument(s): ${unknown.slice(0, 5).join(', ')}`,
      });
    }
  }
  const parsed = def.input.safeParse(rawArgs ?? {});
  if (!parsed.success) {
    return errorResult({ code: 'invalid-argument', message: describeZodIssues(parsed.error) });
  }
  let success: Awaited<ReturnType<ToolDefinition['handler']>>;
  let names: NameUse[] = [];
  try {
    if (options.signal.aborted)
      return errorResult({ code: 'cancelled', message: 'cancelled before it started' });
    const ctx = {
      services,
      signal: options.signal,
      progress: makeProgress(options.onProgress, finished, options.signal),
    };
    // Names given for addresses become addresses before the handler runs (named-args.ts).
    names = await resolveNamedArguments(def, parsed.data as Record<string, unknown>, ctx);
    success = await def.handler(parsed.data, names.length > 0 ? { ...ctx, names } : ctx);
  } catch (error) {
    if (isReMcpError(error)) {
      return errorResult({
        code: error.code,
        message: error.message,
        ...(error.details ? { details: addressForms(error.details) } : {}),
      });
    }
    if (options.signal.aborted)
      return errorResult({ code: 'cancelled', message: 'the operation was cancelled' });
    options.log?.(
      `re-mcp: internal error in ${def.name}: ${error instanceof Error ? error.stack : String(error)}`,
    );
    return errorResult({
      code: 'internal-error',
      message: `unexpected failure in ${def.name}: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  // A result that is exactly what zod's parse would return is used as it is (exact-output.ts); any
  // other goes through zod, which reports it or makes the canonical copy.
  const exact = isExactOutput(def.output, success.structured);
  const checked = exact
    ? { success: true as const, data: success.structured }
    : def.output.safeParse(success.structured);
  if (!checked.success) {
    options.log?.(
      `re-mcp: ${def.name} produced output outside its schema: ${describeZodIssues(checked.error)}`,
    );
    return errorResult({
      code: 'internal-error',
      message: `${def.name} produced a result outside its output schema: ${describeZodIssues(checked.error)}`,
    });
  }
  const structured = checked.data as Record<string, unknown>;
  const limit = services.config.maxOutputBytes;
  const images = success.images ?? [];
  // Serialized once: the bound's arithmetic and the text's rendering both start from this JSON (it is
  // what a client receives), and the whole result's size follows from its parts.
  const structuredJson = JSON.stringify(structured);
  const imagesJson = images.map((image) => `,${JSON.stringify(image)}`).join('');
  const metaJson = names.length > 0 ? JSON.stringify({ [NAMES_META_KEY]: names }) : null;
  // The text block carries the data too (clients that show only content[], older protocol versions):
  // it gets whatever the bound leaves after the structured result and the images.
  const frame = Buffer.byteLength(
    `{"content":[{"type":"text","text":""}${imagesJson}],"structuredContent":${structuredJson}}`,
    'utf8',
  );
  const meta = metaJson !== null ? { _meta: { [NAMES_META_KEY]: names } } : {};
  const summary = names.length > 0 ? `${namesLine(names)}\n${success.text}` : success.text;
  // Rendered from the data as a client receives it: its JSON read back, or the result itself when it
  // is exact (plain JSON data already, the same value its JSON reads back as).
  const text = renderToolText(
    def.name,
    summary,
    exact ? structured : (JSON.parse(structuredJson) as Record<string, unknown>),
    limit - frame - TEXT_SLACK_BYTES - (metaJson !== null ? Buffer.byteLength(`{"_meta":${metaJson}}`) : 0),
    { json: true },
  );
  const result: ToolCallResult = {
    content: [{ type: 'text', text }, ...images],
    structuredContent: structured,
    ...meta,
  };
  structuredJsonOf.set(result, structuredJson);
  // JSON.stringify(result), counted from its parts: the frame with this text in place of "", and _meta.
  const size =
    frame +
    Buffer.byteLength(JSON.stringify(text), 'utf8') -
    2 +
    (metaJson !== null ? Buffer.byteLength(`,"_meta":${metaJson}`, 'utf8') : 0);
  if (size > limit) {
    // Refused whole, never cut mid-structure: the caller narrows the request (pagination, smaller windows).
    return errorResult({
      code: 'output-too-large',
      message: `the result is ${size} bytes, over RE_MCP_MAX_OUTPUT_BYTES (${limit}); request less (smaller limit or window)`,
      details: { resultBytes: size, maxOutputBytes: limit },
    });
  }
  return result;
}
