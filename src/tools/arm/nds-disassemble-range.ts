// nds_disassemble_range: one bounded linear window of canonical NDS code; control flow is classified
// per instruction but never followed.
import { z } from 'zod/v4';
import { referencesOfWindow } from '../../arm/references.js';
import { defineTool } from '../../mcp/tool.js';
import { IDENTITY_NOTE, READ_ONLY } from '../shared/rom.js';
import {
  instructionSchema,
  instructionView,
  LINEAR_LIMITS,
  LINEAR_LIMITS_TEXT,
  linearWindow,
  linearWindowArgs,
  linearWindowOutput,
  startArgs,
} from './common.js';

export const ndsDisassembleRange = defineTool({
  name: 'nds_disassemble_range',
  title: 'Disassemble a bounded ARM/Thumb window',
  profiles: ['static'],
  description: {
    purpose:
      'Decodes ARM or Thumb instructions linearly from one start in canonical NDS code (ARM9 ARMv5TE / ARM7 ARMv4T).',
    useWhen:
      'reading code at a known address or ROM offset; use nds_analyze_control_flow to follow branches, nds_list_references for references only.',
    behaviour: `read-only; sources: main ARM9/ARM7, uncompressed overlays (file-backed prefix), decoded BLZ images (romOffset null); never BSS; overlapping overlays without overlayId fail with ambiguous-code-source; stops at the first undecodable or later-architecture instruction and returns the prefix (never skips bytes); ${IDENTITY_NOTE}`,
    limits: `${LINEAR_LIMITS_TEXT}; stops at the component end.`,
    returns:
      'source {component, overlayId, mode, start, romOffset, derived}, status (complete | component-end | decode-stopped), stop {reason, address}, instructions[{address, size, bytes, mnemonic, operands, condition?, flow?, target?, targetMode?, pcRelative?, readsPc?, writesPc?}].',
  },
  input: z.object({ ...startArgs, ...linearWindowArgs }),
  output: z.object({ ...linearWindowOutput, instructions: z.array(instructionSchema) }),
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
        instructions: w.instructions.map(instructionView),
      },
      text: `${args.processor} ${w.source.component}${w.source.overlayId === null ? '' : ` ${w.source.overlayId}`} ${w.source.mode} ${w.source.start}: ${w.instructions.length} instructions (${w.decodedBytes} bytes), ${refs} references, ${w.status}${stopText}`,
    };
  },
});
