// retroarch_set_paused: RetroArch: pause or resume.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { PROFILES, retroarch, stateEnum, TIMEOUT_LIMIT } from './shared.js';

export const retroarchSetPaused = defineTool({
  name: 'retroarch_set_paused',
  title: 'RetroArch: pause or resume',
  profiles: PROFILES,
  description: {
    purpose: 'Puts RetroArch into the paused or playing state, toggling only when needed, and confirms it.',
    useWhen: 'pause before frame-exact memory work; resume to let the game run.',
    behaviour:
      'PAUSE_TOGGLE only if the state differs, then confirmed (error unconfirmed if it did not change).',
    limits: 'confirmation waits up to max(RETROARCH_TIMEOUT_MS, 300 ms).',
  },
  input: z.object({ paused: z.boolean().describe('true: pause; false: resume.') }),
  output: z.object({ state: stateEnum, changed: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  limits: { timeoutMs: TIMEOUT_LIMIT },
  async handler(args, ctx) {
    const r = await retroarch(ctx).setPaused(args.paused, ctx.signal);
    return { structured: r, text: `RetroArch ${r.state}${r.changed ? '' : ' (already)'}` };
  },
});
