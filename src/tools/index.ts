// The registry of every tool family. Each family folder exports an array of definitions; add one
// line here per family.
import { type ProfileName, type ProfileSelection, selects } from '../core/profiles.js';
import type { ToolDefinition } from '../mcp/tool.js';
import { analysisTools } from './analysis/index.js';
import { armTools } from './arm/index.js';
import { desmumeTools } from './desmume/index.js';
import { extractTools } from './extract/index.js';
import { generalTools } from './general/index.js';
import { ndsStructureTools } from './nds/index.js';
import { projectTools } from './project/index.js';
import { rebuildTools } from './rebuild/index.js';
import { retroarchTools } from './retroarch/index.js';
import { searchTools } from './search/index.js';

export const ALL_TOOLS: readonly ToolDefinition[] = [
  ...generalTools,
  ...projectTools,
  ...ndsStructureTools,
  ...armTools,
  ...analysisTools,
  ...searchTools,
  ...extractTools,
  ...rebuildTools,
  ...desmumeTools,
  ...retroarchTools,
] as unknown as readonly ToolDefinition[];

/** The tools of one profile, or of several combined (their union). */
export function toolsForProfile(profile: ProfileName | ProfileSelection): ToolDefinition[] {
  return ALL_TOOLS.filter((t) => selects(profile, t.profiles));
}
