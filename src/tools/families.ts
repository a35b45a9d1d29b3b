// The registry: every tool family, in the order tools/list publishes them, with how to import its
// definitions. It is written here once; the whole tool list (./index.ts, for the CLI's `tools` and
// `call` commands and the tests) and the server's catalog with its imports on first call
// (src/cli/catalog.ts) both derive from it, so start-up builds no tool schemas. Each emulator the
// server offers (src/debug/emulators.ts) is a family of its own, named by its id, whose tools are the
// debugger tools made for it; the tools that serve every emulator follow them.
import type { Emulator } from '../debug/backend.js';
import { EMULATORS } from '../debug/emulators.js';
import type { ToolDefinition } from '../mcp/tool.js';

/**
 * A tool family: its name, how to import its definitions (its folder's index.ts), and for a family of
 * fixed tools how to import each tool alone (the module that defines it): a server's first call of a
 * tool then initialises that tool's modules, not every module of its family (8-10 ms of a first call
 * for the NDS family, most of it building the schemas of tools not called).
 */
export interface Family {
  name: string;
  load: () => Promise<readonly ToolDefinition[]>;
  tools?: Readonly<Record<string, () => Promise<ToolDefinition>>>;
}

const definitions = (tools: readonly unknown[]) => tools as readonly ToolDefinition[];
const definition = (tool: unknown) => tool as ToolDefinition;

/** The families of fixed tools before the emulators', each tool also loadable alone. */
const FIXED_FAMILIES: readonly Family[] = [
  {
    name: 'general',
    load: async () => definitions((await import('./general/index.js')).generalTools),
    tools: {
      server_capabilities: async () =>
        definition((await import('./general/server-capabilities.js')).serverCapabilities),
      verify_file_sha256: async () =>
        definition((await import('./general/workspace-files.js')).verifyFileSha256),
      list_workspace_files: async () =>
        definition((await import('./general/workspace-files.js')).listWorkspaceFiles),
    },
  },
  {
    name: 'project',
    load: async () => definitions((await import('./project/index.js')).projectTools),
    tools: {
      get_project_status: async () =>
        definition((await import('./project/get-project-status.js')).getProjectStatus),
      run_project_verification: async () =>
        definition((await import('./project/run-project-verification.js')).runProjectVerification),
    },
  },
  {
    name: 'nds',
    load: async () => definitions((await import('./nds/index.js')).ndsStructureTools),
    tools: {
      nds_inspect_rom: async () => definition((await import('./nds/nds-inspect-rom.js')).ndsInspectRom),
      nds_list_files: async () => definition((await import('./nds/files-and-overlays.js')).ndsListFiles),
      nds_list_overlays: async () =>
        definition((await import('./nds/files-and-overlays.js')).ndsListOverlays),
      nds_resolve_runtime_address: async () =>
        definition((await import('./nds/addresses.js')).ndsResolveRuntimeAddress),
      nds_resolve_rom_offset: async () =>
        definition((await import('./nds/addresses.js')).ndsResolveRomOffset),
      nds_read_bytes: async () => definition((await import('./nds/nds-read-bytes.js')).ndsReadBytes),
    },
  },
  {
    name: 'arm',
    load: async () => definitions((await import('./arm/index.js')).armTools),
    tools: {
      nds_disassemble_range: async () =>
        definition((await import('./arm/linear-window.js')).ndsDisassembleRange),
      nds_analyze_control_flow: async () =>
        definition((await import('./arm/control-flow.js')).ndsAnalyzeControlFlow),
      nds_list_references: async () => definition((await import('./arm/linear-window.js')).ndsListReferences),
    },
  },
  {
    name: 'analysis',
    load: async () => definitions((await import('./analysis/index.js')).analysisTools),
    tools: {
      nds_program_map: async () => definition((await import('./analysis/nds-program-map.js')).ndsProgramMap),
      nds_find_xrefs: async () => definition((await import('./analysis/nds-find-xrefs.js')).ndsFindXrefs),
      nds_discover_functions: async () =>
        definition((await import('./analysis/nds-discover-functions.js')).ndsDiscoverFunctions),
      nds_analyze_function: async () =>
        definition((await import('./analysis/nds-analyze-function.js')).ndsAnalyzeFunction),
      nds_function_at: async () => definition((await import('./analysis/nds-function-at.js')).ndsFunctionAt),
      nds_function_graph: async () =>
        definition((await import('./analysis/nds-function-graph.js')).ndsFunctionGraph),
    },
  },
  {
    name: 'search',
    load: async () => definitions((await import('./search/index.js')).searchTools),
    tools: {
      nds_search_pattern: async () =>
        definition((await import('./search/nds-search-pattern.js')).ndsSearchPattern),
      nds_list_strings: async () => definition((await import('./search/nds-list-strings.js')).ndsListStrings),
    },
  },
  {
    name: 'extract',
    load: async () => definitions((await import('./extract/index.js')).extractTools),
    tools: {
      nds_extract_component: async () =>
        definition((await import('./extract/extraction.js')).ndsExtractComponent),
      nds_extract_analysis_bundle: async () =>
        definition((await import('./extract/extraction.js')).ndsExtractAnalysisBundle),
      nds_symbols: async () => definition((await import('./extract/nds-symbols.js')).ndsSymbols),
      nds_signatures: async () => definition((await import('./extract/nds-signatures.js')).ndsSignatures),
    },
  },
  {
    name: 'rebuild',
    load: async () => definitions((await import('./rebuild/index.js')).rebuildTools),
    tools: {
      nds_assemble: async () => definition((await import('./rebuild/nds-assemble.js')).ndsAssemble),
      nds_mutation_draft: async () => definition((await import('./rebuild/mutations.js')).ndsMutationDraft),
      nds_mutation_validate: async () =>
        definition((await import('./rebuild/mutations.js')).ndsMutationValidate),
      nds_mutation_build: async () => definition((await import('./rebuild/mutations.js')).ndsMutationBuild),
      nds_mutation_verify: async () => definition((await import('./rebuild/mutations.js')).ndsMutationVerify),
      nds_patch_apply: async () => definition((await import('./rebuild/nds-patch-apply.js')).ndsPatchApply),
      nds_free_space: async () => definition((await import('./rebuild/nds-free-space.js')).ndsFreeSpace),
    },
  },
];

/** The families for a list of emulators, in tools/list order; refuses a family name used twice. */
export function toolFamilies(emulators: readonly Emulator[] = EMULATORS): readonly Family[] {
  const families: Family[] = [
    ...FIXED_FAMILIES,
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

/** One tool of a family: its own module's import where the family has one, else the family's. */
export async function loadTool(familyName: string, tool: string): Promise<ToolDefinition | undefined> {
  const family = FAMILIES.find((f) => f.name === familyName);
  if (!family) throw new Error(`no tool family named ${familyName}`);
  const own = family.tools?.[tool];
  if (own) return own();
  return (await family.load()).find((t) => t.name === tool);
}
