// RetroArch's run control: retroarch_pause_toggle, retroarch_set_paused, retroarch_frame_advance and
// retroarch_reset.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { MAX_FRAMES, PRESS_SPACING_MS } from '../../retroarch/client.js';
import { PROFILES, retroarch, stateEnum, TIMEOUT_LIMIT } from './client.js';

// retroarch_pause_toggle: RetroArch: toggle pause.
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

// retroarch_set_paused: RetroArch: pause or resume.
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

// retroarch_frame_advance: RetroArch: advance frames.
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

// retroarch_reset: RetroArch: reset the game.
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
