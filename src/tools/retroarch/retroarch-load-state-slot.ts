// retroarch_load_state_slot: RetroArch: load state from a slot.
import { defineTool } from '../../mcp/tool.js';
import { PROFILES } from './shared.js';
import {
  loadOutput,
  loadState,
  SLOT_LIMITS_TEXT,
  STATE_ANNOTATIONS,
  saveLimits,
  slotStateInput,
  WALK,
} from './states-common.js';

export const retroarchLoadStateSlot = defineTool({
  name: 'retroarch_load_state_slot',
  title: 'RetroArch: load state from a slot',
  profiles: PROFILES,
  description: {
    purpose: 'Restores the state from a given slot; the slot pointer stays.',
    useWhen: 'switching between points saved by retroarch_save_state_slot.',
    behaviour: `replaces all live state; LOAD_STATE_SLOT (1.15+), else ${WALK} Never acknowledged; a missing file is not-found when the state directory is readable.`,
    limits: SLOT_LIMITS_TEXT,
  },
  input: slotStateInput,
  output: loadOutput,
  annotations: STATE_ANNOTATIONS,
  limits: saveLimits,
  handler: (args, ctx) => loadState(ctx, { slot: args.slot, resumeIfPaused: args.resumeIfPaused }),
});
