// nds_assemble: ARM or Thumb assembly to bytes at a runtime address, with armips in a bounded worker
// (src/asm/), decoded back by our own disassembler; nothing is built or written.
import { z } from 'zod/v4';
import { refuseStorageAddress } from '../../analysis/run-address.js';
import { decodeWindow } from '../../arm/decoder.js';
import { ARM_MODES } from '../../arm/types.js';
import { ASSEMBLE_TIME, assemble } from '../../asm/armips.js';
import { ASM_LABEL, ASM_LIMITS, identifiers } from '../../asm/source.js';
import { toArmipsSyntax } from '../../asm/ual.js';
import { formatAddress, nameOrAddressArg } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { startupCopies } from '../shared/copied.js';
import { instructionSchema, instructionView } from '../shared/instructions.js';
import { romArgNames, romNames } from '../shared/names.js';
import { workspacePath } from '../shared/paths.js';
import { processorArg, withToolRom } from '../shared/rom.js';

export const ndsAssemble = defineTool({
  name: 'nds_assemble',
  title: 'Assemble ARM or Thumb code',
  profiles: ['build'],
  description: {
    purpose:
      'Assembles ARM/Thumb at a runtime address; returns the bytes and their disassembly. Takes lines as nds_disassemble_range prints them (UAL: movs, ldrbeq, ldm r0!, svc #1) or armips syntax.',
    useWhen: 'before a patch: the bytes for nds_mutation_draft; branches and names resolve at the address.',
    behaviour:
      'read-only; isolated (in-memory files, own thread); directives that read or write files refused; rom: its stored names become labels, and an address where code the start-up copies elsewhere (ITCM) is only stored is refused, naming where it runs.',
    limits: `${ASM_LIMITS.sourceChars.max} characters, ${ASM_LIMITS.outputBytes.max} bytes out, ${ASSEMBLE_TIME.default / 1000} s, ${ASM_LIMITS.labels.max} names.`,
  },
  input: z.object({
    processor: processorArg,
    mode: z.enum(ARM_MODES),
    address: nameOrAddressArg('Runtime address of the first byte'),
    source: z
      .string()
      .min(1)
      .max(ASM_LIMITS.sourceChars.max)
      .describe('UAL as the disassembly prints it, or armips syntax; one statement a line.'),
    rom: workspacePath(
      z.string().min(1).max(1024).optional().describe('Workspace-relative .nds path whose names to use.'),
      'file',
    ),
  }),
  output: z.object({
    address: z.string(),
    size: z.number().int(),
    hex: z.string(),
    instructions: z.array(instructionSchema),
    labels: z.array(z.string()).describe('Stored names the source used'),
    messages: z.array(z.string()),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: {
    ...ASM_LIMITS,
    millis: { default: ASSEMBLE_TIME.default, max: ASSEMBLE_TIME.max, unit: 'milliseconds of assembly' },
  },
  names: romArgNames,
  async handler(args, ctx) {
    // The disassembly's syntax (UAL) rewritten into armips' own; armips' own passes unchanged.
    const armips = toArmipsSyntax(args.source, { mode: args.mode, processor: args.processor });
    const labels = new Map<string, number>();
    if (args.rom !== undefined) {
      const wanted = identifiers(armips.source);
      await withToolRom(
        ctx,
        args.rom,
        async (rom, store) => {
          // Bytes the start-up copies elsewhere never run where they are stored: refused there.
          refuseStorageAddress(await startupCopies(ctx, store, rom, args.processor), args.address, 'address');
          const names = await romNames(ctx, rom);
          for (const s of names.symbols) {
            if (labels.size >= ASM_LIMITS.labels.max) break;
            if (
              s.processor === args.processor &&
              s.overlayId === null &&
              wanted.has(s.name) &&
              ASM_LABEL.test(s.name)
            )
              labels.set(s.name, s.address);
          }
        },
        null,
      );
    }
    const r = await assemble({
      source: armips.source,
      processor: args.processor,
      mode: args.mode,
      address: args.address,
      labels,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      memory: ctx.services.memory,
    });
    const decoded = await decodeWindow(r.bytes, args.address, args.mode, args.processor, r.bytes.length);
    return {
      structured: {
        address: formatAddress(args.address),
        size: r.bytes.length,
        hex: Buffer.from(r.bytes).toString('hex'),
        instructions: decoded.instructions.map(instructionView),
        labels: [...labels.keys()],
        messages: [...armips.notes, ...r.messages],
      },
      text: `${r.bytes.length} bytes at ${formatAddress(args.address)} (${args.processor} ${args.mode})${decoded.stop ? `; decoding stopped at ${formatAddress(decoded.stop.address)} (${decoded.stop.reason}): data or an instruction this processor lacks` : ''}`,
    };
  },
});
