// retroarch_reset: RetroArch: reset the game.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { PROFILES, retroarch, TIMEOUT_LIMIT } from './shared.js';

export const retroarchReset = defineTool({
  name: 'retroarch_reset',
  title: 'RetroArch: reset the game',
  profiles: PROFILES,
  description: {
    purpose: 'Resets the running game (RESET), like the console button.',
    useWhen: 'restarting from boot; the load-state tools return to a saved point.',
    behaviour: 'live game state is lost; never acknowledged.',
    limits: 'RETROARCH_TIMEOUT_MS per query.',
  },
  input: z.object({
    resumeIfPaused: z.boolean().default(false).describe('Resume, reset, pause again.'),
  }),
  output: z.object({ sent: z.boolean(), resumedAndRepaused: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  limits: { timeoutMs: TIMEOUT_LIMIT },
  async handler(args, ctx) {
    const r = await retroarch(ctx).reset(args.resumeIfPaused, ctx.signal);
    return {
      structured: r,
      text: `RESET sent (RetroArch does not acknowledge it)${r.resumedAndRepaused ? '; resumed for it and paused again' : ''}`,
    };
  },
});
