// Shared input and output pieces of the ARM tools.

import { z } from 'zod/v4';
import { START_MODES } from '../../analysis/code-source.js';
import type { LiteralWord } from '../../analysis/linear-window.js';
import {
  decodeLinearWindow,
  LINEAR_LIMITS,
  LINEAR_WINDOW_STATUSES,
  type LinearWindowRequest,
} from '../../analysis/linear-window.js';
import { getProgramMaps } from '../../analysis/program-map/service.js';
import { isLiteralPoolData, type LinearItem, literalSlotOf } from '../../arm/literal-pools.js';
import { addressArg, addressOut, formatAddress as hex, type Processor } from '../../core/vocabulary.js';
import type { SymbolTable } from '../../extract/symbol-store.js';
import type { ToolContext } from '../../mcp/tool.js';
import { CODE_IMAGE_LIMITS } from '../../nds/decoded-images.js';
import { copiedBlocks } from '../shared/copied.js';
import {
  decodeStopSchema,
  decodeStopView,
  type instructionSchema,
  instructionView,
  sourceSchema,
  sourceView,
} from '../shared/instructions.js';
import { nameField, romNames } from '../shared/names.js';
import { overlayIdArg, processorArg, romArg, withToolRom } from '../shared/rom.js';

export const startArgs = {
  rom: romArg,
  processor: processorArg,
  address: addressArg('Or give romOffset').optional(),
  romOffset: addressArg('Must map to one runtime address').optional(),
  overlayId: overlayIdArg('Among overlapping overlays; not a loaded flag.'),
  mode: z.enum(START_MODES).describe('auto: where the mode is proven; arm 4-, thumb 2-aligned.'),
};

export {
  decodeStopSchema,
  decodeStopView,
  instructionSchema,
  instructionView,
  linearWindowArgs,
  sourceSchema,
  sourceView,
} from '../shared/instructions.js';

/** A word that a literal load earlier in the window provably reads: shown as data, never decoded. */
export const literalPoolDataSchema = z
  .object({
    kind: z.literal('literal-pool-data'),
    address: addressOut,
    size: z.literal(4),
    bytes: z.string().describe('The word bytes, hex, memory order'),
    value: addressOut.describe('The little-endian word stored in the slot'),
    loadedBy: z.array(addressOut).describe('The literal loads in this window that read it'),
  })
  .describe('A literal-pool word a load earlier in this window provably reads: data, not decoded');

/** Where a literal word lies statically, as a short phrase ('arm9 main', 'ambiguous: overlay 1, overlay 2'). */
function valueIn(word: LiteralWord): string | undefined {
  const t = word.target;
  if (t === null) return undefined;
  const owners = t.owners.map(
    (o) =>
      `${o.component}${o.overlayId === null ? '' : ` ${o.overlayId}`}${o.region === 'file-backed' ? '' : ` (${o.region})`}`,
  );
  return t.status === 'ambiguous' ? `ambiguous: ${owners.join(', ')}` : owners.join(', ') || t.status;
}

/**
 * One item of a linear window in the output form: an instruction or a literal-pool word. A word
 * literal load also says the word it reads, and where that word points statically (`words`: the
 * window's literal slots).
 */
export function linearItemView(
  item: LinearItem,
  words?: ReadonlyMap<number, LiteralWord>,
  names?: WindowNames,
): z.input<typeof instructionSchema> | z.input<typeof literalPoolDataSchema> {
  if (!isLiteralPoolData(item)) {
    const named = (address: number | undefined) =>
      names ? nameField('targetName', names.table, names.processor, address, names.overlayId) : {};
    const view = { ...instructionView(item), ...named(item.target) };
    const slot = literalSlotOf(item);
    const word = slot === null ? undefined : words?.get(slot);
    if (word === undefined || view.pcRelative === undefined) return view;
    const valueName = names
      ? nameField('valueName', names.table, names.processor, (word.value & ~1) >>> 0, names.overlayId)
      : {};
    const where = valueIn(word);
    return {
      ...view,
      pcRelative: {
        ...view.pcRelative,
        value: hex(word.value),
        ...(where ? { valueIn: where } : {}),
        ...(word.text !== null ? { valueText: word.text } : {}),
        ...valueName,
      },
    };
  }
  return {
    ...item,
    address: hex(item.address),
    value: hex(item.value),
    loadedBy: item.loadedBy.map(hex),
  };
}

/** Mode auto's proof beyond the entry point: the whole-program maps this server already built. */
export function provenModeOf(ctx: ToolContext, sha256: string, processor: Processor) {
  const maps = getProgramMaps(ctx.services);
  return (address: number, overlayId: number | null) =>
    maps.provenMode(sha256, processor, address, overlayId);
}

/** The names a window's items are shown with: the ROM's table, on the window's processor and overlay. */
export interface WindowNames {
  table: SymbolTable;
  processor: Processor;
  overlayId: number | null;
}

const stopSchema = decodeStopSchema.nullable();

export { LINEAR_LIMITS };

/** The code image limit in words, for the tool descriptions. */
export const CODE_IMAGE_LIMIT_TEXT = `code components up to ${CODE_IMAGE_LIMITS.sourceComponentBytes.max / (1024 * 1024)} MiB`;

/** The window bounds are the maxInstructions/maxBytes arguments' own; only the component bound is said. */
export const LINEAR_LIMITS_TEXT = CODE_IMAGE_LIMIT_TEXT;

/** The output fields every linear-window result starts with. */
export const linearWindowOutput = {
  source: sourceSchema,
  status: z.enum(LINEAR_WINDOW_STATUSES),
  stop: stopSchema,
};

/** Opens the ROM and decodes the linear window (nds_disassemble_range, nds_list_references). */
export async function linearWindow(ctx: ToolContext, args: LinearWindowRequest & { rom: string }) {
  const { w, table } = await withToolRom(ctx, args.rom, async (rom, store) => ({
    w: await decodeLinearWindow(
      store,
      rom,
      {
        ...args,
        copied: await copiedBlocks(ctx, store, rom, args.processor),
        provenMode: provenModeOf(ctx, rom.identity.sha256, args.processor),
      },
      ctx.signal,
    ),
    table: await romNames(ctx, rom),
  }));
  const names: WindowNames = { table, processor: args.processor, overlayId: w.source.span.overlayId };
  return {
    ...w,
    names,
    source: sourceView(args.processor, w.source),
    stop: w.stop && decodeStopView(w.stop),
  };
}
