// Every tool definition, family by family in the registry's order (./families.ts). Loading them
// imports every family and builds every schema: the CLI's `tools` and `call` commands and the tests
// do; the server publishes its catalog instead (src/cli/catalog.ts).
import { type ProfileName, type ProfileSelection, selects } from '../core/profiles.js';
import type { ToolDefinition } from '../mcp/tool.js';
import { FAMILIES, type Family } from './families.js';

/**
 * Every tool, in tools/list order: of the registry's families, or of those given (toolFamilies; a
 * test adds one of its own: test/tools/new-tool.test.ts, the checks a new tool meets on a fake one).
 */
export async function loadAllTools(families: readonly Family[] = FAMILIES): Promise<ToolDefinition[]> {
  const tools: ToolDefinition[] = [];
  for (const family of families) tools.push(...(await family.load()));
  return tools;
}

/** The tools of one profile, or of several combined (their union), in the order given. */
export function toolsForProfile(
  tools: readonly ToolDefinition[],
  profile: ProfileName | ProfileSelection,
): ToolDefinition[] {
  return tools.filter((t) => selects(profile, t.profiles));
}
