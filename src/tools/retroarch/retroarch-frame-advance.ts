// retroarch_frame_advance: RetroArch: advance frames.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { MAX_FRAMES, PRESS_SPACING_MS } from '../../retroarch/client.js';
import { PROFILES, retroarch, stateEnum, TIMEOUT_LIMIT } from './shared.js';

export const retroarchFrameAdvance = defineTool({
  name: 'retroarch_frame_advance',
  title: 'RetroArch: advance frames',
  profiles: PROFILES,
  description: {
    purpose: 'Runs exactly N frames (FRAMEADVANCE), ending paused.',
    useWhen: 'stepping the game frame by frame between memory reads.',
    behaviour: `pauses first when running; presses ${PRESS_SPACING_MS} ms apart (closer ones merge); cancellable between presses.`,
    limits: `about frames x ${PRESS_SPACING_MS} ms; RETROARCH_TIMEOUT_MS per query.`,
  },
  input: z.object({
    frames: z.number().int().min(1).max(MAX_FRAMES).default(1),
  }),
  output: z.object({ frames: z.number().int(), pausedFirst: z.boolean(), state: stateEnum }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: { frames: { default: 1, min: 1, max: MAX_FRAMES, unit: 'frames' }, timeoutMs: TIMEOUT_LIMIT },
  async handler(args, ctx) {
    const r = await retroarch(ctx).frameAdvance(args.frames, ctx.signal, (done, total) =>
      ctx.progress({ progress: done, total, message: 'frames' }),
    );
    return {
      structured: r,
      text: `Advanced ${r.frames} frame${r.frames === 1 ? '' : 's'}${r.pausedFirst ? ' (paused first)' : ''}; ${r.state}`,
    };
  },
});
