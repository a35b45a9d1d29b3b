// desmume_read_memory: Read emulator memory.
import { z } from 'zod/v4';
import { addressArg, addressOut, formatAddress } from '../../core/vocabulary.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import { nameField } from '../shared/names.js';
import { cpuOf, generationNumber, liveNames, processorInput, RUNTIME } from './common.js';

export const desmumeReadMemory = defineTool({
  name: 'desmume_read_memory',
  title: 'Read emulator memory',
  profiles: RUNTIME,
  description: {
    purpose: "Reads the halted CPU's memory through its GDB stub.",
    useWhen: 'RAM or code at a stop; desmume_capture_stop_context for several windows.',
    behaviour: 'unmapped memory reads as zeros.',
    limits: 'inside the 32-bit space.',
    returns: 'bytes as lowercase hex.',
  },
  input: z.object({
    processor: processorInput,
    address: addressArg(),
    length: z.number().int().min(1).describe(`At most ${LIMITS.memoryRead.max} bytes.`),
  }),
  output: z.object({
    processor: z.enum(['arm9', 'arm7']),
    generation: z.number().int(),
    address: addressOut,
    name: z.string().optional().describe("The symbol store's name at the address (user-asserted)"),
    length: z.number().int(),
    hex: z.string(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { length: { min: LIMITS.memoryRead.min, max: LIMITS.memoryRead.max, unit: 'bytes' } },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const bytes = await cpuOf(ctx.services, args.processor).readMemory(args.address, args.length);
      const hex = Buffer.from(bytes).toString('hex');
      const names = await liveNames(ctx, args.processor);
      return {
        structured: {
          processor: args.processor,
          generation: generationNumber(ctx.services),
          address: formatAddress(args.address),
          ...(names ? nameField('name', names.table, args.processor, args.address, null) : {}),
          length: bytes.length,
          hex,
        },
        text: `${args.processor} ${formatAddress(args.address)}: ${bytes.length} bytes${bytes.length <= 16 ? ` ${hex}` : ''}`,
      };
    });
  },
});
