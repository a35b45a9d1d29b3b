// retroarch_state_slot_plus: RetroArch: state slot +1 (shared shape with retroarch_state_slot_minus).
import { slotStepTool } from './states-common.js';

export const retroarchStateSlotPlus = slotStepTool('retroarch_state_slot_plus', 1);
