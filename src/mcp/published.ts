// What the server publishes: the instructions said once per session, the tools/list definitions
// derived from the tool definitions (the build does it once, src/cli/catalog.ts), and where a server
// finds them. The protocol layer that serves them is ./session.ts.
import { z } from 'zod/v4';
import type { OutputSchemaMode } from '../config/config.js';
import { addressOut, addressRangeOut } from '../core/vocabulary.js';
import type { Emulator } from '../debug/backend.js';
import { EMULATORS, emulatorInstructions } from '../debug/emulators.js';
import type { ListedTool } from '../services.js';
import { compactSchema } from './json-schema.js';
import { publishOutputSchema, SUMMARY_DEPTH } from './output-schema.js';
import { renderDescription, type ToolAnnotations, type ToolDefinition } from './tool.js';
import { ERROR_META_KEY } from './wire.js';

/**
 * Said once per session instead of in every tool's description (each tools/list byte is read by the
 * assistant every conversation): the conventions all tools share, with a line from each emulator
 * whose entry has one. Kept short for the same reason.
 */
export function instructionsFor(emulators: readonly Emulator[] = EMULATORS): string {
  return [
    're-mcp: narrow, bounded tools for ROM reverse engineering. Shared conventions (tool descriptions do not repeat them):',
    '- Paths are workspace-relative; source ROMs are never modified.',
    '- Addresses and offsets are returned as "0x%08x"; arguments take that, "0x" hex (1..8 digits), decimal text or an integer, so they pass on verbatim; code addresses take names (f+0x10). Sizes, counts: integers.',
    "- ROM tools check the ROM's SHA-256 before and after each read: error rom-changed if it changed in between, invalid-rom on a bad header.",
    '- All max* arguments apply at once; status "truncated" (with the limit named) means the answer is partial; a negative answer is definitive only when complete.',
    '- Long calls report progress when given a progressToken and stop when cancelled.',
    `- Failures are isError results whose text starts with "[code] message"; _meta["${ERROR_META_KEY}"] holds {code, message, details}.`,
    ...emulatorInstructions(emulators),
    '- RetroArch: each query waits RETROARCH_TIMEOUT_MS (50..30000, default 1000 ms); reads are tried 3 times, writes sent once. Paused, RetroArch ignores RESET and state commands: those tools refuse with paused unless resumeIfPaused. re-mcp tracks the state slot (0 at start or after RetroArch was unreachable; confirmed saves verify it); moved outside re-mcp it is wrong until the next confirmed save.',
    '- Output objects have every field they list (null if not applicable) unless their schema lists `required`.',
    '- server_capabilities: readiness, limits; per tool: detail full',
  ].join('\n');
}

/** The instructions of this server (its emulators: the registry's). */
export const INSTRUCTIONS = instructionsFor();

/** A tool as tools/list publishes it: the container's name and title, with its description and schemas. */
export interface PublishedTool extends Pick<ListedTool, 'name' | 'title'> {
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
export function listTools(
  tools: readonly ToolDefinition[],
  options: { outputSchemas?: OutputSchemaMode; depth?: number } = {},
): PublishedTool[] {
  const names = wellKnownParts();
  const mode = options.outputSchemas ?? 'summary';
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
      mode,
      options.depth ?? SUMMARY_DEPTH,
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
  listed(): readonly PublishedTool[];
  /** The same definitions as one JSON array text, as tools/list sends them to current clients. */
  listedJson(): string;
  load(name: string): Promise<ToolDefinition | undefined>;
}
