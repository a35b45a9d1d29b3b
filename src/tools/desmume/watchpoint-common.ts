// Output shape shared by the watchpoint tools.
import { z } from 'zod/v4';
import { addressOut, formatAddress } from '../../core/vocabulary.js';
import type { Watchpoint } from '../../debug/watchpoints.js';

export const watchpointOutput = z.object({
  id: z.string(),
  processor: z.enum(['arm9', 'arm7']),
  address: addressOut,
  length: z.number().int(),
  access: z.enum(['write', 'read', 'access']),
  region: z.string(),
  hits: z.number().int(),
  createdAt: z.string(),
});

export function watchpointView(w: Watchpoint): z.input<typeof watchpointOutput> {
  return { ...w, address: formatAddress(w.address) };
}
