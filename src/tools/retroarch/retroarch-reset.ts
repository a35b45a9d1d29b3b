// retroarch_reset: RetroArch: reset the game.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { PROFILES, retroarch, TIMEOUT_LIMIT } from './shared.js';

export const retroarchReset = defineTool({
  name: 'retroarch_reset',
  title: 'RetroArch: reset the game',
  profiles: PROFILES,
  description: {
    purpose: 'Resets the running game (RESET), like the console reset button.',
    useWhen: 'restarting from boot; to return to a saved point use the load-state tools.',
    behaviour:
      'DESTRUCTIVE: live game state is lost. Fire-and-forget: RetroArch does not acknowledge RESET; the tool only checks that content is loaded first.',
    limits: 'one status query, then one datagram; RETROARCH_TIMEOUT_MS per query.',
    returns: 'sent.',
  },
  input: z.object({}),
  output: z.object({ sent: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  limits: { timeoutMs: TIMEOUT_LIMIT },
  async handler(_args, ctx) {
    const r = await retroarch(ctx).reset(ctx.signal);
    return { structured: r, text: 'RESET sent (RetroArch does not acknowledge it)' };
  },
});
