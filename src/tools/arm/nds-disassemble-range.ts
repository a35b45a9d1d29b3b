// nds_disassemble_range: one bounded linear window of canonical NDS code; control flow is classified
// per instruction but never followed.
import { z } from 'zod/v4';
import { referencesOfWindow } from '../../arm/references.js';
import { defineTool } from '../../mcp/tool.js';
import { READ_ONLY } from '../shared/rom.js';
import {
  instructionSchema,
  LINEAR_LIMITS,
  LINEAR_LIMITS_TEXT,
  linearItemView,
  linearWindow,
  linearWindowArgs,
  linearWindowOutput,
  literalPoolDataSchema,
  startArgs,
} from './common.js';

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
