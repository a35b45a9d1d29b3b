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
    purpose:
      'Whether RetroArch is playing, paused or contentless, with system, game and CRC32, and whether its remote pad (retroarch_input) listens.',
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
    remotePad: z
      .object({ port: z.number().int(), listening: z.boolean().nullable() })
      .describe('listening null: a remote host, where a refusal may not come back'),
  }),
  annotations: readOnly,
  limits: { timeoutMs: TIMEOUT_LIMIT },
  async handler(_args, ctx) {
    const client = retroarch(ctx);
    const s = await client.status(ctx.signal);
    const remotePad = await client.pad.probe(1);
    const pad =
      remotePad.listening === false
        ? `remote pad off on UDP ${remotePad.port} (enable network_remote_enable and network_remote_enable_user_p1 for retroarch_input)`
        : `remote pad on UDP ${remotePad.port}${remotePad.listening === null ? ' (not confirmed: remote host)' : ''}`;
    const text =
      s.state === 'contentless'
        ? `RetroArch: no content loaded; ${pad}`
        : `RetroArch: ${s.state} - ${s.system ?? '?'} / ${s.game ?? '?'} (crc32 ${s.crc32 ?? 'not reported'}); ${pad}`;
    return { structured: { ...s, remotePad }, text };
  },
});
