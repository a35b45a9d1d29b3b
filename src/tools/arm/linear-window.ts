// The linear-window tools: nds_disassemble_range (one bounded linear window of code, proven
// literal-pool words shown as data) and nds_list_references (the proven single-instruction references
// of such a window), with the window's decoding and output form.
import { z } from 'zod/v4';
import {
  decodeLinearWindow,
  LINEAR_LIMITS,
  LINEAR_WINDOW_STATUSES,
  type LinearWindowRequest,
  type LiteralWord,
} from '../../analysis/linear-window.js';
import { isLiteralPoolData, type LinearItem, literalSlotOf } from '../../arm/literal-pools.js';
import { REFERENCE_KINDS, referencesOfWindow } from '../../arm/references.js';
import { ARM_MODES } from '../../arm/types.js';
import { addressOut, formatAddress as hex, type Processor } from '../../core/vocabulary.js';
import type { SymbolTable } from '../../extract/symbol-store.js';
import { MAPPED_STATUSES, RUNTIME_RANGE_KINDS } from '../../formats/nds/index.js';
import { defineTool, type ToolContext } from '../../mcp/tool.js';
import { copiedBlocks } from '../shared/copied.js';
import {
  decodeStopSchema,
  decodeStopView,
  instructionSchema,
  instructionView,
  linearWindowArgs,
  sourceSchema,
  sourceView,
} from '../shared/instructions.js';
import { nameField, romArgNames, romNames } from '../shared/names.js';
import { READ_ONLY, withToolRom } from '../shared/rom.js';
import { CODE_IMAGE_LIMIT_TEXT, provenModeOf, startArgs } from './start.js';

