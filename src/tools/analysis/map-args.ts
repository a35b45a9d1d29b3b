// The whole-program map as the analysis tools take it: its bounds as arguments, the map itself for the
// tools that show it (nds_program_map, nds_function_graph), and a map component in the tools'
// component vocabulary.
import type { EvidenceId } from '../../analysis/evidence/index.js';
import type { MapComponent } from '../../analysis/program-map/components.js';
import type { ProgramMap } from '../../analysis/program-map/map.js';
import { getProgramMaps, MAP_LIMITS } from '../../analysis/program-map/service.js';
import type { Processor } from '../../core/vocabulary.js';
import type { ToolContext } from '../../mcp/tool.js';
import type { RomHandle, RomStore } from '../../roms/rom-store.js';

export { MAP_LIMITS };

/** The map for a tool call (progress: bytes of code classified so far). */
export function toolMap(
  ctx: ToolContext,
  store: RomStore,
  rom: RomHandle,
  processor: Processor,
  evidence: readonly EvidenceId[],
  args: { maxCodeBytes: number; maxSeconds: number },
  report?: (codeBytes: number) => void,
): Promise<ProgramMap> {
  return getProgramMaps(ctx.services).map(store, rom, {
    processor,
    evidence,
    maxCodeBytes: args.maxCodeBytes,
    maxSeconds: args.maxSeconds,
    signal: ctx.signal,
    onProgress: report,
  });
}

/** A map component in the tools' component vocabulary. */
export function mapComponentView(c: MapComponent) {
  return {
    component: c.kind,
    overlayId: c.overlayId,
    ...(c.autoloadIndex !== null ? { autoloadIndex: c.autoloadIndex } : {}),
  };
}
