// Inspecting the halted CPU: its registers (<emu>_read_register_packet), memory
// (<emu>_read_memory), stop context (<emu>_capture_stop_context, saved as an evidence file by
// <emu>_capture_runtime_evidence) and live code (<emu>_disassemble_live).

import { createHash } from 'node:crypto';
import { z } from 'zod/v4';
import { resolveStart, START_MODES } from '../../analysis/code-source.js';
import { LINEAR_LIMITS } from '../../analysis/linear-window.js';
import { decodeWindow } from '../../arm/decoder.js';
import { ARM_MODES, type ArmMode } from '../../arm/types.js';
import { ReMcpError } from '../../core/errors.js';
import {
  addressOut,
  formatAddress,
  nameOrAddressArg,
  PROCESSORS,
  type Processor,
} from '../../core/vocabulary.js';
import type { Emulator } from '../../debug/backend.js';
import { captureContext, registerView } from '../../debug/control.js';
import { LIMITS } from '../../debug/policy.js';
import { debugSession } from '../../debug/service.js';
import type { ToolContext } from '../../mcp/tool.js';
import { getRomStore } from '../../roms/rom-store.js';
import { copiedBlocks } from '../shared/copied.js';
import {
  decodeStopSchema,
  decodeStopView,
  instructionSchema,
  instructionView,
  linearWindowArgs,
  sourceSchema,
  sourceView,
} from '../shared/instructions.js';
import { nameField } from '../shared/names.js';
import { emulatorTool, tool } from './per-emulator.js';
import {
  contextOutput,
  cpuOf,
  generationNumber,
  liveArgNames,
  liveNames,
  processorInput,
  RUNTIME,
  regionsInput,
  registersOutput,
  stopOutput,
  stopView,
} from './session-views.js';

/** The regions a capture reads, as both capture tools publish them. */
const REGION_LIMITS = {
  regions: { max: LIMITS.regions.max, unit: 'regions' },
  regionLength: { min: LIMITS.regionBytes.min, max: LIMITS.regionBytes.max, unit: 'bytes' },
} as const;

// <emu>_read_register_packet: Read the register packet.
export const emuReadRegisterPacket = emulatorTool({
  verb: 'read_register_packet',
  title: 'Read the register packet',
  profiles: RUNTIME,
  description: {
    purpose: "Reads and decodes the halted CPU's GDB register packet: r0..r12, sp, lr, pc, cpsr, ARM/Thumb.",
    useWhen: (e) => `registers at a stop; ${tool(e, 'capture_stop_context')} adds memory.`,
    behaviour: 'refused with target-running while running.',
    limits: 'one 168-byte packet.',
    returns: 'raw: 336 hex digits (r0..r15, 8 FPA registers, fps, cpsr).',
  },
  input: z.object({ processor: processorInput }),
  output: z.object({
    processor: z.enum(PROCESSORS),
    generation: z.number().int(),
    raw: z.string(),
    registers: registersOutput,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const { raw, decoded } = await cpuOf(ctx.services, emu, args.processor).readRegisters();
      const registers = registerView(decoded);
      return {
        structured: {
          processor: args.processor,
          generation: generationNumber(ctx.services, emu),
          raw,
          registers,
        },
        text: `${args.processor}: pc ${registers.pc} (${registers.mode}), sp ${registers.sp}, lr ${registers.lr}, cpsr ${registers.cpsr}`,
      };
    });
  },
});

