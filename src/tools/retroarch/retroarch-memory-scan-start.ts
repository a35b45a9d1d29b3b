// retroarch_memory_scan_start: snapshots a region of the core's memory map or achievements address
// space as the first step of a memory scan (every size-aligned address a candidate).
import { z } from 'zod/v4';
import { addressArg } from '../../core/vocabulary.js';
import { defineTool } from '../../mcp/tool.js';
import { MEMORY_SPACES } from '../../retroarch/codec.js';
import { retroarchScans } from '../../retroarch/service.js';
import { SCAN_LIMITS } from '../../scan/memory-scan.js';
import { scanLimits, scanOutput, scanView, signedInput, sizeInput } from '../shared/memory-scan.js';
import { readRegion, retroarchOwner } from './scan-common.js';
import { PROFILES, retroarch, TIMEOUT_LIMIT } from './shared.js';

export const spaceInput = z
  .enum(MEMORY_SPACES)
  .default('memory')
  .describe('memory: as retroarch_read_memory; ram: as retroarch_read_ram.');

export const retroarchMemoryScanStart = defineTool({
  name: 'retroarch_memory_scan_start',
  title: 'RetroArch: start a memory scan',
  profiles: PROFILES,
  description: {
    purpose: 'Starts a "cheat search": snapshots a memory region for retroarch_memory_scan_narrow.',
    useWhen: "finding a game's counter, score or health: start, play, narrow, repeat.",
    behaviour:
      'each size-aligned address a candidate; the region must read whole; running, values may span frames; scans die with the content.',
    limits: `pages of ${SCAN_LIMITS.page.max}; ${SCAN_LIMITS.scans.max} scans kept, oldest dropped; RETROARCH_TIMEOUT_MS.`,
  },
  input: z.object({
    space: spaceInput,
    address: addressArg(),
    length: z.number().int().min(SCAN_LIMITS.regionBytes.min).max(SCAN_LIMITS.regionBytes.max),
    size: sizeInput,
    signed: signedInput,
  }),
  output: z.object({ ...scanOutput, dropped: z.array(z.string()) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: { ...scanLimits, timeoutMs: TIMEOUT_LIMIT },
  async handler(args, ctx) {
    const owner = await retroarchOwner(retroarch(ctx), ctx.signal);
    const bytes = await readRegion(ctx, args.space, args.address, args.length);
    const { scan, dropped } = retroarchScans(ctx.services).add(
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
