// Assembles the MCP server from tool definitions on the low-level SDK Server, so that tools/list and
// tools/call go through our own pipeline (typed error codes for bad arguments too).
import { ProtocolError, Server } from '@modelcontextprotocol/server';
import { z } from 'zod/v4';
import { addressOut, addressRangeOut } from '../core/vocabulary.js';
import type { Services } from '../services.js';
import { SERVER_NAME, VERSION } from '../version.js';
import { invokeTool } from './invoke.js';
import { compactSchema } from './json-schema.js';
import { publishOutputSchema } from './output-schema.js';
import { renderDescription, type ToolAnnotations, type ToolDefinition } from './tool.js';
import { ERROR_META_KEY, toWireResult, toWireTools } from './wire.js';

/**
 * Said once per session instead of in every tool's description (each tools/list byte is read by the
 * assistant every conversation): the conventions all tools share. Kept short for the same reason.
 */
export const INSTRUCTIONS = [
  're-mcp: narrow, bounded tools for ROM reverse engineering. Shared conventions (tool descriptions do not repeat them):',
  '- Paths are workspace-relative; source ROMs are never modified.',
  '- Addresses and ROM offsets are returned as "0x%08x" text; arguments take that, "0x" hex (1..8 digits), decimal text or an integer, so a returned value can be passed on verbatim. Sizes and counts are integers.',
  "- ROM tools check the ROM's SHA-256 before and after each read: error rom-changed if it changed in between, invalid-rom on a bad header.",
  '- All max* arguments apply at once; status "truncated" (with the limit named) means the answer is partial; a negative answer is definitive only when complete.',
  '- Long calls report progress when given a progressToken and stop when cancelled.',
  `- Failures are isError results whose text starts with "[code] message"; _meta["${ERROR_META_KEY}"] holds {code, message, details}.`,
  '- DeSmuME: both CPUs share one emulation, so resuming either runs both.',
  '- RetroArch: each query waits RETROARCH_TIMEOUT_MS (50..30000, default 1000 ms); reads are tried 3 times, writes sent once. Paused, RetroArch ignores RESET and state commands: those tools refuse with paused unless resumeIfPaused. re-mcp tracks the state slot pointer (0 at start or after RetroArch was unreachable, verified by confirmed saves); moved outside re-mcp it is wrong until the next confirmed save.',
  '- server_capabilities reports every limit and what is ready.',
].join('\n');

export interface ListedTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: Record<string, unknown>;
}

const outputJson = (schema: z.ZodType) =>
  JSON.stringify(compactSchema(z.toJSONSchema(schema, { io: 'output' }), { output: true }));

/** Names of the shared output parts every family uses (the rest are named after their first field). */
function wellKnownParts(): Map<string, string> {
  return new Map([
    [outputJson(addressOut), 'a'],
    [outputJson(addressOut.nullable()), 'an'],
    [outputJson(addressRangeOut), 'r'],
    [outputJson(addressRangeOut.nullable()), 'rn'],
  ]);
}

/**
 * The published definitions. JSON Schemas are derived once, on the first tools/list, not at start-up.
 * Output schemas say each repeated part once ($defs); `title` is not repeated inside annotations.
 */
export function listTools(tools: readonly ToolDefinition[]): ListedTool[] {
  const names = wellKnownParts();
  return tools.map((def) => ({
    name: def.name,
    title: def.title,
    description: renderDescription(def.description),
    inputSchema: {
      ...(compactSchema(z.toJSONSchema(def.input, { io: 'input', unrepresentable: 'any' }), {
        output: false,
      }) as Record<string, unknown>),
      additionalProperties: false,
    },
    outputSchema: publishOutputSchema(
      compactSchema(z.toJSONSchema(def.output, { io: 'output', unrepresentable: 'any' }), {
        output: true,
      }) as Record<string, unknown>,
      names,
    ),
    annotations: publishedAnnotations(def.annotations),
  }));
}

/**
 * destructiveHint and idempotentHint mean something only when readOnlyHint is false (MCP
 * specification, ToolAnnotations), so a read-only tool publishes readOnlyHint and openWorldHint only.
 */
export function publishedAnnotations(a: ToolAnnotations): Record<string, boolean> {
  if (a.readOnlyHint) return { readOnlyHint: true, openWorldHint: a.openWorldHint };
  return { ...a };
}

/**
 * What the server serves: the published definitions of its profile (made at build time, or derived
 * on first use) and the definitions themselves, loaded only when a tool is first called.
 */
export interface ToolSource {
  listed(): readonly ListedTool[];
  load(name: string): Promise<ToolDefinition | undefined>;
}

export function createMcpServer(tools: ToolSource, services: Services): Server {
  const server = new Server(
    { name: SERVER_NAME, version: VERSION },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  const log = (line: string) => process.stderr.write(`${line}\n`);

  server.setRequestHandler('tools/list', () => {
    return { tools: toWireTools(tools.listed(), server.getNegotiatedProtocolVersion()) } as never;
  });

  server.setRequestHandler('tools/call', async (request, ctx) => {
    const def = await tools.load(request.params.name);
    if (!def) {
      // The specification lists an unknown tool as a protocol error (invalid params), not a tool result.
      throw new ProtocolError(
        -32602,
        `unknown tool: ${request.params.name} (not in this profile; see tools/list)`,
      );
    }
    const progressToken = ctx.mcpReq._meta?.progressToken;
    const onProgress =
      progressToken === undefined
        ? undefined
        : (update: { progress: number; total?: number; message?: string }) => {
            ctx.mcpReq
              .notify({ method: 'notifications/progress', params: { progressToken, ...update } })
              .catch(() => {});
          };
    const result = await invokeTool(def, request.params.arguments, services, {
      signal: ctx.mcpReq.signal,
      ...(onProgress ? { onProgress } : {}),
      log,
    });
    return toWireResult(result, server.getNegotiatedProtocolVersion()) as never;
  });
  return server;
}