/** A word that a literal load earlier in the window provably reads: shown as data, never decoded. */
const literalPoolDataSchema = z
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
function linearItemView(
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

/** The names a window's items are shown with: the ROM's table, on the window's processor and overlay. */
interface WindowNames {
  table: SymbolTable;
  processor: Processor;
  overlayId: number | null;
}

const stopSchema = decodeStopSchema.nullable();

/** The window bounds are the maxInstructions/maxBytes arguments' own; only the component bound is said. */
const LINEAR_LIMITS_TEXT = CODE_IMAGE_LIMIT_TEXT;

/** The output fields every linear-window result starts with. */
const linearWindowOutput = {
  source: sourceSchema,
  status: z.enum(LINEAR_WINDOW_STATUSES),
  stop: stopSchema,
};

/** Opens the ROM and decodes the linear window (nds_disassemble_range, nds_list_references). */
async function linearWindow(ctx: ToolContext, args: LinearWindowRequest & { rom: string }) {
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

// nds_disassemble_range: one bounded linear window of canonical NDS code; control flow is classified
// per instruction but never followed.
export const ndsDisassembleRange = defineTool({
  name: 'nds_disassemble_range',
  title: 'Disassemble ARM/Thumb code',
  profiles: ['static'],
  description: {
    purpose: 'Linear disassembly from one start (ARM9 ARMv5TE, ARM7 ARMv4T).',
    useWhen: 'reading code; nds_analyze_control_flow to follow branches.',
    behaviour:
      'main, overlays, decoded BLZ images (romOffset null), not BSS; words a literal load provably reads are literal-pool-data.',
    limits: `${LINEAR_LIMITS_TEXT}.`,
  },
  input: z.object({ ...startArgs, ...linearWindowArgs }),
  output: z.object({
    ...linearWindowOutput,
    instructions: z.array(z.union([instructionSchema, literalPoolDataSchema])),
  }),
  annotations: READ_ONLY,
  limits: LINEAR_LIMITS,
  names: romArgNames,
  async handler(args, ctx) {
    const w = await linearWindow(ctx, args);
    const refs = referencesOfWindow(w.instructions).length;
    const stopText = w.stop ? `; ${w.stop.reason} at ${w.stop.address}` : '';
    return {
      structured: {
        source: w.source,
        status: w.status,
        stop: w.stop,
        instructions: w.items.map((item) => linearItemView(item, w.literalWords, w.names)),
      },
      text: `${args.processor} ${w.source.component}${w.source.overlayId === null ? '' : ` ${w.source.overlayId}`} ${w.source.mode} ${w.source.start}: ${w.instructions.length} instructions (${w.decodedBytes} bytes), ${refs} references, ${w.status}${stopText}`,
    };
  },
});

// nds_list_references: the proven single-instruction references of one linear window (same window
// rules as nds_disassemble_range); nothing is followed, no data flow, immediates are not references.
export const ndsListReferences = defineTool({
  name: 'nds_list_references',
  title: 'Proven references of ARM/Thumb code',
  profiles: ['static'],
  description: {
    purpose: 'Direct branches/calls, literal-pool slots and pc-relative addresses in one linear window.',
    useWhen: 'what a window calls or addresses; nds_find_xrefs for who references X.',
    behaviour:
      'window as nds_disassemble_range; literal-pool: the slot, its word (value), valueTarget if mapped.',
    limits: `${LINEAR_LIMITS_TEXT}.`,
  },
  input: z.object({ ...startArgs, ...linearWindowArgs }),
  output: z.object({
    ...linearWindowOutput,
    decoded: z.object({ instructions: z.number().int(), bytes: z.number().int() }),
    references: z.array(
      z.object({
        from: addressOut,
        kind: z.enum(REFERENCE_KINDS),
        to: addressOut,
        toName: z.string().optional().describe('The stored name of to (nds_symbols)'),
        targetMode: z.enum(ARM_MODES).optional(),
        condition: z.string().optional(),
        value: addressOut
          .optional()
          .describe(
            'literal-pool: the little-endian word in the slot (when the slot lies in this component)',
          ),
        valueTarget: z
          .object({
            modeBit: z
              .union([z.literal(0), z.literal(1)])
              .describe('Bit 0 of the word (1 = Thumb if used by BX/BLX)'),
            address: addressOut.describe('The word with bit 0 cleared'),
            status: z.enum(MAPPED_STATUSES),
            owners: z.array(
              z.object({
                component: z.string(),
                overlayId: z.number().int().nullable(),
                region: z.enum(RUNTIME_RANGE_KINDS),
              }),
            ),
          })
          .optional()
          .describe('literal-pool: present when the word names a mapped runtime address: its static owners'),
        valueText: z
          .string()
          .optional()
          .describe('literal-pool: the string at the word, as in nds_disassemble_range'),
      }),
    ),
  }),
  annotations: READ_ONLY,
  limits: LINEAR_LIMITS,
  names: romArgNames,
  async handler(args, ctx) {
    const w = await linearWindow(ctx, args);
    const references = referencesOfWindow(w.instructions).map((ref) => {
      const word = ref.kind === 'literal-pool' ? w.literalWords.get(ref.to) : undefined;
      const view = {
        ...ref,
        from: hex(ref.from),
        to: hex(ref.to),
        ...nameField('toName', w.names.table, w.names.processor, ref.to, w.names.overlayId),
      };
      if (!word) return view;
      const { target } = word;
      return {
        ...view,
        value: hex(word.value),
        ...(target ? { valueTarget: { ...target, address: hex(target.address) } } : {}),
        ...(word.text !== null ? { valueText: word.text } : {}),
      };
    });
    const counts = new Map<string, number>();
    for (const r of references) counts.set(r.kind, (counts.get(r.kind) ?? 0) + 1);
    const summary = [...counts].map(([k, n]) => `${n} ${k}`).join(', ') || 'no references';
    return {
      structured: {
        source: w.source,
        status: w.status,
        stop: w.stop,
        decoded: { instructions: w.instructions.length, bytes: w.decodedBytes },
        references,
      },
      text: `${args.processor} ${w.source.mode} ${w.source.start}: ${w.instructions.length} instructions, ${summary}; ${w.status}`,
    };
  },
});
