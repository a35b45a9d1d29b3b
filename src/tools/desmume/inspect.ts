// Read-only views of a halted CPU: the raw register packet, bounded memory, the atomic stop context.

import { z } from 'zod/v4';
import { addressArg, addressOut, formatAddress } from '../../core/vocabulary.js';
import { captureContext, registerView } from '../../debug/control.js';
import { LIMITS } from '../../debug/policy.js';
import { defineTool } from '../../mcp/tool.js';
import {
  contextOutput,
  cpuOf,
  debugSession,
  generationNumber,
  processorInput,
  RUNTIME,
  regionsInput,
  registersOutput,
  stopOutput,
  stopView,
} from './common.js';

export const desmumeReadRegisterPacket = defineTool({
  name: 'desmume_read_register_packet',
  title: 'Read the register packet',
  profiles: RUNTIME,
  description: {
    purpose:
      'Reads the halted CPU’s raw GDB register packet and decodes r0..r12, sp, lr, pc and cpsr with the ARM/Thumb state.',
    useWhen: 'inspecting registers at a stop; desmume_capture_stop_context adds memory windows in one go.',
    behaviour: 'read-only; refuses with target-running while the target runs (wait or pause first).',
    limits: 'one register-read packet (168 bytes).',
    returns: 'raw (336 hex digits: r0..r15, 8 FPA registers, fps, cpsr) and decoded registers.',
  },
  input: z.object({ processor: processorInput }),
  output: z.object({
    processor: z.enum(['arm9', 'arm7']),
    generation: z.number().int(),
    raw: z.string(),
    registers: registersOutput,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const { raw, decoded } = await cpuOf(ctx.services, args.processor).readRegisters();
      const registers = registerView(decoded);
      return {
        structured: { processor: args.processor, generation: generationNumber(ctx.services), raw, registers },
        text: `${args.processor}: pc ${registers.pc} (${registers.mode}), sp ${registers.sp}, lr ${registers.lr}, cpsr ${registers.cpsr}`,
      };
    });
  },
});

export const desmumeReadMemory = defineTool({
  name: 'desmume_read_memory',
  title: 'Read emulator memory',
  profiles: RUNTIME,
  description: {
    purpose: 'Reads bytes of the halted CPU’s address space through its GDB stub.',
    useWhen:
      'inspecting RAM or code at a stop; for several windows at once use desmume_capture_stop_context.',
    behaviour:
      'read-only; reads in stub-safe chunks of 512 bytes; unmapped memory reads as zeros (the stub reports no faults). Refuses while the target runs.',
    limits: `length ${LIMITS.memoryRead.min}..${LIMITS.memoryRead.max} bytes; the range must stay inside the 32-bit space.`,
    returns: 'address, length and the bytes as lowercase hex.',
  },
  input: z.object({
    processor: processorInput,
    address: addressArg('Start address'),
    length: z
      .number()
      .int()
      .min(1)
      .describe(`Bytes to read: ${LIMITS.memoryRead.min}..${LIMITS.memoryRead.max}.`),
  }),
  output: z.object({
    processor: z.enum(['arm9', 'arm7']),
    generation: z.number().int(),
    address: addressOut,
    length: z.number().int(),
    hex: z.string(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { length: { min: LIMITS.memoryRead.min, max: LIMITS.memoryRead.max, unit: 'bytes' } },
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const bytes = await cpuOf(ctx.services, args.processor).readMemory(args.address, args.length);
      const hex = Buffer.from(bytes).toString('hex');
      return {
        structured: {
          processor: args.processor,
          generation: generationNumber(ctx.services),
          address: formatAddress(args.address),
          length: bytes.length,
          hex,
        },
        text: `${args.processor} ${formatAddress(args.address)}: ${bytes.length} bytes${bytes.length <= 16 ? ` ${hex}` : ''}`,
      };
    });
  },
});

export const desmumeCaptureStopContext = defineTool({
  name: 'desmume_capture_stop_context',
  title: 'Capture the stop context',
  profiles: RUNTIME,
  description: {
    purpose:
      'Captures, from one stop, the decoded registers, 64 bytes around PC, up to 64 bytes from SP and labeled memory regions.',
    useWhen: 'recording evidence at a breakpoint; desmume_continue captures this by default.',
    behaviour:
      'read-only; windows are clamped at the address-space edges (they shrink, never wrap). Refuses while the target runs.',
    limits: `at most ${LIMITS.regions.max} regions of ${LIMITS.regionBytes.min}..${LIMITS.regionBytes.max} bytes; refused beforehand when the result would exceed RE_MCP_MAX_OUTPUT_BYTES.`,
    returns: 'the last stop, registers, pcWindow, spWindow and regions (hex, with clamping flags).',
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
          stop: stopView(cpu.lastStop),
          context,
        },
        text: `${args.processor} context at pc ${context.registers.pc} (${context.registers.mode}): ${2 + context.regions.length} windows`,
      };
    });
  },
});
