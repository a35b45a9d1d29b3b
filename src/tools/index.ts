// Every tool definition, family by family in the registry's order (./families.ts). Loading them
// imports every family and builds every schema: the CLI's `tools` and `call` commands and the tests
// do; the server publishes its catalog instead (src/cli/catalog.ts).
import { type ProfileName, type ProfileSelection, selects } from '../core/profiles.js';
import type { ToolDefinition } from '../mcp/tool.js';
import { FAMILIES } from './families.js';

/** Every tool, in tools/list order. */
export async function loadAllTools(): Promise<ToolDefinition[]> {
  const tools: ToolDefinition[] = [];
  for (const family of FAMILIES) tools.push(...(await family.load()));
  return tools;
}

/** The tools of one profile, or of several combined (their union), in the order given. */
export function toolsForProfile(
  tools: readonly ToolDefinition[],
  profile: ProfileName | ProfileSelection,
): ToolDefinition[] {
  return tools.filter((t) => selects(profile, t.profiles));
}
