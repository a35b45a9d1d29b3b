// desmume_memory_scan_narrow: re-reads a scan's candidates on the halted emulator and keeps those
// whose value satisfies the comparison.
import { z } from 'zod/v4';
import { debugSession, desmumeScans } from '../../debug/service.js';
import { defineTool } from '../../mcp/tool.js';
import {
  narrowInputs,
  narrowOutput,
  narrowScan,
  SCAN_LIMITS_TEXT,
  scanLimits,
} from '../shared/memory-scan.js';
import { cpuOf, processorInput, RUNTIME } from './common.js';
import { desmumeOwner, scanNames, stubReader } from './scan-common.js';

export const desmumeMemoryScanNarrow = defineTool({
  name: 'desmume_memory_scan_narrow',
  title: 'Narrow a memory scan (DeSmuME)',
  profiles: RUNTIME,
  description: {
    purpose: 'Keeps the scan candidates whose value now passes a comparison.',
    useWhen: 'after the game value changed (or did not): "increased" after the counter ran.',
    behaviour:
      'CPU halted; reads only the candidates; returns the first page; scans of an earlier generation are not-found.',
    limits: `${SCAN_LIMITS_TEXT}.`,
  },
  input: z.object({ processor: processorInput, ...narrowInputs }),
  output: narrowOutput,
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
      return narrowScan(ctx, scan, args, stubReader(cpu), await scanNames(ctx, args.processor));
    });
  },
});
