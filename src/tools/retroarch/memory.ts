// Memory tools: the core's system memory map (READ/WRITE_CORE_MEMORY) and the achievements address
// space (READ/WRITE_CORE_RAM). Reads are chunked under RetroArch's reply limit; writes under its
// 2,047-byte receive limit.
import { z } from 'zod/v4';
import { addressOut, formatAddress } from '../../core/vocabulary.js';
import { defineTool, type ToolContext, type ToolDescription } from '../../mcp/tool.js';
import { MAX_READ_BYTES } from '../../retroarch/client.js';
import { planWrite, type Space } from '../../retroarch/codec.js';
import { address, hexdump, PROFILES, retroarch, TIMEOUT_LIMIT, writeBytes, writeInput } from './shared.js';

const readInput = z.object({
  address,
  length: z
    .number()
    .int()
    .min(1)
    .max(MAX_READ_BYTES)
    .describe(`Bytes to read, 1..${MAX_READ_BYTES} (no default).`),
});

const readOutput = z.object({
  address: addressOut,
  space: z.enum(['memory', 'ram']),
  requested: z.number().int(),
  returned: z.number().int(),
  truncated: z.boolean(),
  requests: z.number().int(),
  hex: z.string(),
});

const readLimits = {
  length: { min: 1, max: MAX_READ_BYTES, unit: 'bytes per call' },
  requestBytes: { max: 16_384, unit: 'bytes per RetroArch request (it answers at most ~21 KiB)' },
  timeoutMs: TIMEOUT_LIMIT,
};

async function readSpace(space: Space, args: z.output<typeof readInput>, ctx: ToolContext) {
  const at = args.address;
  const r = await retroarch(ctx).read(space, at, args.length, ctx.signal, (done, total) =>
    ctx.progress({ progress: done, total, message: 'reading' }),
  );
  const truncated = r.bytes.length < args.length;
  const head = `${formatAddress(at)}: ${r.bytes.length} of ${args.length} bytes${truncated ? ' (cut at the end of the region)' : ''}${space === 'ram' ? ', achievements address space' : ''}`;
  return {
    structured: {
      address: formatAddress(at),
      space,
      requested: args.length,
      returned: r.bytes.length,
      truncated,
      requests: r.requests,
      hex: Buffer.from(r.bytes).toString('hex').toUpperCase(),
    },
    text: `${head}\n${hexdump(r.bytes, at)}`,
  };
}

/** The two read tools differ only in the address space and what they say about it. */
function readTool(
  space: Space,
  name: string,
  title: string,
  about: Pick<ToolDescription, 'purpose' | 'useWhen' | 'behaviour'>,
) {
  return defineTool({
    name,
    title,
    profiles: PROFILES,
    description: {
      ...about,
      limits: `length 1..${MAX_READ_BYTES} bytes per call; per-query timeout RETROARCH_TIMEOUT_MS, 3 attempts.`,
      returns: 'address, requested, returned, truncated, requests, hex (uppercase, no spaces).',
    },
    input: readInput,
    output: readOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    limits: readLimits,
    handler: (args, ctx) => readSpace(space, args, ctx),
  });
}

export const retroarchReadMemory = readTool(
  'memory',
  'retroarch_read_memory',
  'RetroArch: read system memory',
  {
    purpose:
      "Reads bytes from the loaded core's system memory map (READ_CORE_MEMORY), e.g. GBA EWRAM at 0x02000000.",
    useWhen:
      'the core publishes a memory map (mGBA does). When this fails with no-memory-map (e.g. Nestopia), use retroarch_read_ram.',
    behaviour:
      'read-only; split into requests of up to 16 KiB, each re-sent on timeout. A read running past the end of a region returns fewer bytes (truncated: true). RetroArch -1 answers become typed errors: no-memory-map, no-descriptor.',
  },
);

export const retroarchReadRam = readTool('ram', 'retroarch_read_ram', 'RetroArch: read achievements RAM', {
  purpose:
    'Reads bytes from the RetroAchievements address space (READ_CORE_RAM), e.g. NES RAM at $0000-$07FF.',
  useWhen:
    'the core has no memory map (retroarch_read_memory says no-memory-map), or you work with achievement addresses.',
  behaviour:
    'read-only; chunked and re-sent on timeout like retroarch_read_memory. RetroArch checks only the START address here: bytes past the end of the space are not guaranteed meaningful. A start outside the space gives no-descriptor.',
});

const writeInputSchema = z.object(writeInput);
const writeLimits = { bytes: { min: 1, max: 65_536, unit: 'bytes per call' }, timeoutMs: TIMEOUT_LIMIT };

export const retroarchWriteMemory = defineTool({
  name: 'retroarch_write_memory',
  title: 'RetroArch: write system memory',
  profiles: PROFILES,
  description: {
    purpose:
      "Writes bytes into the core's system memory map (WRITE_CORE_MEMORY) and reports what RetroArch confirms.",
    useWhen: 'poking game state on a core with a memory map; save a state first if you may want to undo.',
    behaviour:
      "DESTRUCTIVE: overwrites live memory, no undo. Split into datagrams under RetroArch's 2,047-byte limit (~650 bytes each), each sent ONCE (never re-sent): a missing acknowledgement is an `unconfirmed` error, a short count (the write ran past the end of a region) is a `short-write` error with the confirmed count, ROM is `read-only`. RetroArch disables achievements hardcore mode on writes.",
    limits: 'bytes 1..65536 per call; per-datagram timeout RETROARCH_TIMEOUT_MS, no retries.',
    returns: 'address, written (bytes RetroArch confirmed), requests.',
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

export const retroarchWriteRam = defineTool({
  name: 'retroarch_write_ram',
  title: 'RetroArch: write achievements RAM',
  profiles: PROFILES,
  description: {
    purpose:
      'Writes bytes into the RetroAchievements address space (WRITE_CORE_RAM), then reads them back to verify.',
    useWhen:
      'the core has no memory map (e.g. Nestopia); otherwise prefer retroarch_write_memory, which is acknowledged.',
    behaviour:
      'DESTRUCTIVE: overwrites live memory. RetroArch never acknowledges WRITE_CORE_RAM, so the tool reads the range back: verified true|false, or "unverifiable" when the read-back fails. On a running game the program itself may change the bytes before the read-back (verified: false).',
    limits:
      'bytes 1..65536 per call; datagrams under 2,047 bytes; read-back timeout RETROARCH_TIMEOUT_MS, 3 attempts.',
    returns: 'address, sent, verified (true|false|"unverifiable"), firstMismatch (offset or null), reason.',
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
