// Pieces shared by the retroarch_read_memory, retroarch_read_ram, retroarch_write_memory, retroarch_write_ram tools.
import { z } from 'zod/v4';
import { addressOut, formatAddress } from '../../core/vocabulary.js';
import { defineTool, type ToolContext, type ToolDescription } from '../../mcp/tool.js';
import { MAX_READ_BYTES } from '../../retroarch/client.js';
import { MEMORY_SPACES, type Space } from '../../retroarch/codec.js';
import { address, PROFILES, retroarch, TIMEOUT_LIMIT, writeInput } from './shared.js';

export const readInput = z.object({
  address,
  length: z.number().int().min(1).max(MAX_READ_BYTES),
});

export const readOutput = z.object({
  address: addressOut,
  space: z.enum(MEMORY_SPACES),
  requested: z.number().int(),
  returned: z.number().int(),
  truncated: z.boolean(),
  requests: z.number().int(),
  hex: z.string(),
});

export const readLimits = {
  length: { min: 1, max: MAX_READ_BYTES, unit: 'bytes per call' },
  requestBytes: { max: 16_384, unit: 'bytes per RetroArch request (it answers at most ~21 KiB)' },
  timeoutMs: TIMEOUT_LIMIT,
};

export async function readSpace(space: Space, args: z.output<typeof readInput>, ctx: ToolContext) {
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
export function readTool(
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

export const writeInputSchema = z.object(writeInput);

export const writeLimits = {
  bytes: { min: 1, max: 65_536, unit: 'bytes per call' },
  timeoutMs: TIMEOUT_LIMIT,
};
