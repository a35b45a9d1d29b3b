// Shared pieces of the RetroArch tools: the per-server client (lazy: no socket until the first call),
// address/byte inputs and the limits every tool reports.
import { z } from 'zod/v4';
import { RETROARCH_TIMEOUT } from '../../config/config.js';
import { ReMcpError } from '../../core/errors.js';
import { addressArg } from '../../core/vocabulary.js';
import type { LimitSpec, ToolContext } from '../../mcp/tool.js';
import type { RetroArchClient } from '../../retroarch/client.js';
import { RUN_STATES } from '../../retroarch/codec.js';
import { retroarchClient } from '../../retroarch/service.js';

export function retroarch(ctx: ToolContext): RetroArchClient {
  return retroarchClient(ctx.services);
}

export const PROFILES = ['retroarch'] as const;

export const TIMEOUT_LIMIT: LimitSpec = {
  default: RETROARCH_TIMEOUT.default,
  min: RETROARCH_TIMEOUT.min,
  max: RETROARCH_TIMEOUT.max,
  unit: 'ms per query (RETROARCH_TIMEOUT_MS); reads are tried 3 times, writes once',
};

export const address = addressArg();

export const writeInput = {
  address,
  bytes: z.array(z.number().int().min(0).max(255)).min(1).max(65_536).optional().describe('Or hex.'),
  hex: z
    .string()
    .regex(/^([0-9a-fA-F]{2})+$/, 'an even number of hex digits, no spaces')
    .max(131_072)
    .optional()
    .describe('Or bytes.'),
};

export function writeBytes(args: { bytes?: number[] | undefined; hex?: string | undefined }): Uint8Array {
  if ((args.bytes === undefined) === (args.hex === undefined)) {
    throw new ReMcpError('invalid-argument', 'give exactly one of `bytes` or `hex`');
  }
  return args.bytes ? Uint8Array.from(args.bytes) : Uint8Array.from(Buffer.from(args.hex!, 'hex'));
}

export const stateEnum = z.enum(RUN_STATES);

export const resumeIfPaused = z.boolean().default(false).describe('Re-pauses; a few frames run.');
