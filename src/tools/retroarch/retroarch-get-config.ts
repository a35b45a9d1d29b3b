// retroarch_get_config: RetroArch: read a config value.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { READ_ONLY as readOnly } from '../shared/annotations.js';
import { PROFILES, retroarch, TIMEOUT_LIMIT } from './shared.js';

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
