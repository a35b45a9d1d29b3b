// retroarch_memory_scan_narrow: re-reads a scan's candidates and keeps those whose value satisfies the
// comparison.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { retroarchScans } from '../../retroarch/service.js';
import {
  narrowInputs,
  narrowOutput,
  narrowScan,
  SCAN_LIMITS_TEXT,
  scanLimits,
} from '../shared/memory-scan.js';
import { retroarchOwner, spaceReader } from './scan-common.js';
import { PROFILES, retroarch, TIMEOUT_LIMIT } from './shared.js';

export const retroarchMemoryScanNarrow = defineTool({
  name: 'retroarch_memory_scan_narrow',
  title: 'RetroArch: narrow a memory scan',
  profiles: PROFILES,
  description: {
    purpose: 'Keeps the scan candidates whose value now passes a comparison.',
    useWhen: 'after the game value changed (or did not): "increased" after frame advances.',
    behaviour:
      'reads only the candidates; returns the first page; scans of other content or an earlier RetroArch session are not-found.',
    limits: `${SCAN_LIMITS_TEXT}; RETROARCH_TIMEOUT_MS.`,
  },
  input: z.object(narrowInputs),
  output: narrowOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: { ...scanLimits, timeoutMs: TIMEOUT_LIMIT },
  async handler(args, ctx) {
    const owner = await retroarchOwner(retroarch(ctx), ctx.signal);
    const store = retroarchScans(ctx.services);
    const scan = store.get(args.scanId, owner, owner);
    return narrowScan(ctx, scan, args, spaceReader(ctx, scan.spec.space ?? 'memory'));
  },
});
