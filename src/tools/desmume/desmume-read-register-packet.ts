// desmume_read_register_packet: Read the register packet.
import { z } from 'zod/v4';
import { registerView } from '../../debug/control.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import { cpuOf, generationNumber, processorInput, RUNTIME, registersOutput } from './common.js';

export const desmumeReadRegisterPacket = defineTool({
  name: 'desmume_read_register_packet',
  title: 'Read the register packet',
  profiles: RUNTIME,
  description: {
    purpose: "Reads and decodes the halted CPU's GDB register packet: r0..r12, sp, lr, pc, cpsr, ARM/Thumb.",
    useWhen: 'registers at a stop; desmume_capture_stop_context adds memory.',
    behaviour: 'refused with target-running while running.',
    limits: 'one 168-byte packet.',
    returns: 'raw: 336 hex digits (r0..r15, 8 FPA registers, fps, cpsr).',
  },
  input: z.object({ processor: processorInput }),
  output: z.object({
    processor: z.enum(['arm9', 'arm7']),
    generation: z.number().int(),
    raw: z.string(),
    registers: registersOutput,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const { raw, decoded } = await cpuOf(ctx.services, args.processor).readRegisters();
      const registers = registerView(decoded);
      return {
        structured: { processor: args.processor, generation: generationNumber(ctx.services), raw, registers },
        text: `${args.processor}: pc ${registers.pc} (${registers.mode}), sp ${registers.sp}, lr ${registers.lr}, cpsr ${registers.cpsr}`,
      };
    });
  },
});
