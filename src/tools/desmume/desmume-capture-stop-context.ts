// desmume_capture_stop_context: Capture the stop context.
import { z } from 'zod/v4';
import { captureContext } from '../../debug/control.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import {
  contextOutput,
  cpuOf,
  generationNumber,
  liveNames,
  processorInput,
  RUNTIME,
  regionsInput,
  stopOutput,
  stopView,
} from './common.js';

export const desmumeCaptureStopContext = defineTool({
  name: 'desmume_capture_stop_context',
  title: 'Capture the stop context',
  profiles: RUNTIME,
  description: {
    purpose: 'Captures at a stop the registers, 64 bytes around PC, up to 64 from SP and labeled regions.',
    useWhen: 'evidence at a breakpoint; desmume_continue captures this by default.',
    behaviour: 'windows shrink at the 32-bit edges, never wrap.',
    limits: `${LIMITS.regions.max} regions of ${LIMITS.regionBytes.min}..${LIMITS.regionBytes.max} bytes; refused up front past RE_MCP_MAX_OUTPUT_BYTES.`,
  },
  input: z.object({ processor: processorInput, regions: regionsInput }),
  output: z.object({
    processor: z.enum(['arm9', 'arm7']),
    generation: z.number().int(),
    stop: stopOutput.nullable(),
    context: contextOutput,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: {
    regions: { max: LIMITS.regions.max, unit: 'regions' },
    regionLength: { min: LIMITS.regionBytes.min, max: LIMITS.regionBytes.max, unit: 'bytes' },
  },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const cpu = cpuOf(ctx.services, args.processor);
      const context = await captureContext(cpu, args.regions, ctx.services.config.maxOutputBytes);
      return {
        structured: {
          processor: args.processor,
          generation: generationNumber(ctx.services),
          stop: stopView(cpu.lastStop, await liveNames(ctx, args.processor)),
          context,
        },
        text: `${args.processor} context at pc ${context.registers.pc} (${context.registers.mode}): ${2 + context.regions.length} windows`,
      };
    });
  },
});
