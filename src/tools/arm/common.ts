// Shared input and output pieces of the ARM tools.
import { z } from 'zod/v4';
import { processorArg, romArg, u32Arg } from '../nds/common.js';

export const startArgs = {
  rom: romArg,
  processor: processorArg,
  address: u32Arg('Runtime start address (give this or romOffset, not both)').optional(),
  romOffset: u32Arg('ROM offset of the start byte; must map to exactly one runtime address').optional(),
  overlayId: z
    .number()
    .int()
    .min(0)
    .max(0xffffffff)
    .optional()
    .describe(
      'Optional overlay ID: a static disambiguator among overlapping overlays; it does not mean the overlay is loaded.',
    ),
  mode: z
    .enum(['arm', 'thumb', 'auto'])
    .describe(
      'Instruction set at the start. auto is accepted only at the header entry point (ARM). ARM starts must be 4-aligned, Thumb 2-aligned (never rounded).',
    ),
};

export const instructionSchema = z.object({
  address: z.number().int(),
  size: z.number().int(),
  bytes: z.string().describe('Instruction bytes, hex, memory order'),
  mnemonic: z.string(),
  operands: z.string(),
  condition: z.string().optional(),
  flow: z.enum(['branch', 'call', 'return', 'branch-indirect', 'call-indirect']).optional(),
  target: z.number().int().optional(),
  targetMode: z.enum(['arm', 'thumb']).optional(),
  pcRelative: z
    .object({ kind: z.enum(['literal-pool', 'pc-relative-address']), address: z.number().int() })
    .optional(),
  readsPc: z.literal(true).optional(),
  writesPc: z.literal(true).optional(),
});

export const sourceSchema = z.object({
  processor: z.enum(['arm9', 'arm7']),
  component: z.string(),
  overlayId: z.number().int().nullable(),
  mode: z.enum(['arm', 'thumb']),
  start: z.number().int(),
  /** ROM offset of the start; null for decoded (derived) bytes. */
  romOffset: z.number().int().nullable(),
  derived: z.boolean(),
});

export const stopSchema = z
  .object({
    reason: z.enum(['undecodable', 'architecture', 'truncated-instruction']),
    address: z.number().int(),
  })
  .nullable();
