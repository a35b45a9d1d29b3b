// Reading and writing the running game's memory through RetroArch, in either address space: the
// core's system memory map (retroarch_read_memory, retroarch_write_memory) and the RetroAchievements
// space (retroarch_read_ram, retroarch_write_ram).
import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { addressArg, addressOut, formatAddress } from '../../core/vocabulary.js';
import { defineTool, type ToolContext, type ToolDescription } from '../../mcp/tool.js';
import { MAX_READ_BYTES } from '../../retroarch/client.js';
import { MEMORY_SPACES, planWrite, type Space } from '../../retroarch/codec.js';
import { PROFILES, retroarch, TIMEOUT_LIMIT } from './client.js';

/** The start address every read and write takes. */
const address = addressArg();

/** The write tools' arguments: an address and the bytes, as a list or as hex. */
const writeInput = {
  address,
  bytes: z.array(z.number().int().min(0).max(255)).min(1).max(65_536).optional().describe('Or hex.'),
  hex: z
    .string()
    .regex(/^([0-9a-fA-F]{2})+$/, 'an even number of hex digits, no spaces')
    .max(131_072)
    .optional()
    .describe('Or bytes.'),
};

/** The bytes of a write, given as exactly one of `bytes` or `hex`. */
function writeBytes(args: { bytes?: number[] | undefined; hex?: string | undefined }): Uint8Array {
  if ((args.bytes === undefined) === (args.hex === undefined)) {
    throw new ReMcpError('invalid-argument', 'give exactly one of `bytes` or `hex`');
  }
  return args.bytes ? Uint8Array.from(args.bytes) : Uint8Array.from(Buffer.from(args.hex!, 'hex'));
}

const readInput = z.object({
  address,
  length: z.number().int().min(1).max(MAX_READ_BYTES),
});

const readOutput = z.object({
  address: addressOut,
  space: z.enum(MEMORY_SPACES),
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
    // The text block is the read renderer's (src/mcp/render/registry.ts): its head and the full hexdump.
    text: head,
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
      limits: 'requests of 16 KiB; RETROARCH_TIMEOUT_MS.',
    },
    input: readInput,
    output: readOutput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    limits: readLimits,
    handler: (args, ctx) => readSpace(space, args, ctx),
  });
}

const writeInputSchema = z.object(writeInput);

const writeLimits = {
  bytes: { min: 1, max: 65_536, unit: 'bytes per call' },
  timeoutMs: TIMEOUT_LIMIT,
};

// retroarch_read_memory: RetroArch: read the system memory map (shared shape with retroarch_read_ram).
export const retroarchReadMemory = readTool(
  'memory',
  'retroarch_read_memory',
  'RetroArch: read system memory',
  {
    purpose: "Reads the core's system memory map (READ_CORE_MEMORY), e.g. GBA EWRAM at 0x02000000.",
    useWhen: 'cores with a memory map (mGBA); on no-memory-map (Nestopia) retroarch_read_ram.',
    behaviour:
      "fewer bytes past a region's end (truncated); -1 answers become no-memory-map or no-descriptor.",
  },
);

// retroarch_write_memory: RetroArch: write system memory.
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

// retroarch_read_ram: RetroArch: read achievements RAM (shared shape with retroarch_read_memory).
export const retroarchReadRam = readTool('ram', 'retroarch_read_ram', 'RetroArch: read achievements RAM', {
  purpose: 'Reads the RetroAchievements address space (READ_CORE_RAM), e.g. NES RAM at $0000-$07FF.',
  useWhen: 'no memory map (retroarch_read_memory: no-memory-map), or achievement addresses.',
  behaviour:
    "only the start is checked: bytes past the space's end are meaningless; a start outside is no-descriptor.",
});

// retroarch_write_ram: RetroArch: write achievements RAM.
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
