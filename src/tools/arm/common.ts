// Shared input and output pieces of the ARM tools.
import { z } from 'zod/v4';
import { decodeLinearWindow, LINEAR_LIMITS, type LinearWindowRequest } from '../../analysis/linear-window.js';
import { addressArg, limitArg } from '../../core/vocabulary.js';
import type { ToolContext } from '../../mcp/tool.js';
import { CODE_IMAGE_LIMITS } from '../../nds/decoded-images.js';
import { getRomStore } from '../../nds/rom-store.js';
import { decodeStopSchema, decodeStopView, sourceSchema, sourceView } from '../shared/instructions.js';
import { hashProgress, overlayIdArg, processorArg, romArg } from '../shared/rom.js';

export const startArgs = {
  rom: romArg,
  processor: processorArg,
  address: addressArg('Runtime start address (give this or romOffset, not both)').optional(),
  romOffset: addressArg('ROM offset of the start byte; must map to exactly one runtime address').optional(),
  overlayId: overlayIdArg(
    'Optional overlay ID: a static disambiguator among overlapping overlays; it does not mean the overlay is loaded; an ID the table lacks fails with not-found.',
  ),
  mode: z
    .enum(['arm', 'thumb', 'auto'])
    .describe(
      'Instruction set at the start. auto is accepted only at the header entry point (ARM). ARM starts must be 4-aligned, Thumb 2-aligned (never rounded).',
    ),
};

export {
  decodeStopSchema,
  decodeStopView,
  instructionSchema,
  instructionView,
  sourceSchema,
  sourceView,
} from '../shared/instructions.js';

const stopSchema = decodeStopSchema.nullable();

export { LINEAR_LIMITS };

/** The code image limit in words, for the tool descriptions. */
export const CODE_IMAGE_LIMIT_TEXT = `a code component over ${CODE_IMAGE_LIMITS.sourceComponentBytes.max / (1024 * 1024)} MiB is refused with limit-exceeded`;

export const LINEAR_LIMITS_TEXT = `instructions default ${LINEAR_LIMITS.instructions.default} / max ${LINEAR_LIMITS.instructions.max}; bytes default ${LINEAR_LIMITS.bytes.default} / max ${LINEAR_LIMITS.bytes.max}; ${CODE_IMAGE_LIMIT_TEXT}`;

export const linearWindowArgs = {
  maxInstructions: limitArg(LINEAR_LIMITS.instructions, 'Instructions to decode at most'),
  maxBytes: limitArg(LINEAR_LIMITS.bytes, 'Source bytes to decode at most'),
};

/** The output fields every linear-window result starts with. */
export const linearWindowOutput = {
  source: sourceSchema,
  status: z.enum(['complete', 'component-end', 'decode-stopped']),
  stop: stopSchema,
};

/** Opens the ROM and decodes the linear window (nds_disassemble_range, nds_list_references). */
export async function linearWindow(ctx: ToolContext, args: LinearWindowRequest & { rom: string }) {
  const store = getRomStore(ctx.services);
  const w = await store.withRom(
    args.rom,
    (rom) => decodeLinearWindow(store, rom, args, ctx.signal),
    ctx.signal,
    hashProgress(ctx),
  );
  return { ...w, source: sourceView(args.processor, w.source), stop: w.stop && decodeStopView(w.stop) };
}
