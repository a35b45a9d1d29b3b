// retroarch_write_memory: RetroArch: write system memory.
import { z } from 'zod/v4';
import { addressOut, formatAddress } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { writeInputSchema, writeLimits } from './memory-common.js';
import { PROFILES, retroarch, writeBytes } from './shared.js';

export const retroarchWriteMemory = defineTool({
  name: 'retroarch_write_memory',
  title: 'RetroArch: write system memory',
  profiles: PROFILES,
  description: {
    purpose:
      "Writes bytes into the core's system memory map (WRITE_CORE_MEMORY), reporting what RetroArch confirms.",
    useWhen: 'poking game state on a core with a memory map; save a state first to be able to undo.',
    behaviour:
      'no undo; datagrams of ~650 bytes, each sent once: no acknowledgement is unconfirmed, a short count short-write, ROM read-only. Disables achievements hardcore mode.',
    limits: '65536 bytes per call; RETROARCH_TIMEOUT_MS per datagram.',
  },
  input: writeInputSchema,
  output: z.object({ address: addressOut, written: z.number().int(), requests: z.number().int() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  limits: writeLimits,
  async handler(args, ctx) {
    const at = args.address;
    const bytes = writeBytes(args);
    const r = await retroarch(ctx).writeMemory(at, bytes, ctx.signal, (done, total) =>
      ctx.progress({ progress: done, total, message: 'writing' }),
    );
    return {
      structured: { address: formatAddress(at), written: r.written, requests: r.requests },
      text: `Wrote ${r.written} bytes at ${formatAddress(at)} (confirmed by RetroArch, ${r.requests} request${r.requests === 1 ? '' : 's'})`,
    };
  },
});
