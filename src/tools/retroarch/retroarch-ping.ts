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
    purpose: "Checks that RetroArch's network commands answer; reports its version.",
    useWhen:
      'first: do RETROARCH_HOST/PORT reach RetroArch (network_cmd_enable)? retroarch_get_status says what runs.',
    behaviour:
      'the version gates newer commands; cached until RetroArch is seen unreachable (ping after restarting it).',
    limits: 'RETROARCH_TIMEOUT_MS.',
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
