// retroarch_ping: RetroArch: ping / version.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { READ_ONLY as readOnly } from '../shared/annotations.js';
import { PROFILES, retroarch, TIMEOUT_LIMIT } from './shared.js';

export const retroarchPing = defineTool({
  name: 'retroarch_ping',
  title: 'RetroArch: ping / version',
  profiles: PROFILES,
  description: {
    purpose: "Checks that RetroArch's network command interface answers and reports its version.",
    useWhen:
      'first, to confirm RETROARCH_HOST/RETROARCH_PORT reach a RetroArch with network_cmd_enable = "true"; retroarch_get_status says what it is running.',
    behaviour:
      'read-only; one VERSION query (re-sent on timeout). The version gates newer commands (e.g. LOAD_STATE_SLOT needs 1.15+); it is cached, and forgotten when RetroArch answers again after being seen unreachable (a restart between two calls that re-mcp never sees goes unnoticed: call this tool after restarting RetroArch).',
    limits: 'per-query timeout RETROARCH_TIMEOUT_MS (default 1000 ms), 3 attempts.',
    returns: 'version, target host:port, round-trip ms, and which optional slot commands this version has.',
  },
  input: z.object({}),
  output: z.object({
    version: z.string(),
    target: z.string(),
    roundTripMs: z.number(),
    nativeLoadStateSlot: z.boolean(),
    nativeSaveStateSlot: z.boolean(),
  }),
  annotations: readOnly,
  limits: { timeoutMs: TIMEOUT_LIMIT },
  async handler(_args, ctx) {
    const client = retroarch(ctx);
    const v = await client.getVersion(ctx.signal);
    const structured = {
      version: v.text,
      target: client.transport.target,
      roundTripMs: Math.round(v.rttMs * 100) / 100,
      nativeLoadStateSlot: await client.hasCommand('LOAD_STATE_SLOT', ctx.signal),
      nativeSaveStateSlot: await client.hasCommand('SAVE_STATE_SLOT', ctx.signal),
    };
    return {
      structured,
      text: `RetroArch ${v.text} at ${structured.target} (${structured.roundTripMs} ms)`,
    };
  },
});
