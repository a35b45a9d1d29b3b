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
    purpose: "Writes the core's system memory map (WRITE_CORE_MEMORY), acknowledged by RetroArch.",
    useWhen: 'poking game state on a core with a memory map (save a state first: no undo).',
    behaviour:
      '~650-byte datagrams; no acknowledgement is unconfirmed, a short count short-write, ROM read-only; disables hardcore mode.',
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
