// nds_list_references: the proven single-instruction references of one linear window (same window
// rules as nds_disassemble_range); nothing is followed, no data flow, immediates are not references.
import { z } from 'zod/v4';
import { referencesOfWindow } from '../../arm/references.js';
import { addressOut, formatAddress as hex } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { IDENTITY_NOTE, READ_ONLY } from '../shared/rom.js';
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
  title: 'List proven references of an ARM/Thumb window',
  profiles: ['static'],
  description: {
    purpose:
      'Lists the deterministic single-instruction references of one linear ARM/Thumb window: direct-branch, direct-call, literal-pool (the slot address), pc-relative-address (ADR / ADD|SUB Rd, PC, #imm).',
    useWhen:
      'asking what a piece of code calls, jumps to or addresses; use nds_disassemble_range for the instructions themselves.',
    behaviour: `read-only; same sources and window rules as nds_disassemble_range; branches and calls are not followed; a literal-pool reference is the slot address, the word stored there is not interpreted; immediates that look like addresses are not references; targetMode only when the instruction proves it (B/BL keep the mode, BLX label switches); ${IDENTITY_NOTE}`,
    limits: `${LINEAR_LIMITS_TEXT}.`,
    returns:
      'source, status (complete | component-end | decode-stopped), stop, decoded {instructions, bytes}, references[{from, kind, to, targetMode?, condition?}].',
  },
  input: z.object({ ...startArgs, ...linearWindowArgs }),
  output: z.object({
    ...linearWindowOutput,
    decoded: z.object({ instructions: z.number().int(), bytes: z.number().int() }),
    references: z.array(
      z.object({
        from: addressOut,
        kind: z.enum(['direct-branch', 'direct-call', 'literal-pool', 'pc-relative-address']),
        to: addressOut,
        targetMode: z.enum(['arm', 'thumb']).optional(),
        condition: z.string().optional(),
      }),
    ),
  }),
  annotations: READ_ONLY,
  limits: LINEAR_LIMITS,
  async handler(args, ctx) {
    const w = await linearWindow(ctx, args);
    const references = referencesOfWindow(w.instructions);
    const counts = new Map<string, number>();
    for (const r of references) counts.set(r.kind, (counts.get(r.kind) ?? 0) + 1);
    const summary = [...counts].map(([k, n]) => `${n} ${k}`).join(', ') || 'no references';
    return {
      structured: {
        source: w.source,
        status: w.status,
        stop: w.stop,
        decoded: { instructions: w.instructions.length, bytes: w.decodedBytes },
        references: references.map((r) => ({ ...r, from: hex(r.from), to: hex(r.to) })),
      },
      text: `${args.processor} ${w.source.mode} ${w.source.start}: ${w.instructions.length} instructions, ${summary}; ${w.status}`,
    };
  },
});
