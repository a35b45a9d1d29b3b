// Where the ARM tools start decoding, shared by the linear-window and control-flow tools: the start
// arguments, mode auto's proof beyond the entry point, and the code image bound in words.
import { z } from 'zod/v4';
import { START_MODES } from '../../analysis/code-source.js';
import { getProgramMaps } from '../../analysis/program-map/service.js';
import { addressArg, nameOrAddressArg, type Processor } from '../../core/vocabulary.js';
import type { ToolContext } from '../../mcp/tool.js';
import { CODE_IMAGE_LIMITS } from '../../roms/decoded-images.js';
import { overlayIdArg, processorArg, romArg } from '../shared/rom.js';

export const startArgs = {
  rom: romArg,
  processor: processorArg,
  address: nameOrAddressArg('Or give romOffset').optional(),
  romOffset: addressArg('Must map to one runtime address').optional(),
  overlayId: overlayIdArg('Among overlapping overlays; not a loaded flag.'),
  mode: z.enum(START_MODES).describe('auto: where the mode is proven; arm 4-, thumb 2-aligned.'),
};

/** Mode auto's proof beyond the entry point: the whole-program maps this server already built. */
export function provenModeOf(ctx: ToolContext, sha256: string, processor: Processor) {
  const maps = getProgramMaps(ctx.services);
  return (address: number, overlayId: number | null) =>
    maps.provenMode(sha256, processor, address, overlayId);
}

/** The code image limit in words, for the tool descriptions. */
export const CODE_IMAGE_LIMIT_TEXT = `code components up to ${CODE_IMAGE_LIMITS.sourceComponentBytes.max / (1024 * 1024)} MiB`;
