// retroarch_save_state_current: RetroArch: save state (current slot).
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { MAX_SLOT } from '../../retroarch/client.js';
import { PROFILES, resumeIfPaused } from './shared.js';
import { CONFIRM, STATE_ANNOTATIONS, saveLimits, saveOutput, saveState } from './states-common.js';

export const retroarchSaveStateCurrent = defineTool({
  name: 'retroarch_save_state_current',
  title: 'RetroArch: save state (current slot)',
  profiles: PROFILES,
  description: {
    purpose: "Saves the emulator state to RetroArch's current slot (SAVE_STATE).",
    useWhen: 'a restore point before risky writes; retroarch_save_state_slot for a given slot.',
    behaviour: `overwrites the slot file. ${CONFIRM}`,
    limits: `pointer 0..${MAX_SLOT}; file wait max(2 s, 2 x RETROARCH_TIMEOUT_MS).`,
  },
  input: z.object({ resumeIfPaused }),
  output: saveOutput,
  annotations: STATE_ANNOTATIONS,
  limits: saveLimits,
  handler: (args, ctx) => saveState(ctx, { resumeIfPaused: args.resumeIfPaused }),
});
