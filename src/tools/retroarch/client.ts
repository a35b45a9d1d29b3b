// What every RetroArch tool uses: the per-server client (lazy: no socket until the first call), the
// tools' profile, the query timeout limit every tool reports and RetroArch's run states.
import { z } from 'zod/v4';
import { RETROARCH_TIMEOUT } from '../../config/config.js';
import type { LimitSpec, ToolContext } from '../../mcp/tool.js';
import type { RetroArchClient } from '../../retroarch/client.js';
import { RUN_STATES } from '../../retroarch/codec.js';
import { retroarchClient } from '../../retroarch/service.js';

export function retroarch(ctx: ToolContext): RetroArchClient {
  return retroarchClient(ctx.services);
}

export const PROFILES = ['retroarch'] as const;

export const TIMEOUT_LIMIT: LimitSpec = {
  default: RETROARCH_TIMEOUT.default,
  min: RETROARCH_TIMEOUT.min,
  max: RETROARCH_TIMEOUT.max,
  unit: 'ms per query (RETROARCH_TIMEOUT_MS); reads are tried 3 times, writes once',
};

export const stateEnum = z.enum(RUN_STATES);
