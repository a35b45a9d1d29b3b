// retroarch_input: controller input through RetroArch's network remote pad.
import { z } from 'zod/v4';
import { ReMcpError } from '../../core/errors.js';
import { defineTool } from '../../mcp/tool.js';
import { DEFAULT_PAD_PORT, PRESS_SPACING_MS } from '../../retroarch/client.js';
import { MAX_PLAYERS, PAD_BUTTONS } from '../../retroarch/codec.js';
import { INPUT_ACTIONS, INPUT_TIMINGS, MAX_INPUT_FRAMES, MAX_INPUT_STEPS } from '../../retroarch/input.js';
import { PROFILES, retroarch, stateEnum, TIMEOUT_LIMIT } from './client.js';

const buttons = z.array(z.enum(PAD_BUTTONS)).min(1).max(PAD_BUTTONS.length);

export const retroarchInput = defineTool({
  name: 'retroarch_input',
  title: 'RetroArch: press controller buttons',
  profiles: PROFILES,
  description: {
    purpose: "Presses, holds or releases joypad buttons through RetroArch's network remote pad.",
    useWhen: 'reaching a menu, level or fight; retroarch_frame_advance to step without input.',
    behaviour: `press: held for frames, then released (frame-exact while paused, FRAMEADVANCE ${PRESS_SPACING_MS} ms apart; timed at 60 Hz while running); a failed or cancelled press releases; hold: down until release. Needs the network remote pad (port RETROARCH_REMOTE_PAD_PORT, default ${DEFAULT_PAD_PORT}; docs/retroarch.md). No analog or touch.`,
    limits: `${MAX_INPUT_STEPS} steps, ${MAX_INPUT_FRAMES} frames a call; players 1-${MAX_PLAYERS}; RETROARCH_TIMEOUT_MS per query.`,
  },
  input: z.object({
    action: z.enum(INPUT_ACTIONS).default('press'),
    buttons: buttons.optional().describe('One step: these buttons together.'),
    frames: z.number().int().min(1).max(MAX_INPUT_FRAMES).default(1).describe('press: frames held.'),
    sequence: z
      .array(z.object({ buttons, frames: z.number().int().min(1).max(MAX_INPUT_FRAMES).default(1) }))
      .min(1)
      .max(MAX_INPUT_STEPS)
      .optional()
      .describe('Or several steps, in order (press).'),
    player: z.number().int().min(1).max(MAX_PLAYERS).default(1),
  }),
  output: z.object({
    player: z.number().int(),
    action: z.enum(INPUT_ACTIONS),
    timing: z.enum(INPUT_TIMINGS),
    steps: z.number().int(),
    frames: z.number().int(),
    held: z.array(z.enum(PAD_BUTTONS)),
    port: z.number().int(),
    state: stateEnum,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: {
    steps: { max: MAX_INPUT_STEPS, unit: 'steps' },
    frames: { default: 1, min: 1, max: MAX_INPUT_FRAMES, unit: 'frames a call' },
    timeoutMs: TIMEOUT_LIMIT,
  },
  async handler(args, ctx) {
    if ((args.buttons === undefined) === (args.sequence === undefined))
      throw new ReMcpError('invalid-argument', 'give exactly one of `buttons` or `sequence`');
    if (args.sequence !== undefined && args.action !== 'press')
      throw new ReMcpError('invalid-argument', 'a sequence is pressed (action press)');
    const steps = args.sequence ?? [{ buttons: args.buttons!, frames: args.frames }];
    const r = await retroarch(ctx).input(args.player, args.action, steps, ctx.signal, (done, total) =>
      ctx.progress({ progress: done, total, message: 'frames held' }),
    );
    const what =
      r.action === 'press'
        ? `pressed ${r.steps} step(s), ${r.frames} frame(s) held (${r.timing}), released`
        : r.action === 'hold'
          ? `holding ${r.held.join(', ')}`
          : 'released';
    return { structured: r, text: `player ${r.player} (UDP ${r.port}): ${what}; ${r.state}` };
  },
});
