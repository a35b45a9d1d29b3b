// nds_analyze_control_flow: bounded direct-control-flow graph from one start (src/arm/cfg.ts).

import { z } from 'zod/v4';
import { OPERATION_IMAGE_BYTES, resolveStart, spanLookup } from '../../analysis/code-source.js';
import { analyzeControlFlow, BLOCK_ENDS } from '../../arm/cfg.js';
import { ARM_MODES } from '../../arm/types.js';
import { addressOut, formatAddress as hex, limitArg } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { CODE_IMAGE_LIMITS } from '../../roms/decoded-images.js';
import {
  CFG_BOUNDS,
  cfgCallSchema,
  cfgEdgeSchema,
  cfgStatusSchema,
  cfgTruncationSchema,
} from '../shared/control-flow.js';
import { copiedBlocks } from '../shared/copied.js';
import {
  decodeStopSchema,
  decodeStopView,
  instructionSchema,
  instructionView,
  sourceSchema,
  sourceView,
} from '../shared/instructions.js';
import { nameField, romArgNames, romNames } from '../shared/names.js';
import { READ_ONLY, withToolRom } from '../shared/rom.js';
import { CODE_IMAGE_LIMIT_TEXT, provenModeOf, startArgs } from './start.js';

const CFG_LIMITS = {
  maxBlocks: { ...CFG_BOUNDS.blocks, unit: 'basic blocks' },
  maxInstructions: { ...CFG_BOUNDS.instructions, unit: 'instructions' },
  maxBytes: { ...CFG_BOUNDS.bytes, unit: 'decoded source bytes' },
  maxEdges: { ...CFG_BOUNDS.edges, unit: 'traversal edges' },
} as const;
const CFG_TOOL_LIMITS = { ...CFG_LIMITS, ...CODE_IMAGE_LIMITS };

export const ndsAnalyzeControlFlow = defineTool({
  name: 'nds_analyze_control_flow',
  title: 'Control-flow graph of ARM/Thumb code',
  profiles: ['static'],
  description: {
    purpose: 'Basic blocks and direct edges from one start.',
    useWhen: 'following branches and loops; nds_disassemble_range for a linear listing.',
    behaviour:
      'direct branches, not calls; indirect jumps and returns end in a null edge; crosses components only when one static source holds the target.',
    limits: `${CODE_IMAGE_LIMIT_TEXT}, ${OPERATION_IMAGE_BYTES / (1024 * 1024)} MiB per call.`,
  },
  input: z.object({
    ...startArgs,
    maxBlocks: limitArg(CFG_LIMITS.maxBlocks),
    maxInstructions: limitArg(CFG_LIMITS.maxInstructions),
    maxBytes: limitArg(CFG_LIMITS.maxBytes),
    maxEdges: limitArg(CFG_LIMITS.maxEdges),
    includeInstructions: z.boolean().default(false).describe('Listed per block.'),
  }),
  output: z.object({
    source: sourceSchema,
    status: cfgStatusSchema,
    truncation: cfgTruncationSchema,
    totals: z.object({
      blocks: z.number().int(),
      edges: z.number().int(),
      instructions: z.number().int(),
      bytes: z.number().int(),
    }),
    blocks: z.array(
      z.object({
        id: z.number().int(),
        component: z.string(),
        overlayId: z.number().int().nullable(),
        mode: z.enum(ARM_MODES),
        address: addressOut,
        end: addressOut,
        terminator: z.enum(BLOCK_ENDS),
        stop: decodeStopSchema.optional(),
        calls: z.array(cfgCallSchema),
        instructions: z.array(instructionSchema).optional(),
      }),
    ),
    edges: z.array(cfgEdgeSchema),
  }),
  annotations: READ_ONLY,
  limits: CFG_TOOL_LIMITS,
  names: romArgNames,
  async handler(args, ctx) {
    return withToolRom(ctx, args.rom, async (rom, store) => {
      const copied = await copiedBlocks(ctx, store, rom, args.processor);
      const src = await resolveStart(
        store,
        rom,
        {
          ...args,
          autoloads: true,
          copied,
          provenMode: provenModeOf(ctx, rom.identity.sha256, args.processor),
        },
        ctx.signal,
      );
      const r = await analyzeControlFlow({
        processor: args.processor,
        span: src.span,
        address: src.address,
        mode: src.mode,
        limits: {
          blocks: args.maxBlocks,
          instructions: args.maxInstructions,
          bytes: args.maxBytes,
          edges: args.maxEdges,
        },
        lookup: spanLookup(store, rom, args.processor, ctx.signal, { autoloads: true, copied }),
        signal: ctx.signal,
      });
      const names = await romNames(ctx, rom);
      // The source span names the autoload block; blocks keep their published shape.
      const blocks = r.blocks.map(({ instructions, address, end, stop, calls, autoloadIndex: _, ...b }) => ({
        ...b,
        address: hex(address),
        end: hex(end),
        ...(stop ? { stop: decodeStopView(stop) } : {}),
        calls: calls.map(({ at, target, ...c }) => ({
          ...c,
          at: hex(at),
          ...(target === undefined ? {} : { target: hex(target) }),
          ...nameField('targetName', names, args.processor, target, src.span.overlayId),
        })),
        ...(args.includeInstructions ? { instructions: instructions.map(instructionView) } : {}),
      }));
      return {
        structured: {
          source: sourceView(args.processor, src),
          status: r.status,
          truncation: r.truncation,
          totals: { blocks: r.blocks.length, edges: r.edges.length, ...r.totals },
          blocks,
          edges: r.edges.map((e) => ({ ...e, target: hex(e.target) })),
        },
        text: `${args.processor} ${src.mode} ${hex(src.address)}: ${r.blocks.length} blocks, ${r.edges.length} edges, ${r.totals.instructions} instructions; ${r.status}${r.truncation.length ? ` (${r.truncation.join(', ')})` : ''}`,
      };
    });
  },
});
