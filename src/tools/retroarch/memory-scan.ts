// Memory scans ("cheat search") through RetroArch: retroarch_memory_scan_start, _narrow and _results.
// A scan's owner is the loaded content and how often RetroArch came back after being seen absent (a
// new game or a detected restart discards every scan); it reads either address space. The scan store
// itself is the RetroArch service's (retroarchScans).

import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { addressArg, formatAddress } from '../../core/vocabulary.js';
import { defineTool, type ToolContext } from '../../mcp/tool.js';
import { SCAN_LIMITS } from '../../memory-scan/memory-scan.js';
import { MAX_READ_BYTES, type RetroArchClient } from '../../retroarch/client.js';
import { MEMORY_SPACES, requireContent, type Space } from '../../retroarch/codec.js';
import { retroarchScans } from '../../retroarch/service.js';
import * as shared from '../shared/memory-scan.js';
import { PROFILES, retroarch, TIMEOUT_LIMIT } from './client.js';

/** The content now loaded, as a scan owner; refuses without content. */
async function retroarchOwner(client: RetroArchClient, signal?: AbortSignal): Promise<string> {
  const status = await client.status(signal);
  requireContent(status);
  return `RetroArch ${status.system}/${status.game} crc32=${status.crc32} (session ${client.transport.returns})`;
}

function spaceReader(ctx: ToolContext, space: Space) {
  const client = retroarch(ctx);
  return (address: number, length: number) =>
    shared.readWhole(
      (a, n) => client.read(space, a, n, ctx.signal).then((r) => r.bytes),
      address,
      length,
      MAX_READ_BYTES,
      undefined,
      ctx.signal,
    );
}

/** Reads the region whole, refusing when RetroArch cuts it at a region end. */
async function readRegion(
  ctx: ToolContext,
  space: Space,
  address: number,
  length: number,
): Promise<Uint8Array> {
  const client = retroarch(ctx);
  const bytes = await shared.readWhole(
    (a, n) => client.read(space, a, n, ctx.signal).then((r) => r.bytes),
    address,
    length,
    MAX_READ_BYTES,
    ctx.progress,
    ctx.signal,
  );
  if (bytes.length < length) {
    throw new ReMcpError(
      'invalid-argument',
      `RetroArch's ${space === 'ram' ? 'achievements' : 'memory-map'} region ends at ${formatAddress(address + bytes.length)}: a scan region must be readable whole (use length ${bytes.length})`,
      { readable: bytes.length },
    );
  }
  return bytes;
}

// retroarch_memory_scan_start: snapshots a region of the core's memory map or achievements address
// space as the first step of a memory scan (every size-aligned address a candidate).
const spaceInput = z
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
    size: shared.sizeInput,
    signed: shared.signedInput,
  }),
  output: z.object({ ...shared.scanOutput, dropped: z.array(z.string()) }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: { ...shared.scanLimits, timeoutMs: TIMEOUT_LIMIT },
  async handler(args, ctx) {
    const owner = await retroarchOwner(retroarch(ctx), ctx.signal);
    const bytes = await readRegion(ctx, args.space, args.address, args.length);
    const { scan, dropped } = retroarchScans(ctx.services).add(
      owner,
      { base: args.address, length: args.length, size: args.size, signed: args.signed, space: args.space },
      bytes,
    );
    return {
      structured: { ...shared.scanView(scan), dropped },
      text: `${scan.id}: ${scan.candidateCount} candidates in ${args.length} bytes (${args.space})`,
    };
  },
});

// retroarch_memory_scan_narrow: re-reads a scan's candidates and keeps those whose value satisfies the
// comparison.
export const retroarchMemoryScanNarrow = defineTool({
  name: 'retroarch_memory_scan_narrow',
  title: 'RetroArch: narrow a memory scan',
  profiles: PROFILES,
  description: {
    purpose: 'Keeps the scan candidates whose value now passes a comparison.',
    useWhen: 'after the game value changed (or did not): "increased" after frame advances.',
    behaviour:
      'reads only the candidates; returns the first page; scans of other content or an earlier RetroArch session are not-found.',
    limits: `${shared.SCAN_LIMITS_TEXT}; RETROARCH_TIMEOUT_MS.`,
  },
  input: z.object(shared.narrowInputs),
  output: shared.narrowOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: { ...shared.scanLimits, timeoutMs: TIMEOUT_LIMIT },
  async handler(args, ctx) {
    const owner = await retroarchOwner(retroarch(ctx), ctx.signal);
    const store = retroarchScans(ctx.services);
    const scan = store.get(args.scanId, owner, owner);
    return shared.narrowScan(ctx, scan, args, spaceReader(ctx, scan.spec.space ?? 'memory'));
  },
});

// retroarch_memory_scan_results: one page of a scan's candidates as of its last step.
export const retroarchMemoryScanResults = defineTool({
  name: 'retroarch_memory_scan_results',
  title: 'RetroArch: page through memory-scan candidates',
  profiles: PROFILES,
  description: {
    purpose: "Lists a page of a scan's candidates with their last two values.",
    useWhen: 'after retroarch_memory_scan_narrow, for candidates beyond its first page.',
    behaviour: 'not-found if the content changed.',
    limits: `${shared.SCAN_LIMITS_TEXT}; RETROARCH_TIMEOUT_MS.`,
  },
  input: shared.resultsInput,
  output: shared.resultsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { ...shared.scanLimits, timeoutMs: TIMEOUT_LIMIT },
  async handler(args, ctx) {
    const owner = await retroarchOwner(retroarch(ctx), ctx.signal);
    const store = retroarchScans(ctx.services);
    const scan = store.get(args.scanId, owner, owner);
    const view = shared.pageView(scan, args.offset, args.limit);
    return {
      structured: { ...shared.scanView(scan), ...view },
      text: `${scan.id}: ${view.page.length} of ${scan.candidateCount} candidates from ${args.offset}`,
    };
  },
});
