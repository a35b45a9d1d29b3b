// retroarch_save_state_slot: RetroArch: save state to a slot.
import { z } from 'zod/v4';
import { defineTool } from '../../mcp/tool.js';
import { PRESS_SPACING_MS } from '../../retroarch/client.js';
import { PROFILES, resumeIfPaused } from './shared.js';
import { CONFIRM, saveLimits, saveOutput, saveState, slotInput, WALK } from './states-common.js';

export const retroarchSaveStateSlot = defineTool({
  name: 'retroarch_save_state_slot',
  title: 'RetroArch: save state to a slot',
  profiles: PROFILES,
  description: {
    purpose: 'Saves the emulator state to a given slot, leaving the slot pointer where it was.',
    useWhen: 'keeping several restore points; retroarch_load_state_slot reads them back.',
    behaviour: `overwrites that slot file. SAVE_STATE_SLOT when available, else ${WALK} ${CONFIRM}`,
    limits: `a walk takes |slot - pointer| x ${PRESS_SPACING_MS} ms each way; RETROARCH_TIMEOUT_MS per query, file wait max(2 s, 2 x it).`,
  },
  input: z.object({ slot: slotInput, resumeIfPaused }),
  output: saveOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  limits: saveLimits,
  handler: (args, ctx) => saveState(ctx, { slot: args.slot, resumeIfPaused: args.resumeIfPaused }),
});
