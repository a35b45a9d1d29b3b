// desmume_watchpoint_add: a data watchpoint (write, read or any access) through the stub's Z2/Z3/Z4.
import { z } from 'zod/v4';
import { addressArg, formatAddress } from '../../core/vocabulary.js';
import { addWatchpoint, WATCH_LIMITS, WATCH_REGIONS } from '../../debug/watchpoints.js';
import { defineTool } from '../../mcp/tool.js';
import { cpuOf, debugSession, generationNumber, processorInput, RUNTIME } from './common.js';
import { watchpointOutput, watchpointView } from './watchpoint-common.js';

const ranges = (['arm9', 'arm7'] as const)
  .map(
    (p) =>
      `${p}: ${WATCH_REGIONS[p].map((r) => `${r.label} ${formatAddress(r.start)}..${formatAddress(r.end)}`).join(', ')}`,
  )
  .join('; ');

export const desmumeWatchpointAdd = defineTool({
  name: 'desmume_watchpoint_add',
  title: 'Add a data watchpoint',
  profiles: RUNTIME,
  description: {
    purpose: 'Halts the emulation when the CPU writes, reads or accesses 1, 2 or 4 bytes of RAM.',
    useWhen: 'finding the code that changes or reads a variable, e.g. one found by a memory scan.',
    behaviour:
      'set in DeSmuME’s GDB stub (Z2/Z3/Z4, both CPUs); desmume_continue then stops with reason "watchpoint"; the stop PC is at or just after the accessing instruction; refused while running.',
    limits: `at most ${WATCH_LIMITS.perCpu.max} per CPU; length 1, 2 or 4, aligned; watchable ranges ${ranges}.`,
  },
  input: z.object({
    processor: processorInput,
    address: addressArg('Data address to watch'),
    length: z
      .union([z.literal(1), z.literal(2), z.literal(4)])
      .default(4)
      .describe('Bytes watched: 1, 2 or 4 (default 4).'),
    access: z
      .enum(['write', 'read', 'access'])
      .default('write')
      .describe('Access that halts; access: read or write.'),
  }),
  output: z.object({
    generation: z.number().int(),
    watchpoint: watchpointOutput,
    alreadyPresent: z.boolean(),
    active: z.number().int(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { watchpoints: { max: WATCH_LIMITS.perCpu.max, unit: 'active watchpoints per CPU' } },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const cpu = cpuOf(ctx.services, args.processor);
      const { wp, existed } = await addWatchpoint(cpu, args.address, args.length as 1 | 2 | 4, args.access);
      return {
        structured: {
          generation: generationNumber(ctx.services),
          watchpoint: watchpointView(wp),
          alreadyPresent: existed,
          active: cpu.watchpoints.size,
        },
        text: `${existed ? 'already set' : 'set'} ${wp.id}: ${wp.access} of ${formatAddress(wp.address)}+${wp.length} (${wp.region})`,
      };
    });
  },
});
