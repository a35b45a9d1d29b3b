// retroarch_pause_toggle: RetroArch: toggle pause.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { PRESS_SPACING_MS } from '../../retroarch/client.js';
import { PROFILES, retroarch, stateEnum, TIMEOUT_LIMIT } from './shared.js';

export const retroarchPauseToggle = defineTool({
  name: 'retroarch_pause_toggle',
  title: 'RetroArch: toggle pause',
  profiles: PROFILES,
  description: {
    purpose: 'Toggles pause (PAUSE_TOGGLE), confirming the new state.',
    useWhen: 'flipping whatever the state is; retroarch_set_paused reaches a known one.',
    behaviour: 'the toggle is unanswered, so the status is read before and after.',
    limits: `confirmation up to max(RETROARCH_TIMEOUT_MS, 300 ms); presses ${PRESS_SPACING_MS} ms apart.`,
  },
  input: z.object({}),
  output: z.object({ before: stateEnum, after: stateEnum, confirmed: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: { timeoutMs: TIMEOUT_LIMIT },
  async handler(_args, ctx) {
    const r = await retroarch(ctx).pauseToggle(ctx.signal);
    return {
      structured: r,
      text: r.confirmed
        ? `${r.before} -> ${r.after} (confirmed)`
        : `toggle sent but RetroArch still reports ${r.after}`,
    };
  },
});
