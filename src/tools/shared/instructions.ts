// Decoded-instruction shapes shared by the static ARM tools and live disassembly: the window bounds
// they take and the instructions, sources and decoder stops they return.
import { z } from 'zod/v4';
import type { ResolvedSource } from '../../analysis/code-source.js';
import { LINEAR_LIMITS } from '../../analysis/linear-window.js';
import {
  ARM_MODES,
  DECODE_STOP_REASONS,
  type DecodedInstruction,
  type DecodeStopReason,
  FLOW_KINDS,
  PC_RELATIVE_KINDS,
} from '../../arm/types.js';
import {
  addressOut,
  formatAddress as hex,
  limitArg,
  PROCESSORS,
  type Processor,
} from '../../core/vocabulary.js';

/** The bounds of a linear decode window, as arguments. */
export const linearWindowArgs = {
  maxInstructions: limitArg(LINEAR_LIMITS.instructions),
  maxBytes: limitArg(LINEAR_LIMITS.bytes),
};

export const instructionSchema = z.object({
  address: addressOut,
  size: z.number().int(),
  bytes: z.string().describe('Instruction bytes, hex, memory order'),
  mnemonic: z.string(),
  operands: z.string(),
  condition: z.string().optional(),
  flow: z.enum(FLOW_KINDS).optional(),
  target: addressOut.optional(),
  targetMode: z.enum(ARM_MODES).optional(),
  targetName: z
    .string()
    .optional()
    .describe('The stored name of the target (nds_symbols), as name or name+0x10'),
  pcRelative: z
    .object({
      kind: z.enum(PC_RELATIVE_KINDS),
      address: addressOut,
      value: addressOut
        .optional()
        .describe('A word load: the word it reads (when the slot lies in this component)'),
      valueIn: z
        .string()
        .optional()
        .describe(
          "Where that word as an address (bit 0 cleared) lies statically: 'main', 'overlay 3 (bss)', ...",
        ),
      valueName: z.string().optional().describe('The stored name of that address (nds_symbols)'),
      valueText: z
        .string()
        .optional()
        .describe('The NUL-terminated string at that address (ASCII, Shift-JIS or UTF-16LE), cut with …'),
    })
    .optional(),
  readsPc: z.literal(true).optional(),
  writesPc: z.literal(true).optional(),
});

export const sourceSchema = z.object({
  processor: z.enum(PROCESSORS),
  component: z.string(),
  overlayId: z.number().int().nullable(),
  mode: z.enum(ARM_MODES),
  start: addressOut,
  /** ROM offset of the start; null for decoded (derived) bytes. */
  romOffset: addressOut.nullable(),
  derived: z.boolean(),
});

/** Why decoding stopped early, and where. */
export const decodeStopSchema = z.object({
  reason: z.enum(DECODE_STOP_REASONS),
  address: addressOut,
});

/** A decoder stop in the output form. */
export function decodeStopView(stop: {
  reason: DecodeStopReason;
  address: number;
}): z.input<typeof decodeStopSchema> {
  return { reason: stop.reason, address: hex(stop.address) };
}

/**
 * A decoded instruction in the output form (addresses as strings): the fields it has, assigned in the
 * schema's order (no spread, no absent field present as undefined), so a result of them needs no copy
 * by zod to be checked (mcp/exact-output.ts).
 */
export function instructionView(i: DecodedInstruction): z.input<typeof instructionSchema> {
  const v = {
    address: hex(i.address),
    size: i.size,
    bytes: i.bytes,
    mnemonic: i.mnemonic,
    operands: i.operands,
  } as z.input<typeof instructionSchema>;
  if (i.condition !== undefined) v.condition = i.condition;
  if (i.flow !== undefined) v.flow = i.flow;
  if (i.target !== undefined) v.target = hex(i.target);
  if (i.targetMode !== undefined) v.targetMode = i.targetMode;
  if (i.pcRelative !== undefined)
    v.pcRelative = { kind: i.pcRelative.kind, address: hex(i.pcRelative.address) };
  if (i.readsPc !== undefined) v.readsPc = i.readsPc;
  if (i.writesPc !== undefined) v.writesPc = i.writesPc;
  return v;
}

/** The `source` of a result: where decoding starts (romOffset of the start byte; null when derived). */
export function sourceView(processor: Processor, src: ResolvedSource): z.input<typeof sourceSchema> {
  const offset = src.address - src.span.start;
  return {
    processor,
    component: src.span.component,
    overlayId: src.span.overlayId,
    mode: src.mode,
    start: hex(src.address),
    romOffset: src.romOffset === null ? null : hex(src.romOffset + offset),
    derived: src.derived,
  };
}
