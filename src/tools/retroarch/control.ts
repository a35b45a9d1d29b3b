// Run control and output: pause, frame advance, reset, screenshot, on-screen message.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { MAX_FRAMES, MAX_SCREENSHOT_BYTES, PRESS_SPACING_MS } from '../../retroarch/client.js';
import { PROFILES, retroarch, stateEnum, TIMEOUT_LIMIT } from './shared.js';

export const retroarchPauseToggle = defineTool({
  name: 'retroarch_pause_toggle',
  title: 'RetroArch: toggle pause',
  profiles: PROFILES,
  description: {
    purpose: 'Toggles pause (PAUSE_TOGGLE) and confirms the new state through GET_STATUS.',
    useWhen:
      'you want to flip whatever the state is; to reach a known state use retroarch_set_paused instead.',
    behaviour:
      'changes the run state (not destructive). RetroArch does not answer the toggle itself; the tool reads the status before and after.',
    limits: `confirmation waits up to max(RETROARCH_TIMEOUT_MS, 300 ms); presses are spaced ${PRESS_SPACING_MS} ms apart.`,
    returns: 'before, after (playing|paused), confirmed.',
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

export const retroarchSetPaused = defineTool({
  name: 'retroarch_set_paused',
  title: 'RetroArch: pause or resume',
  profiles: PROFILES,
  description: {
    purpose: 'Puts RetroArch into the paused or playing state, toggling only when needed, and confirms it.',
    useWhen: 'before inspecting memory frame-exactly (pause) or to let the game run again (resume).',
    behaviour:
      'reads GET_STATUS, sends PAUSE_TOGGLE only if the state differs, then confirms via GET_STATUS (an `unconfirmed` error if it did not change). Idempotent.',
    limits: 'confirmation waits up to max(RETROARCH_TIMEOUT_MS, 300 ms).',
    returns: 'state, changed.',
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

export const retroarchFrameAdvance = defineTool({
  name: 'retroarch_frame_advance',
  title: 'RetroArch: advance frames',
  profiles: PROFILES,
  description: {
    purpose: 'Runs exactly N frames from the paused state (FRAMEADVANCE presses), ending paused.',
    useWhen: 'stepping the game frame by frame between memory reads.',
    behaviour: `pauses first when running (pausedFirst: true), then sends N presses spaced ${PRESS_SPACING_MS} ms apart (closer presses merge into one frame) and confirms the paused state. Cancellable between presses.`,
    limits: `frames 1..${MAX_FRAMES} (default 1); takes about frames x ${PRESS_SPACING_MS} ms.`,
    returns: 'frames, pausedFirst, state.',
  },
  input: z.object({
    frames: z
      .number()
      .int()
      .min(1)
      .max(MAX_FRAMES)
      .default(1)
      .describe(`Frames to advance, 1..${MAX_FRAMES} (default 1).`),
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

export const retroarchReset = defineTool({
  name: 'retroarch_reset',
  title: 'RetroArch: reset the game',
  profiles: PROFILES,
  description: {
    purpose: 'Resets the running game (RESET), like the console reset button.',
    useWhen: 'restarting from boot; to return to a saved point use the load-state tools.',
    behaviour:
      'DESTRUCTIVE: live game state is lost. RetroArch does not acknowledge RESET and silently ignores it while paused: a paused game is refused with `paused` unless resumeIfPaused is true (then it resumes, resets and pauses again, each state change confirmed).',
    limits: 'one status query then one datagram (plus the confirmed pause toggles with resumeIfPaused).',
    returns: 'sent, and whether the game was resumed and paused again around the reset.',
  },
  input: z.object({
    resumeIfPaused: z
      .boolean()
      .default(false)
      .describe('When paused: resume, reset, then pause again (default false: refuse with `paused`).'),
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

export const retroarchScreenshot = defineTool({
  name: 'retroarch_screenshot',
  title: 'RetroArch: screenshot',
  profiles: PROFILES,
  description: {
    purpose:
      'Takes a screenshot (SCREENSHOT) and, when RETROARCH_SCREENSHOT_DIR is set, returns the PNG as an image.',
    useWhen: 'to see the game screen.',
    behaviour:
      "writes a PNG into RetroArch's screenshot_directory (two shots in the same second overwrite each other). The protocol cannot report that directory: with RETROARCH_SCREENSHOT_DIR set, the tool waits for the new file and returns it; without it, it only says the shot was requested.",
    limits: `waits up to max(2 s, 2 x RETROARCH_TIMEOUT_MS) for the file; PNG up to ${MAX_SCREENSHOT_BYTES} bytes.`,
    returns: 'requested, path (or null), bytes, width, height; the PNG as MCP image content.',
  },
  input: z.object({}),
  output: z.object({
    requested: z.boolean(),
    path: z.string().nullable(),
    bytes: z.number().int().nullable(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    note: z.string().nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  limits: { pngBytes: { max: MAX_SCREENSHOT_BYTES, unit: 'bytes' }, timeoutMs: TIMEOUT_LIMIT },
  async handler(_args, ctx) {
    const r = await retroarch(ctx).screenshot(ctx.signal);
    if (!r.png) {
      const dir = retroarch(ctx).screenshotDir;
      const note = r.directoryKnown
        ? `SCREENSHOT requested, but RETROARCH_SCREENSHOT_DIR (${dir}) cannot be read, so the image cannot be returned; point it at RetroArch's screenshot_directory`
        : "SCREENSHOT requested; set RETROARCH_SCREENSHOT_DIR to RetroArch's screenshot_directory to get the image back";
      return {
        structured: { requested: true, path: null, bytes: null, width: null, height: null, note },
        text: note,
      };
    }
    const width = r.png.readUInt32BE(16);
    const height = r.png.readUInt32BE(20);
    return {
      structured: { requested: true, path: r.path, bytes: r.png.length, width, height, note: null },
      text: `Screenshot ${width}x${height}, ${r.png.length} bytes: ${r.path}`,
      images: [{ type: 'image', data: r.png.toString('base64'), mimeType: 'image/png' }],
    };
  },
});

export const retroarchShowMessage = defineTool({
  name: 'retroarch_show_message',
  title: 'RetroArch: on-screen message',
  profiles: PROFILES,
  description: {
    purpose: "Shows a one-line message on RetroArch's on-screen display (SHOW_MSG).",
    useWhen: 'to tell the person at the emulator something.',
    behaviour:
      'checks RetroArch answers GET_STATUS, then sends; fire-and-forget: RetroArch does not acknowledge it and nothing can confirm it was displayed (with a null video driver nothing is).',
    limits: '1..200 characters, one line, no control characters (a newline would start a second command).',
    returns: 'sent.',
  },
  input: z.object({
    message: z.string().min(1).max(200).describe('Text to show: 1..200 characters on one line.'),
  }),
  output: z.object({ sent: z.boolean() }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(args, ctx) {
    const r = await retroarch(ctx).showMessage(args.message, ctx.signal);
    return { structured: r, text: 'SHOW_MSG sent (not acknowledged by RetroArch)' };
  },
});
