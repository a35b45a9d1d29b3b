// What the server publishes: the tools/list definitions derived from the tool definitions (the build
// does it once, src/cli/catalog.ts), and where a server finds them. The protocol layer that serves
// them is ./session.ts.
import { z } from 'zod/v4';
import { addressOut, addressRangeOut } from '../core/vocabulary.js';
import { compactSchema } from './json-schema.js';
import { publishOutputSchema } from './output-schema.js';
import { renderDescription, type ToolDefinition } from './tool.js';

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
    [outputJson(addressOut), 'address'],
    [outputJson(addressOut.nullable()), 'addressOrNull'],
    [outputJson(addressRangeOut), 'range'],
    [outputJson(addressRangeOut.nullable()), 'rangeOrNull'],
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
    annotations: { ...def.annotations },
  }));
}

/**
 * What the server serves: the published definitions of its profile (made at build time, or derived
 * on first use) and the definitions themselves, loaded only when a tool is first called.
 */
export interface ToolSource {
  listed(): readonly ListedTool[];
  /** The same definitions as one JSON array text, as tools/list sends them to current clients. */
  listedJson(): string;
  load(name: string): Promise<ToolDefinition | undefined>;
}