// <emu>_read_memory: Read emulator memory.
export const emuReadMemory = emulatorTool({
  verb: 'read_memory',
  title: 'Read emulator memory',
  profiles: RUNTIME,
  description: {
    purpose: "Reads the halted CPU's memory through its GDB stub.",
    useWhen: (e) => `RAM or code at a stop; ${tool(e, 'capture_stop_context')} for several windows.`,
    behaviour: 'unmapped memory reads as zeros.',
    limits: 'inside the 32-bit space.',
    returns: 'bytes as lowercase hex.',
  },
  input: z.object({
    processor: processorInput,
    address: nameOrAddressArg(),
    length: z.number().int().min(1).describe(`At most ${LIMITS.memoryRead.max} bytes.`),
  }),
  output: z.object({
    processor: z.enum(PROCESSORS),
    generation: z.number().int(),
    address: addressOut,
    name: z.string().optional().describe("The symbol store's name at the address (user-asserted)"),
    length: z.number().int(),
    hex: z.string(),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { length: { min: LIMITS.memoryRead.min, max: LIMITS.memoryRead.max, unit: 'bytes' } },
  names: liveArgNames,
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const bytes = await cpuOf(ctx.services, emu, args.processor).readMemory(args.address, args.length);
      const hex = Buffer.from(bytes).toString('hex');
      const names = await liveNames(ctx, emu, args.processor);
      return {
        structured: {
          processor: args.processor,
          generation: generationNumber(ctx.services, emu),
          address: formatAddress(args.address),
          ...(names ? nameField('name', names.table, args.processor, args.address, null) : {}),
          length: bytes.length,
          hex,
        },
        text: `${args.processor} ${formatAddress(args.address)}: ${bytes.length} bytes${bytes.length <= 16 ? ` ${hex}` : ''}`,
      };
    });
  },
});

// <emu>_capture_stop_context: Capture the stop context.
export const emuCaptureStopContext = emulatorTool({
  verb: 'capture_stop_context',
  title: 'Capture the stop context',
  profiles: RUNTIME,
  description: {
    purpose: 'Captures at a stop the registers, 64 bytes around PC, up to 64 from SP and labeled regions.',
    useWhen: (e) => `evidence at a breakpoint; ${tool(e, 'continue')} captures this by default.`,
    behaviour: 'windows shrink at the 32-bit edges, never wrap.',
    limits: `${LIMITS.regions.max} regions of ${LIMITS.regionBytes.min}..${LIMITS.regionBytes.max} bytes; refused up front past RE_MCP_MAX_OUTPUT_BYTES.`,
  },
  input: z.object({ processor: processorInput, regions: regionsInput }),
  output: z.object({
    processor: z.enum(PROCESSORS),
    generation: z.number().int(),
    stop: stopOutput.nullable(),
    context: contextOutput,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: REGION_LIMITS,
  names: liveArgNames,
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const cpu = cpuOf(ctx.services, emu, args.processor);
      const context = await captureContext(cpu, args.regions, ctx.services.config.maxOutputBytes);
      return {
        structured: {
          processor: args.processor,
          generation: generationNumber(ctx.services, emu),
          stop: stopView(cpu.lastStop, await liveNames(ctx, emu, args.processor)),
          context,
        },
        text: `${args.processor} context at pc ${context.registers.pc} (${context.registers.mode}): ${2 + context.regions.length} windows`,
      };
    });
  },
});

// <emu>_capture_runtime_evidence: the stop context (registers, windows at PC and SP, labelled
// regions) written as an evidence file under analysis/generated/, with the launch's identity.
/** `re-mcp.<emulator id>-runtime-evidence/1`. */
const format = (emu: Emulator) => `re-mcp.${emu.id}-runtime-evidence/1`;
/** Evidence files are named by generation, time, server process and sequence: never overwritten. */
let sequence = 0;

