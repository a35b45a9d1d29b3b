// The blocks the start-up code of a processor copies to where they run (proven by running its entry
// function on the static bytes, once per ROM; see analysis/evidence/copied-code.ts): the ARM tools take
// them as code sources at their run addresses, and the debugger's allowlist includes them.
import { getProgramMaps } from '../../analysis/program-map/service.js';
import type { CopiedBlock } from '../../analysis/program-map/types.js';
import type { Processor } from '../../core/vocabulary.js';
import type { ToolContext } from '../../mcp/tool.js';
import type { RomHandle, RomStore } from '../../nds/rom-store.js';

export async function copiedBlocks(
  ctx: ToolContext,
  store: RomStore,
  rom: RomHandle,
  processor: Processor,
): Promise<CopiedBlock[]> {
  return (await getProgramMaps(ctx.services).copied(store, rom, processor, ctx.signal)).copies;
}
