// What RetroArch's screen shows: retroarch_screenshot (the picture, returned as a PNG when the
// screenshot directory is readable) and retroarch_show_message (a line on its on-screen display).
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { MAX_SCREENSHOT_BYTES } from '../../retroarch/client.js';
import { PROFILES, retroarch, TIMEOUT_LIMIT } from './client.js';

// retroarch_screenshot: RetroArch: screenshot.
export const retroarchScreenshot = defineTool({
  name: 'retroarch_screenshot',
  title: 'RetroArch: screenshot',
  profiles: PROFILES,
  description: {
    purpose: 'Takes a screenshot (SCREENSHOT), returned as a PNG image when RETROARCH_SCREENSHOT_DIR is set.',
    useWhen: 'to see the game screen.',
    behaviour:
      "written to RetroArch's screenshot_directory (same-second shots overwrite); else only the request is reported.",
    limits: `file wait max(2 s, 2 x RETROARCH_TIMEOUT_MS); PNG up to ${MAX_SCREENSHOT_BYTES / (1024 * 1024)} MiB.`,
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

// retroarch_show_message: RetroArch: on-screen message.
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
