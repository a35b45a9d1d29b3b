// retroarch_save_state_slot: RetroArch: save state to a slot.
import { defineTool } from '../../mcp/tool.js';
import { PROFILES } from './shared.js';
import {
  CONFIRM,
  SLOT_LIMITS_TEXT,
  STATE_ANNOTATIONS,
  saveLimits,
  saveOutput,
  saveState,
  slotStateInput,
  WALK,
} from './states-common.js';

export const retroarchSaveStateSlot = defineTool({
  name: 'retroarch_save_state_slot',
  title: 'RetroArch: save state to a slot',
  profiles: PROFILES,
  description: {
    purpose: 'Saves the emulator state to a given slot, leaving the slot pointer where it was.',
    useWhen: 'keeping several restore points; retroarch_load_state_slot reads them back.',
    behaviour: `overwrites that slot file. SAVE_STATE_SLOT when available, else ${WALK} ${CONFIRM}`,
    limits: SLOT_LIMITS_TEXT,
  },
  input: slotStateInput,
  output: saveOutput,
  annotations: STATE_ANNOTATIONS,
  limits: saveLimits,
  handler: (args, ctx) => saveState(ctx, { slot: args.slot, resumeIfPaused: args.resumeIfPaused }),
});
