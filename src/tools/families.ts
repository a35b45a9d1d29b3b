// Every tool family, imported on demand. The server publishes its tool list from a catalog made at
// build time (src/cli/catalog.ts) and imports a family's code only when one of its tools is first
// called, so start-up builds no tool schemas. Same families, same order as ./index.ts (a test checks).
import type { ToolDefinition } from '../mcp/tool.js';

type Family = () => Promise<readonly ToolDefinition[]>;
const family = (tools: readonly unknown[]) => tools as readonly ToolDefinition[];

export const FAMILY_LOADERS = {
  general: async () => family((await import('./general/index.js')).generalTools),
  project: async () => family((await import('./project/index.js')).projectTools),
  nds: async () => family((await import('./nds/index.js')).ndsStructureTools),
  arm: async () => family((await import('./arm/index.js')).armTools),
  analysis: async () => family((await import('./analysis/index.js')).analysisTools),
  search: async () => family((await import('./search/index.js')).searchTools),
  extract: async () => family((await import('./extract/index.js')).extractTools),
  rebuild: async () => family((await import('./rebuild/index.js')).rebuildTools),
  desmume: async () => family((await import('./desmume/index.js')).desmumeTools),
  retroarch: async () => family((await import('./retroarch/index.js')).retroarchTools),
} satisfies Record<string, Family>;

export type FamilyName = keyof typeof FAMILY_LOADERS;
