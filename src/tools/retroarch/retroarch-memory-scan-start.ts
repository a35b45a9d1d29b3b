// retroarch_memory_scan_start: snapshots a region of the core's memory map or achievements address
// space as the first step of a memory scan (every size-aligned address a candidate).
import { z } from 'zod/v4';
import { addressArg } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { SCAN_LIMITS } from '../../scan/memory-scan.js';
import { scanLimits, scanOutput, scanView, signedInput, sizeInput } from '../shared/memory-scan.js';
import { readRegion, retroarchOwner, retroarchScans } from './scan-common.js';
import { PROFILES, retroarch, TIMEOUT_LIMIT } from './shared.js';

export const spaceInput = z
  .enum(['memory', 'ram'])
  .default('memory')
  .describe(
    '"memory": the core\'s system memory map (as retroarch_read_memory; e.g. GBA EWRAM 0x02000000); "ram": the achievements address space (as retroarch_read_ram; e.g. NES $0000-$07FF). Default "memory".',
  );

export const retroarchMemoryScanStart = defineTool({
  name: 'retroarch_memory_scan_start',
  title: 'RetroArch: start a memory scan',
  profiles: PROFILES,
  description: {
    purpose:
      'Starts a "cheat search": snapshots a memory region so that retroarch_memory_scan_narrow can keep the addresses whose value changes like a game value.',
    useWhen:
      'finding where a game keeps a counter, timer, score or health: start, advance frames or play, narrow, repeat.',
    behaviour:
      'every size-aligned address is a candidate; the region must be readable whole; while running, values may span frames (pause for exact steps); scans belong to the loaded content; beyond the kept maximum the oldest is dropped.',
    limits: `pages up to ${SCAN_LIMITS.page.max} candidates; ${SCAN_LIMITS.scans.max} scans kept; RETROARCH_TIMEOUT_MS per query.`,
  },
  input: z.object({
    space: spaceInput,
    address: addressArg('Region start'),
    length: z
      .number()
      .int()
      .min(SCAN_LIMITS.regionBytes.min)
      .max(SCAN_LIMITS.regionBytes.max)
      .describe(`Region length in bytes: ${SCAN_LIMITS.regionBytes.min}..${SCAN_LIMITS.regionBytes.max}.`),
    size: sizeInput,
    signed: signedInput,
  }),
  output: z.object({ ...scanOutput, dropped: z.array(z.string()) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: { ...scanLimits, timeoutMs: TIMEOUT_LIMIT },
  async handler(args, ctx) {
    const owner = await retroarchOwner(retroarch(ctx), ctx.signal);
    const bytes = await readRegion(ctx, args.space, args.address, args.length);
    const { scan, dropped } = retroarchScans(ctx).add(
      owner,
      { base: args.address, length: args.length, size: args.size, signed: args.signed, space: args.space },
      bytes,
    );
    return {
      structured: { ...scanView(scan), dropped },
      text: `${scan.id}: ${scan.candidateCount} candidates in ${args.length} bytes (${args.space})`,
    };
  },
});
