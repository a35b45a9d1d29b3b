// Read-only queries: VERSION (ping), GET_STATUS, GET_CONFIG_PARAM.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { PROFILES, retroarch, stateEnum, TIMEOUT_LIMIT } from './shared.js';

const readOnly = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

export const retroarchPing = defineTool({
  name: 'retroarch_ping',
  title: 'RetroArch: ping / version',
  profiles: PROFILES,
  description: {
    purpose: "Checks that RetroArch's network command interface answers and reports its version.",
    useWhen:
      'first, to confirm RETROARCH_HOST/RETROARCH_PORT reach a RetroArch with network_cmd_enable = "true"; retroarch_get_status says what it is running.',
    behaviour:
      'read-only; one VERSION query (re-sent on timeout). The version gates newer commands (e.g. LOAD_STATE_SLOT needs 1.15+); it is cached, and forgotten when RetroArch answers again after being seen unreachable (a restart between two calls that re-mcp never sees goes unnoticed: call this tool after restarting RetroArch).',
    limits: 'per-query timeout RETROARCH_TIMEOUT_MS (default 1000 ms), 3 attempts.',
    returns: 'version, target host:port, round-trip ms, and which optional slot commands this version has.',
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

export const retroarchGetStatus = defineTool({
  name: 'retroarch_get_status',
  title: 'RetroArch: status',
  profiles: PROFILES,
  description: {
    purpose:
      'Reports whether RetroArch is playing, paused or has no content, with the system, game and CRC32.',
    useWhen: 'before memory or state work, to know what runs and whether it is paused.',
    behaviour: 'read-only; one GET_STATUS query. An open menu still reports "playing".',
    limits: 'per-query timeout RETROARCH_TIMEOUT_MS (default 1000 ms), 3 attempts.',
    returns: 'state (playing|paused|contentless), system, game (ROM file name without extension), crc32.',
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

export const retroarchGetConfig = defineTool({
  name: 'retroarch_get_config',
  title: 'RetroArch: read a config value',
  profiles: PROFILES,
  description: {
    purpose: 'Reads one RetroArch setting through GET_CONFIG_PARAM.',
    useWhen:
      'to learn RetroArch paths such as savestate_directory, savefile_directory, system_directory or log_dir.',
    behaviour:
      'read-only. RetroArch answers only some keys; others (e.g. screenshot_directory, state_slot) come back as supported: false, never as a guess.',
    limits: 'name: 1-64 characters of A-Z a-z 0-9 _; per-query timeout RETROARCH_TIMEOUT_MS.',
    returns: 'name, supported, value (null when unsupported).',
  },
  input: z.object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9_]{1,64}$/)
      .describe('Setting name as in retroarch.cfg, e.g. "savestate_directory".'),
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
