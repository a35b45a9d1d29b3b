// The catalog: every tool's published definition (what tools/list answers), its family, profiles
// and declared limits. The build makes it once (scripts/bundle.mjs defines __RE_MCP_CATALOG__), so a
// started server answers tools/list without importing a tool or deriving a JSON Schema; running from
// source derives it on first use. A tool's code is imported when the tool is first called.

import type { OutputSchemaMode } from '../config/config.js';
import {
  type ProfileName,
  type ProfileOrigin,
  type ProfileReport,
  type ProfileSelection,
  profileReport,
  selects,
} from '../core/profiles.js';
import { startupMark } from '../core/startup-trace.js';
import type { LimitSpec } from '../core/vocabulary.js';
import { listTools, type PublishedTool, type ToolSource } from '../mcp/published.js';
import type { ToolDefinition } from '../mcp/tool.js';
import type { ListedTool } from '../services.js';
import { FAMILIES, loadTool } from '../tools/families.js';

declare const __RE_MCP_CATALOG__: PackedCatalogEntry[] | undefined;

interface CatalogEntry {
  family: string;
  profiles: readonly ProfileName[];
  limits?: Record<string, LimitSpec>;
  /** As tools/list publishes it by default: output schema summarised (src/mcp/output-schema.ts). */
  published: PublishedTool;
  /** The complete output schema (RE_MCP_OUTPUT_SCHEMAS=full). */
  fullOutputSchema: Record<string, unknown>;
}

/** Derives the catalog from the tool definitions (the build does this once). */
export async function buildCatalog(): Promise<CatalogEntry[]> {
  const entries: CatalogEntry[] = [];
  for (const family of FAMILIES) {
    const defs = await family.load();
    const published = listTools(defs);
    const full = listTools(defs, { outputSchemas: 'full' });
    for (const [i, def] of defs.entries()) {
      entries.push({
        family: family.name,
        profiles: def.profiles,
        ...(def.limits ? { limits: def.limits } : {}),
        published: published[i]!,
        fullOutputSchema: full[i]!.outputSchema,
      });
    }
  }
  return entries;
}

/**
 * The catalog as the build embeds it: each published definition is JSON text, so a starting server
 * parses only the few fields it needs (name, title, family, profiles, limits) and sends the text of
 * tools/list as it is, never parsing and re-serialising the definitions. Where the complete output
 * schema differs from the summary, its text and the summary's place in `published` are kept too, so
 * RE_MCP_OUTPUT_SCHEMAS=full is one splice per tool, not a derivation.
 */
interface PackedCatalogEntry {
  family: string;
  profiles: readonly ProfileName[];
  limits?: Record<string, LimitSpec>;
  name: string;
  title: string;
  published: string;
  /** [start, end) of the summary output schema's text in `published`, and the complete one's text. */
  fullOutput?: [number, number, string];
}

export function packCatalog(entries: readonly CatalogEntry[]): PackedCatalogEntry[] {
  return entries.map(({ published, fullOutputSchema, ...rest }) => {
    const text = JSON.stringify(published);
    const summary = JSON.stringify(published.outputSchema);
    const full = JSON.stringify(fullOutputSchema);
    const packed: PackedCatalogEntry = {
      ...rest,
      name: published.name,
      title: published.title,
      published: text,
    };
    if (full !== summary) {
      // The output schema is a value of the definition's top level: its key is never inside a string.
      const start = text.lastIndexOf(`"outputSchema":${summary}`) + '"outputSchema":'.length;
      if (text.slice(start, start + summary.length) !== summary)
        throw new Error(`${published.name}: output schema not found in its published text`);
      packed.fullOutput = [start, start + summary.length, full];
    }
    return packed;
  });
}

/** The definition's text as tools/list sends it in `mode`. */
export function publishedText(entry: PackedCatalogEntry, mode: OutputSchemaMode): string {
  if (mode === 'summary' || !entry.fullOutput) return entry.published;
  const [start, end, full] = entry.fullOutput;
  return entry.published.slice(0, start) + full + entry.published.slice(end);
}

async function catalog(): Promise<PackedCatalogEntry[]> {
  return typeof __RE_MCP_CATALOG__ === 'object' ? __RE_MCP_CATALOG__ : packCatalog(await buildCatalog());
}

/** The tools of one profile: what tools/list answers, what the container reports, and their code on demand. */
export async function profileTools(
  profile: ProfileName | ProfileSelection,
  outputSchemas: OutputSchemaMode = 'summary',
  origin: ProfileOrigin = { source: 'setting', added: [] },
): Promise<{ source: ToolSource; tools: ListedTool[]; report: ProfileReport }> {
  const all = await catalog();
  const entries = all.filter((e) => selects(profile, e.profiles));
  const texts = entries.map((e) => publishedText(e, outputSchemas));
  const familyOf = new Map(entries.map((e) => [e.name, e.family]));
  const loading = new Map<string, Promise<ToolDefinition | undefined>>();
  let listed: PublishedTool[] | undefined;
  let listedJson: string | undefined;
  const source: ToolSource = {
    listed: () => {
      listed ??= texts.map((text) => JSON.parse(text) as PublishedTool);
      return listed;
    },
    listedJson: () => {
      listedJson ??= `[${texts.join(',')}]`;
      return listedJson;
    },
    async load(name) {
      const family = familyOf.get(name);
      if (!family) return undefined;
      if (!loading.has(name)) {
        startupMark(`loading ${name} (${family})`);
        loading.set(
          name,
          loadTool(family, name).then((def) => {
            startupMark(`${name} loaded`);
            return def;
          }),
        );
      }
      return loading.get(name)!;
    },
  };
  const tools = entries.map((e) => ({
    name: e.name,
    title: e.title,
    ...(e.limits ? { limits: e.limits } : {}),
  }));
  return {
    source,
    tools,
    report: profileReport(all, typeof profile === 'string' ? [profile] : profile, origin),
  };
}
