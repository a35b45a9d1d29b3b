// retroarch_show_message: RetroArch: on-screen message.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { PROFILES, retroarch } from './shared.js';

export const retroarchShowMessage = defineTool({
  name: 'retroarch_show_message',
  title: 'RetroArch: on-screen message',
  profiles: PROFILES,
  description: {
    purpose: "Shows a one-line message on RetroArch's on-screen display (SHOW_MSG).",
    useWhen: 'telling the person at the emulator something.',
    behaviour: 'fire-and-forget: nothing confirms it was displayed.',
    limits: '200 characters, no control characters.',
  },
  input: z.object({
    message: z.string().min(1).max(200).describe('One line.'),
  }),
  output: z.object({ sent: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(args, ctx) {
    const r = await retroarch(ctx).showMessage(args.message, ctx.signal);
    return { structured: r, text: 'SHOW_MSG sent (not acknowledged by RetroArch)' };
  },
});
