// retroarch_set_paused: RetroArch: pause or resume.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { PROFILES, retroarch, stateEnum, TIMEOUT_LIMIT } from './shared.js';

export const retroarchSetPaused = defineTool({
  name: 'retroarch_set_paused',
  title: 'RetroArch: pause or resume',
  profiles: PROFILES,
  description: {
    purpose: 'Pauses or resumes RetroArch, toggling only when needed, and confirms it.',
    useWhen:
      'reaching a known state, e.g. paused for frame-exact memory work; retroarch_pause_toggle flips it.',
    behaviour: 'error unconfirmed if the state did not change.',
    limits: 'confirmation up to max(RETROARCH_TIMEOUT_MS, 300 ms).',
  },
  input: z.object({ paused: z.boolean() }),
  output: z.object({ state: stateEnum, changed: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { timeoutMs: TIMEOUT_LIMIT },
  async handler(args, ctx) {
    const r = await retroarch(ctx).setPaused(args.paused, ctx.signal);
    return { structured: r, text: `RetroArch ${r.state}${r.changed ? '' : ' (already)'}` };
  },
});
