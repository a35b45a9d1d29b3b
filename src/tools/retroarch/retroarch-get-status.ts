// retroarch_get_status: RetroArch: status.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { READ_ONLY as readOnly } from '../shared/annotations.js';
import { PROFILES, retroarch, stateEnum, TIMEOUT_LIMIT } from './shared.js';

export const retroarchGetStatus = defineTool({
  name: 'retroarch_get_status',
  title: 'RetroArch: status',
  profiles: PROFILES,
  description: {
    purpose: 'Whether RetroArch is playing, paused or contentless, with system, game and CRC32.',
    useWhen: 'before memory or state work.',
    behaviour: 'an open menu still reports playing.',
    limits: 'RETROARCH_TIMEOUT_MS.',
  },
  input: z.object({}),
  output: z.object({
    state: stateEnum,
    system: z.string().nullable(),
    game: z.string().nullable(),
    crc32: z.string().nullable(),
  }),
  annotations: readOnly,
  limits: { timeoutMs: TIMEOUT_LIMIT },
  async handler(_args, ctx) {
    const s = await retroarch(ctx).status(ctx.signal);
    const text =
      s.state === 'contentless'
        ? 'RetroArch: no content loaded'
        : `RetroArch: ${s.state} - ${s.system ?? '?'} / ${s.game ?? '?'} (crc32 ${s.crc32 ?? 'not reported'})`;
    return { structured: s, text };
  },
});
