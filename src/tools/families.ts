// The registry: every tool family, in the order tools/list publishes them, with how to import its
// definitions. It is written here once; the whole tool list (./index.ts, for the CLI's `tools` and
// `call` commands and the tests) and the server's catalog with its imports on first call
// (src/cli/catalog.ts) both derive from it, so start-up builds no tool schemas.
import type { ToolDefinition } from '../mcp/tool.js';

interface Family {
  name: string;
  load: () => Promise<readonly ToolDefinition[]>;
}

const definitions = (tools: readonly unknown[]) => tools as readonly ToolDefinition[];

export const FAMILIES = [
  { name: 'general', load: async () => definitions((await import('./general/index.js')).generalTools) },
  { name: 'project', load: async () => definitions((await import('./project/index.js')).projectTools) },
  { name: 'nds', load: async () => definitions((await import('./nds/index.js')).ndsStructureTools) },
  { name: 'arm', load: async () => definitions((await import('./arm/index.js')).armTools) },
  { name: 'analysis', load: async () => definitions((await import('./analysis/index.js')).analysisTools) },
  { name: 'search', load: async () => definitions((await import('./search/index.js')).searchTools) },
  { name: 'extract', load: async () => definitions((await import('./extract/index.js')).extractTools) },
  { name: 'rebuild', load: async () => definitions((await import('./rebuild/index.js')).rebuildTools) },
  { name: 'desmume', load: async () => definitions((await import('./debug/index.js')).desmumeTools) },
  {
    name: 'retroarch',
    load: async () => definitions((await import('./retroarch/index.js')).retroarchTools),
  },
] as const satisfies readonly Family[];

export type FamilyName = (typeof FAMILIES)[number]['name'];

/** The definitions of one family; its modules are imported on the first call. */
export function loadFamily(name: FamilyName): Promise<readonly ToolDefinition[]> {
  const family = FAMILIES.find((f) => f.name === name);
  if (!family) throw new Error(`no tool family named ${name}`);
  return family.load();
}
