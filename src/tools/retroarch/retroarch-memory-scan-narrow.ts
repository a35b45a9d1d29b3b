// retroarch_memory_scan_narrow: re-reads a scan's candidates and keeps those whose value satisfies the
// comparison.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { SCAN_LIMITS } from '../../scan/memory-scan.js';
import {
  comparisonInput,
  narrowText,
  pageInputs,
  pageOutput,
  pageView,
  scanIdInput,
  scanLimits,
  scanOutput,
  scanView,
} from '../shared/memory-scan.js';
import { retroarchOwner, retroarchScans, spaceReader } from './scan-common.js';
import { PROFILES, retroarch, TIMEOUT_LIMIT } from './shared.js';

export const retroarchMemoryScanNarrow = defineTool({
  name: 'retroarch_memory_scan_narrow',
  title: 'RetroArch: narrow a memory scan',
  profiles: PROFILES,
  description: {
    purpose:
      'Keeps the scan candidates whose current value satisfies a comparison (with a value or the previous step).',
    useWhen: 'after the game value changed (or did not), e.g. "increased" after frame advances.',
    behaviour:
      'reads only the candidates, returns the first page of survivors; a scan of other content (or from before RetroArch was seen gone) is refused with not-found.',
    limits: `region up to ${SCAN_LIMITS.regionBytes.max / (1024 * 1024)} MiB; ${SCAN_LIMITS.scans.max} scans kept; RETROARCH_TIMEOUT_MS per query.`,
  },
  input: z.object({
    scanId: scanIdInput,
    comparison: comparisonInput,
    value: z.number().int().optional().describe('Value for equal/not-equal/greater/less; omit otherwise.'),
    limit: pageInputs.limit,
  }),
  output: z.object({
    ...scanOutput,
    before: z.number().int(),
    bytesRead: z.number().int(),
    spans: z.number().int(),
    ...pageOutput,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: { ...scanLimits, timeoutMs: TIMEOUT_LIMIT },
  async handler(args, ctx) {
    const owner = await retroarchOwner(retroarch(ctx), ctx.signal);
    const store = retroarchScans(ctx);
    const scan = store.get(args.scanId, owner, owner);
    const r = await scan.narrow(
      args.comparison,
      args.value ?? null,
      spaceReader(ctx, scan.spec.space ?? 'memory'),
      (done, total) => ctx.progress({ progress: done, total, message: 'spans' }),
    );
    return {
      structured: {
        ...scanView(scan),
        before: r.before,
        bytesRead: r.bytesRead,
        spans: r.spans,
        ...pageView(scan, 0, args.limit),
      },
      text: narrowText(scan, args.comparison, r.before),
    };
  },
});
