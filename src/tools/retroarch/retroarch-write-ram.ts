// retroarch_write_ram: RetroArch: write achievements RAM.
import { z } from 'zod/v4';
import { addressOut, formatAddress } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { planWrite } from '../../retroarch/codec.js';
import { writeInputSchema, writeLimits } from './memory-common.js';
import { PROFILES, retroarch, writeBytes } from './shared.js';

export const retroarchWriteRam = defineTool({
  name: 'retroarch_write_ram',
  title: 'RetroArch: write achievements RAM',
  profiles: PROFILES,
  description: {
    purpose: 'Writes the RetroAchievements address space (WRITE_CORE_RAM), verified by reading back.',
    useWhen: 'no memory map (Nestopia); else retroarch_write_memory, which is acknowledged.',
    behaviour:
      'never acknowledged: verified true, false (the game may change the bytes first) or "unverifiable".',
    limits: '65536 bytes per call, datagrams under 2,047 bytes; RETROARCH_TIMEOUT_MS per read-back.',
  },
  input: writeInputSchema,
  output: z.object({
    address: addressOut,
    sent: z.number().int(),
    requests: z.number().int(),
    verified: z.union([z.boolean(), z.literal('unverifiable')]),
    firstMismatch: z.number().int().nullable(),
    reason: z.string().nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  limits: writeLimits,
  async handler(args, ctx) {
    const at = args.address;
    const bytes = writeBytes(args);
    planWrite('ram', at, bytes); // validates the range before anything is sent
    const r = await retroarch(ctx).writeRam(at, bytes, ctx.signal);
    const structured = {
      address: formatAddress(at),
      sent: r.sent,
      requests: r.requests,
      verified: r.verified,
      firstMismatch: 'firstMismatch' in r ? (r.firstMismatch ?? null) : null,
      reason: 'reason' in r ? (r.reason ?? null) : null,
    };
    const verdict =
      r.verified === true
        ? 'verified by read-back'
        : r.verified === false
          ? `read-back DIFFERS at offset ${structured.firstMismatch}`
          : `not verifiable: ${structured.reason}`;
    return {
      structured,
      text: `Sent ${r.sent} bytes to ${formatAddress(at)} (achievements RAM, no acknowledgement): ${verdict}`,
    };
  },
});
