// nds_list_references: the proven single-instruction references of one linear window (same window
// rules as nds_disassemble_range); nothing is followed, no data flow, immediates are not references.

import { z } from 'zod/v4';
import { REFERENCE_KINDS, referencesOfWindow } from '../../arm/references.js';
import { ARM_MODES } from '../../arm/types.js';
import { addressOut, formatAddress as hex } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { nameField } from '../shared/names.js';
import { READ_ONLY } from '../shared/rom.js';
import {
  LINEAR_LIMITS,
  LINEAR_LIMITS_TEXT,
  linearWindow,
  linearWindowArgs,
  linearWindowOutput,
  startArgs,
} from './common.js';

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
            status: z.enum(['resolved', 'ambiguous', 'bss', 'compressed-overlay']),
            owners: z.array(
              z.object({
                component: z.string(),
                overlayId: z.number().int().nullable(),
                region: z.enum(['file-backed', 'initialized-derived', 'bss']),
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