export const emuCaptureRuntimeEvidence = emulatorTool({
  verb: 'capture_runtime_evidence',
  title: (e) => `Save runtime evidence (${e.names.emulator})`,
  profiles: RUNTIME,
  description: {
    purpose: 'Saves the stop context (registers, PC/SP windows, labelled regions) as a JSON evidence file.',
    useWhen: (e) =>
      `keeping what a stop showed for later; ${tool(e, 'capture_stop_context')} only returns it.`,
    behaviour: (e) =>
      `CPU halted; written atomically under analysis/generated/${e.id}/<sha16>/evidence/ with the ROM SHA-256, launcher SHA-256 and generation; observed bytes only, no interpretation.`,
    limits: `${LIMITS.regions.max} regions of ${LIMITS.regionBytes.min}..${LIMITS.regionBytes.max} bytes; refused up front past RE_MCP_MAX_OUTPUT_BYTES.`,
  },
  input: z.object({
    processor: processorInput,
    regions: regionsInput,
    label: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,48}$/, '1..48 letters, digits, _ or -')
      .optional()
      .describe('Part of the file name.'),
  }),
  output: z.object({
    path: z.string(),
    sha256: z.string(),
    bytes: z.number().int(),
    generation: z.number().int(),
    processor: z.enum(PROCESSORS),
    pc: z.string(),
    regions: z.number().int(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: REGION_LIMITS,
  names: liveArgNames,
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const session = debugSession(ctx.services, emu);
      const gen = session.generation!;
      const cpu = cpuOf(ctx.services, emu, args.processor);
      cpu.requireStopped('capture runtime evidence');
      const generation = generationNumber(ctx.services, emu);
      const context = await captureContext(cpu, args.regions, ctx.services.config.maxOutputBytes);
      const capturedAt = new Date().toISOString();
      const doc = {
        format: format(emu),
        capturedAt,
        authority: 'observed-runtime',
        rom: { path: gen.rom.path, sha256: gen.rom.identity.sha256, size: gen.rom.identity.size },
        launcherSha256: gen.launcherSha256,
        generation,
        processor: args.processor,
        stop: stopView(cpu.lastStop),
        context,
      };
      const text = `${JSON.stringify(doc, null, 1)}\n`;
      const sha16 = gen.rom.identity.sha256.slice(0, 16);
      const stamp = capturedAt.replace(/[-:.]/g, '');
      const name = `g${generation}-${stamp}-p${process.pid}-${++sequence}-${args.processor}${args.label ? `-${args.label}` : ''}.json`;
      const dir = await ctx.services.workspace.outputDir('analysis/generated', [emu.id, sha16, 'evidence']);
      try {
        await dir.writeAtomic(name, text);
        await dir.verifyInPlace();
        const path = `${dir.relative}/${name}`;
        return {
          structured: {
            path,
            sha256: createHash('sha256').update(text).digest('hex'),
            bytes: Buffer.byteLength(text),
            generation,
            processor: args.processor,
            pc: context.registers.pc,
            regions: context.regions.length,
          },
          text: `saved ${args.processor} evidence at pc ${context.registers.pc} (generation ${generation}) to ${path}`,
        };
      } finally {
        await dir.close();
      }
    });
  },
});

// <emu>_disassemble_live: decodes the halted CPU's memory (code that exists only in RAM, patched or
// relocated code, the bytes around the PC) with the same decoder and instruction shape as
// nds_disassemble_range, and marks each instruction whose live bytes differ from the ROM's canonical
// bytes at that address (where the static model has code there).
interface StaticBytes {
  available: boolean;
  reason: string | null;
  source: z.input<typeof sourceSchema> | null;
  bytes: Uint8Array | null;
}

