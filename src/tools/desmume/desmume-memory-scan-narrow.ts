// desmume_memory_scan_narrow: re-reads a scan's candidates on the halted emulator and keeps those
// whose value satisfies the comparison.
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
import { cpuOf, debugSession, processorInput, RUNTIME } from './common.js';
import { desmumeOwner, desmumeScans, stubReader } from './scan-common.js';

export const desmumeMemoryScanNarrow = defineTool({
  name: 'desmume_memory_scan_narrow',
  title: 'Narrow a memory scan (DeSmuME)',
  profiles: RUNTIME,
  description: {
    purpose:
      'Keeps the scan candidates whose current value satisfies a comparison (with a value or the previous step).',
    useWhen: 'after the game value changed (or did not), e.g. "increased" after the counter ran.',
    behaviour:
      'CPU must be halted; reads only the candidates, returns the first page of survivors; a scan of an earlier generation is refused with not-found.',
    limits: `region up to ${SCAN_LIMITS.regionBytes.max / (1024 * 1024)} MiB; ${SCAN_LIMITS.scans.max} scans kept.`,
  },
  input: z.object({
    processor: processorInput,
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
  limits: scanLimits,
  async handler(args, ctx) {
    return debugSession(ctx.services).exclusive(async () => {
      const scan = desmumeScans(ctx.services).get(
        args.scanId,
        desmumeOwner(ctx.services),
        desmumeOwner(ctx.services),
      );
      const cpu = cpuOf(ctx.services, args.processor);
      cpu.requireStopped('scan memory');
      const r = await scan.narrow(args.comparison, args.value ?? null, stubReader(cpu), (done, total) =>
        ctx.progress({ progress: done, total, message: 'spans' }),
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
    });
  },
});
