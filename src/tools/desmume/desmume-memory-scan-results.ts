// desmume_memory_scan_results: one page of a scan's candidates as of its last step (no emulator I/O).
import { desmumeScans } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import {
  pageView,
  resultsInput,
  resultsOutput,
  SCAN_LIMITS_TEXT,
  scanLimits,
  scanView,
} from '../shared/memory-scan.js';
import { RUNTIME } from './common.js';
import { desmumeOwner, scanNames } from './scan-common.js';

export const desmumeMemoryScanResults = defineTool({
  name: 'desmume_memory_scan_results',
  title: 'Page through memory-scan candidates (DeSmuME)',
  profiles: RUNTIME,
  description: {
    purpose: "Lists a page of a scan's candidates with their last two values.",
    useWhen: 'after desmume_memory_scan_narrow, for candidates beyond its first page.',
    behaviour: 'sends nothing; scans of an earlier generation are not-found.',
    limits: `${SCAN_LIMITS_TEXT}.`,
  },
  input: resultsInput,
  output: resultsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: scanLimits,
  async handler(args, ctx) {
    const owner = desmumeOwner(ctx.services);
    const scan = desmumeScans(ctx.services).get(args.scanId, owner, owner);
    const view = pageView(scan, args.offset, args.limit, await scanNames(ctx, scan.spec.processor ?? 'arm9'));
    return {
      structured: { ...scanView(scan), ...view },
      text:
        view.page.length === 0
          ? `${scan.id}: no candidates at offset ${args.offset} (${scan.candidateCount} in all)`
          : `${scan.id}: candidates ${args.offset}..${args.offset + view.page.length - 1} of ${scan.candidateCount}`,
    };
  },
});
