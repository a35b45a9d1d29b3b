// desmume_disassemble_live: decodes the halted CPU's memory (code that exists only in RAM, patched or
// relocated code, the bytes around the PC) with the same decoder and instruction shape as
// nds_disassemble_range, and marks each instruction whose live bytes differ from the ROM's canonical
// bytes at that address (where the static model has code there).
import { z } from 'zod/v4';
import { resolveStart } from '../../analysis/code-source.js';
import { LINEAR_LIMITS } from '../../analysis/linear-window.js';
import { decodeWindow } from '../../arm/decoder.js';
import { ReMcpError } from '../../core/errors.js';
import { addressArg, formatAddress } from '../../core/vocabulary.js';
import { debugSession } from '../../debug/service.js';
import { defineTool, type ToolContext } from '../../mcp/tool.js';
import { getRomStore } from '../../nds/rom-store.js';
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
import { cpuOf, generationNumber, liveNames, processorInput, RUNTIME } from './common.js';

interface StaticBytes {
  available: boolean;
  reason: string | null;
  source: z.input<typeof sourceSchema> | null;
  bytes: Uint8Array | null;
}

export const desmumeDisassembleLive = defineTool({
  name: 'desmume_disassemble_live',
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
    address: addressArg('Default: the PC').optional(),
    mode: z.enum(['arm', 'thumb', 'auto']).default('auto'),
    ...linearWindowArgs,
  }),
  output: z.object({
    processor: z.enum(['arm9', 'arm7']),
    generation: z.number().int(),
    pc: z.string(),
    start: z.string(),
    mode: z.enum(['arm', 'thumb']),
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
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const gen = debugSession(ctx.services).requireGeneration();
      const cpu = cpuOf(ctx.services, args.processor);
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
      const names = await liveNames(ctx, args.processor);
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
          generation: generationNumber(ctx.services),
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
  processor: 'arm9' | 'arm7',
  start: number,
  mode: 'arm' | 'thumb',
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