export const emuDisassembleLive = emulatorTool({
  verb: 'disassemble_live',
  title: 'Disassemble live memory',
  profiles: RUNTIME,
  description: {
    purpose: "Decodes instructions from the halted CPU's memory, marking bytes that differ from the ROM.",
    useWhen: 'code only in RAM (overlays, ITCM, patches); nds_disassemble_range reads the ROM.',
    behaviour: 'mode auto only at the PC; differsFromStatic null where the ROM has no code (static.reason).',
    limits: 'as the max* arguments say.',
  },
  input: z.object({
    processor: processorInput,
    address: nameOrAddressArg('Default: the PC').optional(),
    mode: z.enum(START_MODES).default('auto'),
    ...linearWindowArgs,
  }),
  output: z.object({
    processor: z.enum(PROCESSORS),
    generation: z.number().int(),
    pc: z.string(),
    start: z.string(),
    mode: z.enum(ARM_MODES),
    status: z.enum(['complete', 'decode-stopped']),
    stop: decodeStopSchema.nullable(),
    instructions: z.array(
      instructionSchema.extend({
        differsFromStatic: z.boolean().nullable(),
        staticBytes: z.string().nullable(),
      }),
    ),
    differing: z.number().int(),
    static: z.object({
      available: z.boolean(),
      reason: z.string().nullable(),
      source: sourceSchema.nullable(),
    }),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { maxInstructions: LINEAR_LIMITS.instructions, maxBytes: LINEAR_LIMITS.bytes },
  names: liveArgNames,
  async handler(args, ctx, emu) {
    return debugSession(ctx.services, emu).exclusive(async () => {
      const gen = debugSession(ctx.services, emu).requireGeneration();
      const cpu = cpuOf(ctx.services, emu, args.processor);
      const { decoded } = await cpu.readRegisters();
      const pc = decoded.r[15]!;
      const start = args.address ?? pc;
      if (args.mode === 'auto' && start !== pc) {
        throw new ReMcpError(
          'invalid-argument',
          `mode "auto" is the CPU state and holds only at the PC (${formatAddress(pc)}); pass "arm" or "thumb" for ${formatAddress(start)}`,
        );
      }
      const mode = args.mode === 'auto' ? (decoded.thumb ? 'thumb' : 'arm') : args.mode;
      const length = Math.min(args.maxBytes, 0x1_0000_0000 - start);
      const live = await cpu.readMemory(start, length);
      const r = await decodeWindow(live, start, mode, args.processor, args.maxInstructions);
      const stat = await staticBytes(
        ctx,
        gen.rom.path,
        gen.rom.identity.sha256,
        args.processor,
        start,
        mode,
        length,
      );
      let differing = 0;
      const names = await liveNames(ctx, emu, args.processor);
      const instructions = r.instructions.map((ins) => {
        const at = ins.address - start;
        const covered = stat.bytes !== null && at + ins.size <= stat.bytes.length;
        const before = covered ? stat.bytes!.subarray(at, at + ins.size) : null;
        const differs =
          before === null ? null : Buffer.compare(before, live.subarray(at, at + ins.size)) !== 0;
        if (differs) differing++;
        return {
          ...instructionView(ins),
          ...(names ? nameField('targetName', names.table, names.processor, ins.target, null) : {}),
          differsFromStatic: differs,
          staticBytes: before ? Buffer.from(before).toString('hex') : null,
        };
      });
      return {
        structured: {
          processor: args.processor,
          generation: generationNumber(ctx.services, emu),
          pc: formatAddress(pc),
          start: formatAddress(start),
          mode,
          status:
            r.stop && r.stop.reason !== 'truncated-instruction'
              ? ('decode-stopped' as const)
              : ('complete' as const),
          stop: r.stop && decodeStopView(r.stop),
          instructions,
          differing,
          static: { available: stat.available, reason: stat.reason, source: stat.source },
        },
        text: `${args.processor} live ${mode} ${formatAddress(start)}: ${instructions.length} instructions, ${stat.available ? `${differing} differ from the ROM` : `no static comparison (${stat.reason})`}`,
      };
    });
  },
});

/** The launched ROM's canonical code bytes from `start`, or why there are none. */
async function staticBytes(
  ctx: ToolContext,
  romPath: string,
  romSha256: string,
  processor: Processor,
  start: number,
  mode: ArmMode,
  length: number,
): Promise<StaticBytes> {
  const store = getRomStore(ctx.services);
  try {
    return await store.withRom(
      romPath,
      async (rom) => {
        if (rom.identity.sha256 !== romSha256) {
          return {
            available: false,
            reason: 'the ROM file changed since the emulator loaded it',
            source: null,
            bytes: null,
          };
        }
        // ITCM/DTCM code is compared too: an autoload block's bytes as the ROM stores (or, for a
        // compressed ARM9, decodes) them are what the loader copied there at start-up.
        const src = await resolveStart(
          store,
          rom,
          {
            processor,
            address: start,
            mode,
            autoloads: true,
            copied: await copiedBlocks(ctx, store, rom, processor),
          },
          ctx.signal,
        );
        const offset = src.address - src.span.start;
        const bytes = src.span.bytes.slice(offset, offset + length);
        return { available: true, reason: null, source: sourceView(processor, src), bytes };
      },
      ctx.signal,
    );
  } catch (error) {
    if (error instanceof ReMcpError && error.code !== 'cancelled') {
      return { available: false, reason: `${error.code}: ${error.message}`, source: null, bytes: null };
    }
    throw error;
  }
}
