// retroarch_load_state_current: RetroArch: load state (current slot).
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { PROFILES, resumeIfPaused, TIMEOUT_LIMIT } from './shared.js';
import { loadOutput, loadState, STATE_ANNOTATIONS } from './states-common.js';

export const retroarchLoadStateCurrent = defineTool({
  name: 'retroarch_load_state_current',
  title: 'RetroArch: load state (current slot)',
  profiles: PROFILES,
  description: {
    purpose: "Restores the emulator state from RetroArch's current slot (LOAD_STATE).",
    useWhen: 'back to the last retroarch_save_state_current.',
    behaviour:
      'replaces all live state; never acknowledged: a missing file is not-found when the state directory is readable.',
    limits: 'one load, then a main-loop turn; RETROARCH_TIMEOUT_MS.',
  },
  input: z.object({ resumeIfPaused }),
  output: loadOutput,
  annotations: STATE_ANNOTATIONS,
  limits: { timeoutMs: TIMEOUT_LIMIT },
  handler: (args, ctx) => loadState(ctx, { resumeIfPaused: args.resumeIfPaused }),
});
