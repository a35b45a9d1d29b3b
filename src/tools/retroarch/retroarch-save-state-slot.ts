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
    purpose: 'Saves the state to a given slot; the slot pointer stays.',
    useWhen: 'several restore points; retroarch_load_state_slot restores them.',
    behaviour: `overwrites that file; SAVE_STATE_SLOT, else ${WALK} ${CONFIRM}`,
    limits: SLOT_LIMITS_TEXT,
  },
  input: slotStateInput,
  output: saveOutput,
  annotations: STATE_ANNOTATIONS,
  limits: saveLimits,
  handler: (args, ctx) => saveState(ctx, { slot: args.slot, resumeIfPaused: args.resumeIfPaused }),
});
