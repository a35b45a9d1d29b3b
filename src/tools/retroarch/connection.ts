// Reaching RetroArch and reading what it runs: retroarch_ping (version and round trip),
// retroarch_get_status (playing, paused or contentless; the remote pad) and retroarch_get_config.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { READ_ONLY as readOnly } from '../shared/annotations.js';
import { PROFILES, retroarch, stateEnum, TIMEOUT_LIMIT } from './client.js';

// retroarch_ping: RetroArch: ping / version.
export const retroarchPing = defineTool({
  name: 'retroarch_ping',
  title: 'RetroArch: ping / version',
  profiles: PROFILES,
  description: {
    purpose: "Checks that RetroArch's network commands answer; reports its version.",
    useWhen:
      'first: do RETROARCH_HOST/PORT reach RetroArch (network_cmd_enable)? retroarch_get_status says what runs.',
    behaviour:
      'the version gates newer commands; cached until RetroArch is seen unreachable (ping after restarting it).',
    limits: 'RETROARCH_TIMEOUT_MS.',
  },
  input: z.object({}),
  output: z.object({
    version: z.string(),
    target: z.string(),
    roundTripMs: z.number(),
    nativeLoadStateSlot: z.boolean(),
    nativeSaveStateSlot: z.boolean(),
  }),
  annotations: readOnly,
  limits: { timeoutMs: TIMEOUT_LIMIT },
  async handler(_args, ctx) {
    const client = retroarch(ctx);
    const v = await client.getVersion(ctx.signal);
    const structured = {
      version: v.text,
      target: client.transport.target,
      roundTripMs: Math.round(v.rttMs * 100) / 100,
      nativeLoadStateSlot: await client.hasCommand('LOAD_STATE_SLOT', ctx.signal),
      nativeSaveStateSlot: await client.hasCommand('SAVE_STATE_SLOT', ctx.signal),
    };
    return {
      structured,
      text: `RetroArch ${v.text} at ${structured.target} (${structured.roundTripMs} ms)`,
    };
  },
});

// retroarch_get_status: RetroArch: status.
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

// retroarch_get_config: RetroArch: read a config value.
export const retroarchGetConfig = defineTool({
  name: 'retroarch_get_config',
  title: 'RetroArch: read a config value',
  profiles: PROFILES,
  description: {
    purpose: 'Reads one RetroArch setting (GET_CONFIG_PARAM).',
    useWhen: 'paths: savestate_directory, savefile_directory, system_directory, log_dir.',
    behaviour: 'RetroArch answers only some keys; others are supported: false, never guessed.',
    limits: 'RETROARCH_TIMEOUT_MS.',
  },
  input: z.object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9_]{1,64}$/)
      .describe('As in retroarch.cfg.'),
  }),
  output: z.object({ name: z.string(), supported: z.boolean(), value: z.string().nullable() }),
  annotations: readOnly,
  limits: { timeoutMs: TIMEOUT_LIMIT },
  async handler(args, ctx) {
    const r = await retroarch(ctx).getConfig(args.name, ctx.signal);
    return {
      structured: { name: args.name, ...r },
      text: r.supported
        ? `${args.name} = ${r.value}`
        : `${args.name}: unsupported (RetroArch does not expose it)`,
    };
  },
});
