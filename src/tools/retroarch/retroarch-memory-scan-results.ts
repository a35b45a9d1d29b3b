// retroarch_memory_scan_results: one page of a scan's candidates as of its last step.
import { defineTool } from '../../mcp/tool.js';
import { retroarchScans } from '../../retroarch/service.js';
import {
  pageView,
  resultsInput,
  resultsOutput,
  SCAN_LIMITS_TEXT,
  scanLimits,
  scanView,
} from '../shared/memory-scan.js';
import { retroarchOwner } from './scan-common.js';
import { PROFILES, retroarch, TIMEOUT_LIMIT } from './shared.js';

export const retroarchMemoryScanResults = defineTool({
  name: 'retroarch_memory_scan_results',
  title: 'RetroArch: page through memory-scan candidates',
  profiles: PROFILES,
  description: {
    purpose: "Lists a page of a scan's candidates with their last two values.",
    useWhen: 'after retroarch_memory_scan_narrow, for candidates beyond its first page.',
    behaviour: 'not-found if the content changed.',
    limits: `${SCAN_LIMITS_TEXT}; RETROARCH_TIMEOUT_MS.`,
  },
  input: resultsInput,
  output: resultsOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { ...scanLimits, timeoutMs: TIMEOUT_LIMIT },
  async handler(args, ctx) {
    const owner = await retroarchOwner(retroarch(ctx), ctx.signal);
    const store = retroarchScans(ctx.services);
    const scan = store.get(args.scanId, owner, owner);
    const view = pageView(scan, args.offset, args.limit);
    return {
      structured: { ...scanView(scan), ...view },
      text: `${scan.id}: ${view.page.length} of ${scan.candidateCount} candidates from ${args.offset}`,
    };
  },
});
