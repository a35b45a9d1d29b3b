// Schemas and result shapes shared by the emulators' and RetroArch's memory-scan tools: one scan model
// (src/memory-scan/memory-scan.ts), two ways of reading memory.
import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { addressOut, formatAddress, valueArg } from '../../core/vocabulary.js';
import type { ProgressUpdate, ToolContext } from '../../mcp/tool.js';
import {
  type MemoryScan,
  type ReadSpan,
  SCAN_COMPARISONS,
  SCAN_LIMITS,
  type ScanComparison,
} from '../../memory-scan/memory-scan.js';
import { MEMORY_SPACES } from '../../retroarch/codec.js';

export const sizeInput = z
  .union([z.literal(1), z.literal(2), z.literal(4)])
  .default(4)
  .describe('Little-endian.');

export const signedInput = z.boolean().default(false);

const comparisonInput = z.enum(SCAN_COMPARISONS);

const pageInputs = {
  offset: z.number().int().min(0).default(0).describe('Candidate index.'),
  limit: z
    .number()
    .int()
    .min(SCAN_LIMITS.page.min)
    .max(SCAN_LIMITS.page.max)
    .default(SCAN_LIMITS.page.default),
};

const scanIdInput = z.string().min(1).max(64).describe('From *_memory_scan_start.');

export const scanLimits = {
  regionBytes: { min: SCAN_LIMITS.regionBytes.min, max: SCAN_LIMITS.regionBytes.max, unit: 'bytes' },
  scans: { max: SCAN_LIMITS.scans.max, unit: 'scans kept (the oldest is dropped)' },
  pageSize: { ...SCAN_LIMITS.page, unit: 'candidates per page' },
};

/** The Limits line of the narrow and results tools (a family appends its own bound). */
export const SCAN_LIMITS_TEXT = `region up to ${SCAN_LIMITS.regionBytes.max / (1024 * 1024)} MiB; ${SCAN_LIMITS.scans.max} scans kept`;

export const scanOutput = {
  scanId: z.string(),
  owner: z.string(),
  base: addressOut,
  length: z.number().int(),
  size: z.number().int(),
  signed: z.boolean(),
  space: z.enum(MEMORY_SPACES).nullable(),
  steps: z.number().int(),
  candidates: z.number().int(),
};

const pageOutput = {
  offset: z.number().int(),
  page: z.array(
    z.object({
      address: addressOut,
      value: z.number().int(),
      previous: z.number().int(),
      name: z.string().optional().describe("The symbol store's name there (user-asserted)"),
    }),
  ),
  more: z.boolean(),
};

export function scanView(scan: MemoryScan) {
  return {
    scanId: scan.id,
    owner: scan.owner,
    base: formatAddress(scan.spec.base),
    length: scan.spec.length,
    size: scan.spec.size,
    signed: scan.spec.signed,
    space: scan.spec.space ?? null,
    steps: scan.steps,
    candidates: scan.candidateCount,
  };
}

/** A name for a candidate's address, when the family has a symbol store for the scanned memory. */
export type CandidateName = (address: number) => string | null;

export function pageView(scan: MemoryScan, offset: number, limit: number, nameOf?: CandidateName) {
  return {
    offset,
    page: scan.page(offset, limit).map((c) => {
      const name = nameOf?.(c.address) ?? null;
      return { ...c, address: formatAddress(c.address), ...(name === null ? {} : { name }) };
    }),
    more: offset + limit < scan.candidateCount,
  };
}

/** Reads [address, address + length) through `read` in pieces of at most `piece` bytes, with progress. */
export async function readWhole(
  read: ReadSpan,
  address: number,
  length: number,
  piece: number,
  progress?: (u: ProgressUpdate) => void,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  const total = Math.ceil(length / piece);
  for (let at = 0, i = 0; at < length; at += piece, i++) {
    if (signal?.aborted) throw new ReMcpError('cancelled', 'the scan read was cancelled');
    const n = Math.min(piece, length - at);
    const bytes = await read(address + at, n);
    out.set(bytes.subarray(0, n), at);
    if (bytes.length < n) return out.subarray(0, at + bytes.length);
    progress?.({ progress: i + 1, total, message: 'reading' });
  }
  return out;
}

/** The arguments of every *_memory_scan_narrow tool (a family may put its own first, e.g. the CPU). */
export const narrowInputs = {
  scanId: scanIdInput,
  comparison: comparisonInput,
  value: valueArg('For equal/not-equal/greater/less; the rest compare with the previous step.').optional(),
  limit: pageInputs.limit,
};

export const narrowOutput = z.object({
  ...scanOutput,
  before: z.number().int(),
  bytesRead: z.number().int(),
  spans: z.number().int(),
  ...pageOutput,
});

/** Narrows `scan` reading through the family's `read`, reporting spans as progress; the first page. */
export async function narrowScan(
  ctx: ToolContext,
  scan: MemoryScan,
  args: { comparison: ScanComparison; value?: number; limit: number },
  read: ReadSpan,
  nameOf?: CandidateName,
) {
  const r = await scan.narrow(args.comparison, args.value ?? null, read, (done, total) =>
    ctx.progress({ progress: done, total, message: 'spans' }),
  );
  return {
    structured: {
      ...scanView(scan),
      before: r.before,
      bytesRead: r.bytesRead,
      spans: r.spans,
      ...pageView(scan, 0, args.limit, nameOf),
    },
    text: `${scan.id} step ${scan.steps} (${args.comparison}): ${r.before} -> ${scan.candidateCount} candidates`,
  };
}

/** The arguments and result of every *_memory_scan_results tool. */
export const resultsInput = z.object({ scanId: scanIdInput, ...pageInputs });

export const resultsOutput = z.object({ ...scanOutput, ...pageOutput });
