// desmume_memory_scan_start: snapshots a main-RAM region of the halted emulator as the first step of a
// memory scan (every size-aligned address a candidate).
import { z } from 'zod/v4';
import { addressArg } from '../../core/vocabulary.js';
import { debugSession, desmumeScans } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import { SCAN_LIMITS } from '../../scan/memory-scan.js';
import {
  readWhole,
  scanLimits,
  scanOutput,
  scanView,
  signedInput,
  sizeInput,
} from '../shared/memory-scan.js';
import { cpuOf, processorInput, RUNTIME } from './common.js';
import { checkMainRam, desmumeOwner, MAIN_RAM, stubReader } from './scan-common.js';

export const desmumeMemoryScanStart = defineTool({
  name: 'desmume_memory_scan_start',
  title: 'Start a memory scan (DeSmuME)',
  profiles: RUNTIME,
  description: {
    purpose: 'Starts a "cheat search": snapshots DS main RAM for desmume_memory_scan_narrow.',
    useWhen: "finding a game's counter, score or health: start, let it change, narrow, repeat.",
    behaviour: 'CPU halted; each size-aligned address a candidate; scans die with the generation.',
    limits: `main RAM 0x02000000..0x02400000; pages of ${SCAN_LIMITS.page.max}; ${SCAN_LIMITS.scans.max} scans kept, oldest dropped.`,
  },
  input: z.object({
    processor: processorInput,
    address: addressArg().default(MAIN_RAM.start),
    length: z
      .number()
      .int()
      .min(SCAN_LIMITS.regionBytes.min)
      .max(SCAN_LIMITS.regionBytes.max)
      .default(MAIN_RAM.end - MAIN_RAM.start),
    size: sizeInput,
    signed: signedInput,
  }),
  output: z.object({ generation: z.number().int(), ...scanOutput, dropped: z.array(z.string()) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: scanLimits,
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      checkMainRam(args.address, args.length);
      const cpu = cpuOf(ctx.services, args.processor);
      cpu.requireStopped('scan memory');
      const owner = desmumeOwner(ctx.services);
      const bytes = await readWhole(
        stubReader(cpu),
        args.address,
        args.length,
        64 * 1024,
        ctx.progress,
        ctx.signal,
      );
      const { scan, dropped } = desmumeScans(ctx.services).add(
        owner,
        {
          base: args.address,
          length: args.length,
          size: args.size,
          signed: args.signed,
          processor: args.processor,
        },
        bytes,
      );
      return {
        structured: { generation: cpu.generation, ...scanView(scan), dropped },
        text: `${scan.id}: ${scan.candidateCount} candidates in ${args.length} bytes of main RAM`,
      };
    });
  },
});
