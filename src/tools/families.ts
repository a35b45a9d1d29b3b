// The registry: every tool family, in the order tools/list publishes them, with how to import its
// definitions. It is written here once; the whole tool list (./index.ts, for the CLI's `tools` and
// `call` commands and the tests) and the server's catalog with its imports on first call
// (src/cli/catalog.ts) both derive from it, so start-up builds no tool schemas. Each emulator the
// server offers (src/debug/emulators.ts) is a family of its own, named by its id, whose tools are the
// debugger tools made for it; the tools that serve every emulator follow them.
import type { Emulator } from '../debug/backend.js';
import { EMULATORS } from '../debug/emulators.js';
import type { ToolDefinition } from '../mcp/tool.js';

/** A tool family: its name and how to import its definitions (its folder's index.ts). */
export interface Family {
  name: string;
  load: () => Promise<readonly ToolDefinition[]>;
}

const definitions = (tools: readonly unknown[]) => tools as readonly ToolDefinition[];

/** The families for a list of emulators, in tools/list order; refuses a family name used twice. */
export function toolFamilies(emulators: readonly Emulator[] = EMULATORS): readonly Family[] {
  const families: Family[] = [
    { name: 'general', load: async () => definitions((await import('./general/index.js')).generalTools) },
    { name: 'project', load: async () => definitions((await import('./project/index.js')).projectTools) },
    { name: 'nds', load: async () => definitions((await import('./nds/index.js')).ndsStructureTools) },
    { name: 'arm', load: async () => definitions((await import('./arm/index.js')).armTools) },
    { name: 'analysis', load: async () => definitions((await import('./analysis/index.js')).analysisTools) },
    { name: 'search', load: async () => definitions((await import('./search/index.js')).searchTools) },
    { name: 'extract', load: async () => definitions((await import('./extract/index.js')).extractTools) },
    { name: 'rebuild', load: async () => definitions((await import('./rebuild/index.js')).rebuildTools) },
    ...emulators.map((emu) => ({
      name: emu.id,
      load: async () => (await import('./debug/index.js')).emulatorTools(emu),
    })),
    { name: 'debug', load: async () => definitions((await import('./debug/index.js')).sharedDebugTools) },
    {
      name: 'retroarch',
      load: async () => definitions((await import('./retroarch/index.js')).retroarchTools),
    },
  ];
  for (const [i, f] of families.entries()) {
    if (families.findIndex((g) => g.name === f.name) !== i)
      throw new Error(`two tool families named ${f.name}`);
  }
  return families;
}

export const FAMILIES = toolFamilies();

/** The definitions of one family; its modules are imported on the first call. */
export function loadFamily(name: string): Promise<readonly ToolDefinition[]> {
  const family = FAMILIES.find((f) => f.name === name);
  if (!family) throw new Error(`no tool family named ${name}`);
  return family.load();
}
