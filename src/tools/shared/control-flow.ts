// Output shapes of a control-flow graph (src/arm/cfg.ts) shared by nds_analyze_control_flow and the
// CFG part of nds_analyze_function, and the one table of a function CFG's bounds every tool's limits
// come from.
import { z } from 'zod/v4';
import { STANDARD_FUNCTION_CFG } from '../../analysis/functions/discover.js';
import { CFG_EDGE_KINDS, CFG_TRUNCATIONS } from '../../arm/cfg.js';
import { ARM_MODES } from '../../arm/types.js';
import { addressOut, BOUNDED_STATUSES } from '../../core/vocabulary.js';

/**
 * One function CFG's bounds: the standard defaults (analysis/functions/discover.ts) and the tools'
 * maxima. Each tool's limit table takes these with its own argument names and units.
 */
export const CFG_BOUNDS = {
  blocks: { default: STANDARD_FUNCTION_CFG.blocks, max: 256, min: 1 },
  instructions: { default: STANDARD_FUNCTION_CFG.instructions, max: 4096, min: 1 },
  bytes: { default: STANDARD_FUNCTION_CFG.bytes, max: 16384, min: 2 },
  edges: { default: STANDARD_FUNCTION_CFG.edges, max: 1024, min: 1 },
} as const;

export const cfgStatusSchema = z.enum(BOUNDED_STATUSES);

export const cfgTruncationSchema = z.array(z.enum(CFG_TRUNCATIONS));

/** A call made inside a block: annotated, not followed. */
export const cfgCallSchema = z.object({
  at: addressOut,
  target: addressOut.optional(),
  targetName: z.string().optional().describe('The stored name of the target (nds_symbols)'),
  targetMode: z.enum(ARM_MODES).optional(),
  condition: z.string().optional(),
});

/** An edge between blocks; `to` is null for an unresolved (indirect) target. */
export const cfgEdgeSchema = z.object({
  from: z.number().int(),
  to: z.number().int().nullable(),
  kind: z.enum(CFG_EDGE_KINDS),
  target: addressOut,
  targetMode: z.enum(ARM_MODES),
  unresolved: z.string().optional(),
});
